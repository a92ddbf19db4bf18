import { CALLER_HEADERS, checkText, parseClientJson, resultOfAnswer, SvcError, httpStatusOf, type FieldProblem, type GraphQLResult, type Logger, type RouterAnswer } from '@svc/kit';
import { accepts } from './accept.js';
import { ENVELOPES, styleOfPath, type BridgeError, type Rendered } from './envelopes/index.js';
import type { ResponseCache } from './response-cache.js';
import { partialProblems } from './partial.js';
import { compileRoute, type CompiledRoute, type RouteSpec, type Source } from './route-spec.js';
import { envelopeHalves, rootFieldText, selectsOneRootField, spliced, type EnvelopeHalves } from './splice.js';

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body?: Buffer;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  /** A streamed body (Server-Sent Events); `abort` stops the upstream when the client leaves. */
  stream?: { chunks: AsyncIterable<Uint8Array>; abort(): void };
}

/** Opens a streaming call to a subgraph route with the caller's forwarded headers. */
export type OpenStream = (url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal: AbortSignal }) => Promise<Response>;

export type { GraphQLResult, RouterAnswer };

/** Sends one operation to the router with the caller's forwarded headers; its answer unparsed. */
export type ExecuteOperation = (
  request: { query: string; operationName: string; variables: Record<string, unknown> },
  headers: Record<string, string>,
) => Promise<RouterAnswer>;

export interface BridgeOptions {
  routes: readonly RouteSpec[];
  operations: ReadonlyMap<string, string>;
  execute: ExecuteOperation;
  log: Logger;
  /** Base of problem `type` URLs; default `http://<Host>`. */
  publicBaseUrl?: string;
  /** Base URLs of subgraphs that serve streamed routes, by service name. */
  streamTargets?: Record<string, string>;
  openStream?: OpenStream;
  /** Keeps responses of routes with `cache` (response-cache.ts); none: every request calls the router. */
  responseCache?: ResponseCache;
}

/** Sent on to the router: the caller's headers, and the client chain it turns into an address. */
const FORWARD = [...CALLER_HEADERS, 'x-forwarded-for'];

/** Headers that tell callers' answers apart, for the response cache: what is forwarded but the request's id and the client chain, and what is accepted (type and language). */
const VARYING = [...CALLER_HEADERS.filter((name) => name !== 'x-request-id'), 'accept', 'accept-language'];

/** A 304 for a response: its headers without the body's type. */
function notModified(response: RestResponse): RestResponse {
  const { 'content-type': _type, ...headers } = response.headers;
  return { status: 304, headers };
}

function fromSvcError(error: SvcError): BridgeError {
  const ext = error.extensions as Record<string, unknown>;
  return {
    code: error.code,
    status: error.status,
    message: error.message,
    slug: ext.slug as string | undefined,
    title: ext.title as string | undefined,
    errors: ext.errors as FieldProblem[] | undefined,
    retryAfter: ext.retryAfter as number | undefined,
    details: ext.details as Record<string, unknown> | undefined,
  };
}

/** Weak comparison (RFC 9110 13.1.2): W/"x" and "x" match; `*` matches any. */
function etagMatches(header: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}

