/**
 * How the gateway reaches one subgraph: a `GraphQLDataSource` (what `buildService` may return)
 * doing what `RemoteGraphQLDataSource` does for this router, without its per-fetch objects. For
 * every subgraph fetch that class builds a node-fetch `Headers` and a node-fetch `Request` (for
 * error reports only; it parses the URL each time), then copies the headers into a plain object
 * for the fetcher: about 5 % of the router's CPU for 50 actions with their targets. Here the
 * headers go straight into one object and the URL is never parsed.
 *
 * The same request body (`{"query":…,"variables":…,"operationName":…}`, in that order, which
 * subgraph-fetch.ts reads the operation's kind from), the same forwarded headers, the same errors
 * for a refused answer (`<status>: <reason>` with the response in `extensions`, UNAUTHENTICATED
 * for 401, FORBIDDEN for 403), and the same restriction of the operation's cache policy by the
 * subgraph's Cache-Control. Automatic persisted queries to subgraphs stay off, as they were.
 *
 * Unlike RemoteGraphQLDataSource, a subgraph that does not answer (no connection, past its
 * timeout, 5xx, or no GraphQL result) does not fail the fetch: the data source answers for it
 * with every field of the fetch null and a SUBGRAPH_UNAVAILABLE error at each
 * (subgraph-failure.ts), so the other subgraphs' data stands. Errors of an entity fetch are
 * recorded for the router to put at the right place in the answer (entity-error-paths.ts).
 */
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { CLIENT_IP_HEADER, CLIENT_IP_SIGNATURE_HEADER, FORWARDED_HEADERS, isJsonObject } from '@svc/kit';
import { GraphQLError } from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { recordEntityFetchErrors } from './entity-error-paths.js';
import { unavailableAnswer, type FailureKind } from './subgraph-failure.js';
import { SubgraphTimeoutError, type SubgraphRequest, type SubgraphResponse } from './subgraph-fetch.js';

/** What the router's context holds for its subgraph calls. */
export interface ForwardingContext {
  headers?: IncomingHttpHeaders;
  clientIp?: string;
  clientIpSignature?: string;
}

type Fetch = (url: string, init: SubgraphRequest & { headers: Record<string, string>; body: string }) => Promise<SubgraphResponse>;

async function bodyOf(response: SubgraphResponse): Promise<unknown> {
  const type = response.headers.get('content-type');
  return type && (type.startsWith('application/json') || type.startsWith('application/graphql-response+json')) ? response.json() : response.text();
}

/** The error RemoteGraphQLDataSource raises for an answer that is not 2xx. */
async function errorFrom(response: SubgraphResponse): Promise<GraphQLError> {
  const extensions: Record<string, unknown> = { response: { url: response.url, status: response.status, statusText: response.statusText, body: await bodyOf(response) } };
  if (response.status === 401) extensions.code = 'UNAUTHENTICATED';
  else if (response.status === 403) extensions.code = 'FORBIDDEN';
  return new GraphQLError(`${response.status}: ${response.statusText}`, { extensions });
}

/** The subgraph's Cache-Control as a cache hint (RemoteGraphQLDataSource's reading of it). */
function hintOf(header: string | null): { maxAge: number; scope?: 'PRIVATE' | 'PUBLIC' } {
  const directives = new Map<string, string | true>();
  for (const part of (header ?? '').trim().split(/\s*,\s*/)) {
    if (!part) continue;
    const [name, value] = part.split(/\s*=\s*/, 2);
    directives.set(name!, value === undefined ? true : value.replace(/^"|"$/g, ''));
  }
  const maxAge = directives.get('max-age');
  return {
    maxAge: typeof maxAge === 'string' && /^[0-9]+$/.test(maxAge) ? Number(maxAge) : 0,
    ...(directives.get('private') === true ? { scope: 'PRIVATE' as const } : {}),
    ...(directives.get('public') === true ? { scope: 'PUBLIC' as const } : {}),
  };
}

/** Told of every subgraph that did not answer (for the router's log), with why. */
export type FailureListener = (service: string, failure: FailureKind, cause?: unknown) => void;

export class SubgraphDataSource<TContext extends ForwardingContext> implements GraphQLDataSource<TContext> {
  constructor(
    private readonly url: string,
    private readonly fetch: Fetch,
    /** The subgraph's name, which SUBGRAPH_UNAVAILABLE errors carry. */
    private readonly name = 'subgraph',
    private readonly onFailure?: FailureListener,
  ) {}

  private unavailable(failure: FailureKind, request: { query: string; variables?: Record<string, unknown> | undefined }, cursorPath: readonly (string | number)[] | undefined, cause?: unknown): Record<string, unknown> {
    this.onFailure?.(this.name, failure, cause);
    const answer = unavailableAnswer(this.name, failure, request);
    const representations = request.variables?.representations;
    if (Array.isArray(representations)) recordEntityFetchErrors(cursorPath, representations, answer.errors);
    return answer;
  }

  async process(options: GraphQLDataSourceProcessOptions<TContext>): Promise<Record<string, unknown>> {
    const { request } = options;
    const headers: Record<string, string> = {};
    if (request.http?.headers) for (const [name, value] of request.http.headers) headers[name.toLowerCase()] = value;
    headers['content-type'] = 'application/json';
    const context = options.context as ForwardingContext;
    if (context.headers) {
      for (const name of FORWARDED_HEADERS) {
        const value = context.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      if (context.clientIp) {
        headers[CLIENT_IP_HEADER] = context.clientIp;
        if (context.clientIpSignature) headers[CLIENT_IP_SIGNATURE_HEADER] = context.clientIpSignature;
      }
    }
    if (!request.query) throw new Error('Missing query');
    const { query, http: _http, ...rest } = request;
    const sent = { query, variables: request.variables };
    const cursorPath = 'pathInIncomingRequest' in options ? options.pathInIncomingRequest : undefined;
    let response: SubgraphResponse;
    try {
      response = await this.fetch(this.url, { method: 'POST', headers, body: JSON.stringify({ query, ...rest }) });
    } catch (error) {
      return this.unavailable(error instanceof SubgraphTimeoutError ? { kind: 'timeout', timeoutMs: error.timeoutMs } : { kind: 'unreachable' }, sent, cursorPath, error);
    }
    if (response.status >= 500) return this.unavailable({ kind: 'status', status: response.status }, sent, cursorPath);
    if (!response.ok) throw await errorFrom(response);
    let body: unknown;
    try {
      body = await bodyOf(response);
    } catch (error) {
      return this.unavailable({ kind: 'invalid' }, sent, cursorPath, error);
    }
    if (!isJsonObject(body) || (!('data' in body) && !('errors' in body))) return this.unavailable({ kind: 'invalid' }, sent, cursorPath);
    const representations = request.variables?.representations;
    if (Array.isArray(representations) && Array.isArray(body.errors) && body.errors.length) recordEntityFetchErrors(cursorPath, representations, body.errors as object[]);
    // A client's operation (not a health check): its cache policy is as restricted as each answer's.
    if ('incomingRequestContext' in options) {
      const policy = options.incomingRequestContext.overallCachePolicy as unknown;
      if (policy && typeof policy === 'object' && 'restrict' in policy) (policy as { restrict(hint: object): void }).restrict(hintOf(response.headers.get('cache-control')));
    }
    return { ...body, http: response };
  }
}
