/** Where a GraphQL variable comes from: a path parameter, query parameter, header, or the body. */
export type Source = `path.${string}` | `query.${string}` | `header.${string}` | 'body' | `body.${string}`;

/** Which service's documented HTTP shapes (envelopes, error bodies) a route uses. */
export type Style = 'insight' | 'llm' | 'crawl' | 'cms';

export type { JsonSchema } from '@svc/kit';
import type { JsonSchema } from '@svc/kit';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style template: `/api/v1/contents/{contentSlug}`. */
  path: string;
  style: Style;
  /** Named operation in `schema/operations/*.graphql`. */
  operation: string;
  /** The OpenAPI operationId when it is not the operation's name (a native route with no GraphQL twin of its own). */
  operationId?: string;
  variables: Record<string, Source>;
  /** Root field of the operation's result. */
  result: string;
  /** Member of the result returned as the payload; default the whole result. */
  payload?: string;
  /** HTTP status on success. */
  status: number;
  /** `message` member of insight envelopes. */
  message?: string;
  summary: string;
  description?: string;
  tag: string;
  /** The credential the route needs. The site key (X-Svc-Site-Key) is not one: it names the site, as a required header parameter. */
  security: 'bearer' | 'apiKey' | 'none';
  /** Request body schema (from the service's zod contract); when set the body must be a JSON object. */
  body?: JsonSchema;
  /** Object schema of the query string (from the service's zod contract): each property documents the parameter of that name. */
  query?: JsonSchema;
  /** Payload schema, for the OpenAPI document. */
  response: JsonSchema;
  /** A native route's body in other media types than JSON (a file upload): media type -> schema, for the OpenAPI document. */
  bodyMediaTypes?: Record<string, JsonSchema>;
  /**
   * A query parameter whose value is the credential of a private view (a preview link's token):
   * a request carrying it needs none of `requiredHeaders`, is never answered from nor kept in the
   * response cache, and its answer, success or error, says `Cache-Control: private, no-store`
   * and `X-Robots-Tag: noindex` instead of the cache headers.
   */
  privateQuery?: string;
  /** Cache headers taken from result members (conditional GET, surrogate keys). */
  cache?: { etag: string; surrogateKeys: string; maxAge: string };
  /** Response headers taken from result members: header name -> member path. */
  headers?: Record<string, string>;
  /** Return the payload wrapped in an object under this member (`{budgets: [...]}`). */
  wrap?: string;
  /**
   * Served natively by this service's own HTTP route at the same path (the model gateway's
   * OpenAI wire format): the bridge passes the request through untouched over a keep-alive
   * pool, or, in one process, hands it to the service's handler with no socket at all. The
   * operation then names the GraphQL equivalent, for the OpenAPI document.
   */
  native?: { service: string };
  /**
   * A GET relayed as Server-Sent Events from this subgraph HTTP route (`{param}` filled from the
   * path), with the caller's credentials and `Last-Event-ID`; the operation documents the route.
   */
  events?: { service: string; path: string };
  /** Headers the request must carry (checked by the bridge: 400 naming the header). */
  requiredHeaders?: string[];
  /** Extra documented responses (status -> description) for OpenAPI. */
  errors?: Record<number, string>;
}

/** A route whose path template has been compiled for matching. */
export interface CompiledRoute extends RouteSpec {
  pattern: RegExp;
  /** The path up to its first parameter: a path without it cannot match. */
  prefix: string;
  params: string[];
  /** Variables read from query parameters the query schema types as integers (sent as numbers when they are whole numbers). */
  integers: string[];
}

export function compileRoute(route: RouteSpec): CompiledRoute {
  const params: string[] = [];
  const pattern = new RegExp(
    `^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}|\{(\w+)\}/g, (_m, a: string, b: string) => {
      params.push(a ?? b);
      return '([^/]+)';
    })}/?$`,
  );
  const queryTypes = (route.query?.properties ?? {}) as Record<string, { type?: unknown }>;
  const integers = Object.entries(route.variables).filter(([, source]) => source.startsWith('query.') && queryTypes[source.slice('query.'.length)]?.type === 'integer').map(([name]) => name);
  return { ...route, pattern, prefix: route.path.split('{')[0]!, params, integers };
}