/** graphql-js names coercion failures `... at "input.title"`: turn that into a pointer. */
function coercionProblem(message: string): FieldProblem[] | undefined {
  const at = /got invalid value .* at "[^."]+\.([^"]+)"/.exec(message) ?? /Variable "\$(\w+)"/.exec(message);
  return at ? [{ pointer: `/${at[1]!.replace(/\./g, '/')}`, detail: message }] : undefined;
}

export function fromGraphQLError(error: NonNullable<GraphQLResult['errors']>[number], log: Logger): BridgeError {
  const ext = error.extensions ?? {};
  const code = typeof ext.code === 'string' ? ext.code : 'INTERNAL_SERVER_ERROR';
  if (code === 'BAD_USER_INPUT' && ext.status === undefined) {
    return { code, status: 400, message: error.message, errors: coercionProblem(error.message) };
  }
  if (code === 'GRAPHQL_VALIDATION_FAILED' || code === 'GRAPHQL_PARSE_FAILED') {
    log.error({ error }, 'route operation does not validate against the graph');
    return { code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'Internal server error' };
  }
  if (code === 'DOWNSTREAM_SERVICE_ERROR' || /ECONNREFUSED|fetch failed|connect/i.test(error.message)) {
    if (!('status' in ext)) return { code: 'UNAVAILABLE', status: 503, message: 'A backing service is unavailable; retry shortly', retryAfter: 5 };
  }
  // The router answering for a subgraph that did not answer (its message names it).
  if (code === 'SUBGRAPH_UNAVAILABLE') return { code: 'UNAVAILABLE', status: 503, message: error.message, slug: 'subgraph-unavailable', retryAfter: 5 };
  return {
    code,
    status: httpStatusOf(code, ext.status),
    message: code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : error.message,
    slug: typeof ext.slug === 'string' ? ext.slug : undefined,
    title: typeof ext.title === 'string' ? ext.title : undefined,
    errors: Array.isArray(ext.errors) ? (ext.errors as FieldProblem[]) : undefined,
    retryAfter: typeof ext.retryAfter === 'number' ? ext.retryAfter : undefined,
    details: typeof ext.details === 'object' && ext.details ? (ext.details as Record<string, unknown>) : undefined,
  };
}

function pick(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), value);
}

function respond(rendered: Rendered, extra: Record<string, string> = {}): RestResponse {
  return { status: rendered.status, headers: { 'content-type': rendered.contentType, ...extra }, body: JSON.stringify(rendered.body) };
}

/** The bridge's core: a pure mapping from an HTTP-shaped request to an HTTP-shaped response. */
export function createBridge(options: BridgeOptions) {
  const routes: CompiledRoute[] = options.routes.map(compileRoute);
  /** Only routes whose literal prefix the path has are tried against their pattern. */
  const matching = (path: string) => routes.filter((r) => path.startsWith(r.prefix) && r.pattern.test(path));
  for (const route of routes) {
    if (!options.operations.has(route.operation)) throw new Error(`Route ${route.method} ${route.path} names unknown operation ${route.operation}`);
  }
  /**
   * Routes whose operation selects one root field and whose answer is that field in the envelope,
   * as it is (no payload path, wrapping, headers, cache metadata or stream): their successful
   * answers are spliced (splice.ts).
   */
  const halves = new Map<CompiledRoute, { halves: EnvelopeHalves; status: number; contentType: string }>();
  for (const route of routes) {
    if (route.payload || route.wrap || route.headers || route.cache || route.events) continue;
    if (!selectsOneRootField(options.operations.get(route.operation)!, route.operation, route.result)) continue;
    const rendered = ENVELOPES[route.style].success(undefined, route);
    const split = envelopeHalves((payload) => ENVELOPES[route.style].success(payload, route).body);
    if (split) halves.set(route, { halves: split, status: rendered.status, contentType: rendered.contentType });
  }

  function baseUrl(req: RestRequest): string {
    return options.publicBaseUrl?.replace(/\/$/, '') ?? `http://${req.headers.host ?? 'localhost'}`;
  }

  function fail(req: RestRequest, style: CompiledRoute['style'], error: BridgeError): RestResponse {
    const rendered = ENVELOPES[style].error(error, { instance: req.path, baseUrl: baseUrl(req) });
    const headers: Record<string, string> = {};
    if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfter)));
    if (error.status === 401) headers['www-authenticate'] = 'Bearer';
    return respond(rendered, headers);
  }

  /** Renders an error raised before routing (body too large, ...), in the shape of the path's service. */
  function errorResponse(req: RestRequest, error: SvcError): RestResponse {
    const route = routes.find((r) => r.pattern.test(req.path));
    return fail(req, route?.style ?? styleOfPath(req.path), fromSvcError(error));
  }

  function variablesOf(route: CompiledRoute, req: RestRequest, params: Record<string, string>, body: unknown): Record<string, unknown> {
    const variables: Record<string, unknown> = {};
    for (const [name, source] of Object.entries(route.variables) as [string, Source][]) {
      const [kind, ...rest] = source.split('.');
      const key = rest.join('.');
      if (kind === 'path') variables[name] = params[key];
      else if (kind === 'query') {
        const value = req.query.get(key) ?? undefined;
        // A whole number is sent as one; anything else goes as it is, so GraphQL names the bad value.
        variables[name] = value !== undefined && route.integers.includes(name) && /^-?\d{1,9}$/.test(value) ? Number(value) : value;
      }
      else if (kind === 'header') variables[name] = req.headers[key.toLowerCase()];
      else variables[name] = key ? pick(body, key) : body;
    }
    return variables;
  }

  /** Path parameters, query values and forwarded headers obey the text rule (the body does in parseBody). */
  function checkEdgeText(req: RestRequest, params: Record<string, string>): void {
    for (const [name, value] of Object.entries(params)) checkText(value, `/${name}`, `Path parameter ${name}`);
    for (const [name, value] of req.query) checkText(value, `/${name}`, `Query parameter ${name}`);
    for (const name of FORWARD) {
      const value = req.headers[name];
      if (value) checkText(value, `/${name}`, `Header ${name}`);
    }
  }

  function parseBody(req: RestRequest): unknown {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!req.body?.length) throw new SvcError('BAD_USER_INPUT', 'Request body is required (a JSON object)', { slug: 'malformed-request' });
    if (type !== 'application/json' && !type.endsWith('+json')) {
      throw new SvcError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json; got ${JSON.stringify(type || '(none)')}`, { slug: 'unsupported-media-type' });
    }
    const body = parseClientJson(req.body.toString('utf8'));
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new SvcError('BAD_USER_INPUT', 'Request body must be a JSON object', { slug: 'malformed-request' });
    }
    return body;
  }

  /** A private view's answer (see RouteSpec.privateQuery), success or error, is for its requester only. */
  const PRIVATE_HEADERS = { 'cache-control': 'private, no-store', 'x-robots-tag': 'noindex' };
  const isPrivateView = (route: CompiledRoute, req: RestRequest) => route.privateQuery !== undefined && req.query.has(route.privateQuery);

  async function handle(req: RestRequest): Promise<RestResponse> {
    const candidates = matching(req.path);
    const response = await answer(req, candidates);
    const isPrivate = req.query.size > 0 && candidates.some((r) => isPrivateView(r, req));
    return isPrivate ? { ...response, headers: { ...response.headers, ...PRIVATE_HEADERS } } : response;
  }

  async function answer(req: RestRequest, candidates: CompiledRoute[]): Promise<RestResponse> {
    if (candidates.length === 0) {
      return fail(req, styleOfPath(req.path), { code: 'NOT_FOUND', status: 404, message: `No endpoint at ${req.method} ${req.path}`, slug: 'route-not-found' });
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      const allow = [...new Set(candidates.map((r) => r.method))].join(', ');
      const response = fail(req, candidates[0]!.style, { code: 'METHOD_NOT_ALLOWED', status: 405, message: `${req.method} is not allowed on ${req.path}; allowed: ${allow}` });
      return { ...response, headers: { ...response.headers, allow } };
    }
    try {
      const offered = route.events ? ['text/event-stream', 'application/json'] : route.style === 'cms' ? ['application/json', 'application/problem+json'] : ['application/json'];
      if (!accepts(req.headers.accept, offered)) {
        throw new SvcError('NOT_ACCEPTABLE', `Cannot produce ${JSON.stringify(req.headers.accept)}; this endpoint serves application/json`, { slug: 'not-acceptable' });
      }
      const isPrivate = isPrivateView(route, req);
      for (const name of isPrivate ? [] : (route.requiredHeaders ?? [])) {
        if (!req.headers[name.toLowerCase()]?.trim()) throw new SvcError('BAD_USER_INPUT', `The ${name} header is required`, { slug: 'missing-header' });
      }
      const match = route.pattern.exec(req.path)!;
      const params: Record<string, string> = {};
      route.params.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(match[i + 1]!);
        } catch {
          throw new SvcError('BAD_USER_INPUT', `Path parameter ${name} is not valid URL encoding: ${JSON.stringify(match[i + 1])}`);
        }
      });
      checkEdgeText(req, params);
      // A request with a credential may see what others must not: never kept, never served from memory.
      const cacheKey = route.cache && options.responseCache && !req.headers.authorization && !isPrivate ? cacheKeyOf(route, req) : undefined;
      if (cacheKey) {
        const hit = options.responseCache!.get(cacheKey);
        if (hit) return conditional(req, hit.response, hit.etag);
      }
      const since = options.responseCache?.generation() ?? 0;
      const body = route.body ? parseBody(req) : undefined;
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      for (const name of FORWARD) {
        const value = req.headers[name];
        if (value) headers[name] = value;
      }
      let answer: RouterAnswer;
      let result: GraphQLResult;
      try {
        answer = await options.execute({ query: options.operations.get(route.operation)!, operationName: route.operation, variables: variablesOf(route, req, params, body) }, headers);
        const splice = halves.get(route);
        // A router in this process answers with an object: nothing to splice, and nothing to parse.
        const field = splice && 'body' in answer && rootFieldText(answer.body, route.result);
        if (splice && field) return { status: splice.status, headers: { 'content-type': splice.contentType }, body: spliced(splice.halves, field) };
        result = resultOfAnswer(answer);
      } catch (error) {
        options.log.error({ err: error, operation: route.operation }, 'router call failed');
        throw new SvcError('UNAVAILABLE', 'The GraphQL router is unavailable; retry shortly', { retryAfter: 5 });
      }
      if (result.errors?.length) {
        // Data with errors only inside it is a partial answer (partial.ts); anything else fails with the first error.
        const problems = route.events ? undefined : partialProblems(route, result, ENVELOPES[route.style].payloadPointer, (error) => fromGraphQLError(error, options.log));
        const partial = problems && partialResponse(route, result.data![route.result], problems);
        return partial ?? fail(req, route.style, fromGraphQLError(result.errors[0]!, options.log));
      }
      // An event route's operation checks the caller and the resource; then the stream is relayed.
      if (route.events) return await relayEvents(req, route, headers, params);
      const value = result.data?.[route.result];
      if (!route.cache || isPrivate || !value || typeof value !== 'object') return success(route, value);
      const meta = cacheMeta(route, value);
      const response = success(route, value, meta.headers);
      if (cacheKey) options.responseCache!.put(cacheKey, since, response, meta);
      return conditional(req, response, meta.etag);
    } catch (error) {
      if (error instanceof SvcError) return fail(req, route.style, fromSvcError(error));
      throw error;
    }
  }

  function relayEvents(req: RestRequest, route: CompiledRoute, headers: Record<string, string>, params: Record<string, string>): Promise<RestResponse> {
    // EventSource cannot set headers on a first connection, so `?lastEventId=` says the same.
    const lastEventId = req.headers['last-event-id'] ?? req.query.get('lastEventId') ?? undefined;
    const path = route.events!.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
    return relay(req, route, route.events!.service, path, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
  }

  /** Opens a subgraph's event stream and relays it; errors before the first byte come as a GraphQL result. */
  async function relay(req: RestRequest, route: CompiledRoute, service: string, path: string, call: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<RestResponse> {
    const base = options.streamTargets?.[service];
    if (!base || !options.openStream) throw new SvcError('UNAVAILABLE', `Streaming is not configured for ${service}`);
    const controller = new AbortController();
    let response: Response;
    try {
      response = await options.openStream(`${base}${path}`, { ...call, signal: controller.signal });
    } catch (error) {
      options.log.error({ err: error, service }, 'stream call failed');
      throw new SvcError('UNAVAILABLE', `The ${service} service is unavailable; retry shortly`, { retryAfter: 5 });
    }
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
      const result = (await response.json().catch(() => ({ errors: [{ message: 'Invalid response from the streaming route' }] }))) as GraphQLResult;
      return fail(req, route.style, fromGraphQLError(result.errors?.[0] ?? { message: 'Invalid response from the streaming route' }, options.log));
    }
    const relayed: Record<string, string> = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
    for (const name of ['x-svc-cache', 'x-svc-model']) {
      const value = response.headers.get(name);
      if (value) relayed[name] = value;
    }
    return { status: 200, headers: relayed, stream: { chunks: response.body as unknown as AsyncIterable<Uint8Array>, abort: () => controller.abort() } };
  }

  /** The cache headers of a cacheable route's result (conditional GET, surrogate keys, shared-cache lifetime). */
  function cacheMeta(route: CompiledRoute, value: object): { headers: Record<string, string>; etag?: string; tags: string[]; maxAgeSeconds: number } {
    const cache = route.cache!;
    const etag = pick(value, cache.etag);
    const keys = pick(value, cache.surrogateKeys);
    const tags = Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
    const maxAgeSeconds = Number(pick(value, cache.maxAge) ?? 0);
    const headers: Record<string, string> = {};
    if (typeof etag === 'string') headers.etag = etag;
    if (tags.length) {
      headers.xkey = tags.join(' ');
      headers['surrogate-key'] = tags.join(' ');
      headers['cache-tag'] = tags.join(',');
    }
    headers['cache-control'] = `public, max-age=0, s-maxage=${maxAgeSeconds}, must-revalidate`;
    headers.vary = 'Accept, Accept-Language, X-Svc-Site-Key';
    return { headers, etag: typeof etag === 'string' ? etag : undefined, tags, maxAgeSeconds };
  }

  /** The response, or a 304 when the request's If-None-Match names its ETag. */
  function conditional(req: RestRequest, response: RestResponse, etag: string | undefined): RestResponse {
    const condition = req.headers['if-none-match'];
    return etag && condition && etagMatches(condition, etag) ? notModified(response) : response;
  }

  function cacheKeyOf(route: CompiledRoute, req: RestRequest): string {
    return [`${route.method} ${req.path}?${req.query.toString()}`, ...VARYING.map((name) => req.headers[name] ?? '')].join('\n');
  }

  /** The route's response headers taken from the result. */
  function resultHeaders(route: CompiledRoute, value: unknown): Record<string, string> {
    const extra: Record<string, string> = {};
    for (const [name, path] of Object.entries(route.headers ?? {})) {
      const header = pick(value, path);
      if (header !== undefined && header !== null) extra[name] = String(header);
    }
    return extra;
  }

  const payloadOf = (route: CompiledRoute, value: unknown) => {
    const payload = pick(value, route.payload);
    return route.wrap ? { [route.wrap]: payload } : payload;
  };

  function success(route: CompiledRoute, value: unknown, cacheHeaders: Record<string, string> = {}): RestResponse {
    return respond(ENVELOPES[route.style].success(payloadOf(route, value), route), { ...resultHeaders(route, value), ...cacheHeaders });
  }

  /** A partial answer in the route's success envelope with `errors` (partial.ts), never cached; undefined when the envelope has no room for it. */
  function partialResponse(route: CompiledRoute, value: unknown, problems: ReturnType<typeof partialProblems> & object): RestResponse | undefined {
    const noStore = { 'cache-control': 'no-store' };
    if (!problems.length) return respond(ENVELOPES[route.style].success(payloadOf(route, value), route), { ...resultHeaders(route, value), ...noStore });
    const rendered = ENVELOPES[route.style].partial(payloadOf(route, value), problems, route);
    return rendered && respond(rendered, { ...resultHeaders(route, value), ...noStore, 'x-svc-partial': String(problems.length) });
  }

  return { handle, errorResponse, routes };
}

export type Bridge = ReturnType<typeof createBridge>;
