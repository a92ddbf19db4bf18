/**
 * How the router calls a subgraph: the fetch of every SubgraphDataSource (data-source.ts). Three things
 * on top of a plain `fetch`:
 *
 * - The request goes over a keep-alive undici pool per subgraph with `request()`: the body is a
 *   string of known length, written at once (global `fetch` streams it chunked, several writes a
 *   request) and nothing asks for compression on loopback. What the gateway gets back is a small
 *   response object with what the data source reads (status, headers, text, json).
 * - A subgraph answers 400 when it cannot coerce a variable (a scalar the router passes through
 *   unchecked, such as DateTimeISO); its body holds GraphQL errors with their codes. The gateway
 *   would turn any non-2xx into an internal error, so such an answer is handed on as a 200 and
 *   the client sees the subgraph's BAD_USER_INPUT.
 * - Identical queries in flight at once are sent once and their answer shared: the same URL,
 *   document, variables and headers (so the same caller, tenant, site and client address; never
 *   across callers; a request's own id aside). Under load many clients ask the same thing (the
 *   dashboard's action cards, a page's delivery query) and the subgraph then works once.
 *   Mutations are never shared.
 * - Every call has a timeout (SubgraphTimeouts: one for queries, a longer one for mutations);
 *   past it the call is aborted and the data source answers SUBGRAPH_UNAVAILABLE for the
 *   subgraph (subgraph-failure.ts), so a frozen subgraph holds no answer longer than that.
 */
import { STATUS_CODES } from 'node:http';
import { Pool } from 'undici';
import { CLIENT_IP_SIGNATURE_HEADER, type InProcessGraphql } from '@svc/kit';

/** What the data source sends: method, headers as a plain object, the JSON body. */
export interface SubgraphRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A subgraph's answer, read whole: its body as text (over HTTP), or the object it parses to (a subgraph in this process). */
export type SubgraphAnswer = {
  status: number;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
} & ({ body: string; result?: undefined } | { body?: undefined; result: Record<string, unknown> });

/** Sends one request to a subgraph and reads its whole answer; `signal` gives up on it (a subgraph in this process cannot be stopped, only no longer waited for). */
export type SubgraphTransport = (url: string, init: SubgraphRequest, signal?: AbortSignal) => Promise<SubgraphAnswer>;

/** How long the router waits for a subgraph's whole answer, by the operation's kind. */
export interface SubgraphTimeouts {
  queryMs: number;
  mutationMs: number;
}

/** A subgraph that did not answer within its timeout (the data source answers SUBGRAPH_UNAVAILABLE for it). */
export class SubgraphTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'SubgraphTimeoutError';
  }
}

/** What the data source reads of a response (data-source.ts: status, reason, headers, body). */
export interface SubgraphResponse {
  ok: boolean;
  status: number;
  statusText: string;
  url: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** Keep-alive undici pools, one per subgraph origin. */
export function undiciTransport(): { send: SubgraphTransport; close(): Promise<void> } {
  const pools = new Map<string, Pool>();
  return {
    async send(url, init, signal) {
      const target = new URL(url);
      let pool = pools.get(target.origin);
      if (!pool) pools.set(target.origin, (pool = new Pool(target.origin, { connections: 128, keepAliveTimeout: 30_000 })));
      const answer = await pool.request({
        path: `${target.pathname}${target.search}`,
        method: (init.method ?? 'POST').toUpperCase() as 'POST',
        headers: init.headers,
        body: typeof init.body === 'string' ? init.body : undefined,
        signal,
      });
      const body = await answer.body.text();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      return { status: answer.statusCode, headers, body };
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}

/** A subgraph in this process (`svc all`), called without a socket: the same request, its answer as an object. */
export function inProcessTransport(graphql: InProcessGraphql): SubgraphTransport {
  return (_url, init) => graphql({ method: (init.method ?? 'POST').toUpperCase(), headers: init.headers ?? {}, body: typeof init.body === 'string' ? init.body : '' });
}

const QUERY_PREFIX = '{"query":"';

/**
 * Whether a subgraph request body is a mutation (or cannot be read, which is treated as one:
 * never shared). The gateway writes `{"query":"…` first, so the operation's kind is read from
 * the body's start without parsing it; any other body is parsed.
 */
function isMutation(body: string): boolean {
  if (body.startsWith(QUERY_PREFIX)) {
    const rest = body.slice(QUERY_PREFIX.length, QUERY_PREFIX.length + 12);
    if (rest.startsWith('{') || rest.startsWith('query')) return false;
    if (rest.startsWith('mutation')) return true;
  }
  try {
    const query = (JSON.parse(body) as { query?: unknown }).query;
    return typeof query !== 'string' || /^\s*mutation\b/.test(query);
  } catch {
    return true;
  }
}

/**
 * Headers that differ between requests without changing the answer: each request's own id (the
 * subgraph's log then names the first request's) and the client address's signature, which
 * changes every second (the address itself is part of the key).
 */
const UNSHARED_HEADERS = new Set(['x-request-id', CLIENT_IP_SIGNATURE_HEADER]);

/**
 * The response the gateway reads. An answer given as an object goes to the gateway as it is, which
 * then merges other subgraphs' data into it: so only an answer with one reader is handed over;
 * one shared by several requests is read by each from one serialisation, made before any of them
 * got it.
 */
function responseOf(url: string, answer: SubgraphAnswer, shared?: { text?: string }): SubgraphResponse {
  // A 400 with GraphQL errors in JSON is the subgraph refusing a variable: passed on as a 200.
  const status = answer.status === 400 && (answer.headers['content-type'] ?? '').includes('json') ? 200 : answer.status;
  let text = answer.body;
  if (text === undefined && shared) text = shared.text ??= JSON.stringify(answer.result);
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: STATUS_CODES[status] ?? '',
    url,
    headers: { get: (name) => answer.headers[name.toLowerCase()] ?? null },
    text: async () => text ?? JSON.stringify(answer.result),
    json: async () => (text === undefined ? answer.result : JSON.parse(text)) as unknown,
  };
}

/**
 * `send` given up after `timeoutMs`: the request is aborted (over HTTP the connection is closed)
 * and the promise rejects with SubgraphTimeoutError, whatever the transport does with the abort.
 */
function sendWithin(send: SubgraphTransport, url: string, init: SubgraphRequest, timeoutMs: number): Promise<SubgraphAnswer> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new SubgraphTimeoutError(timeoutMs));
      controller.abort();
    }, timeoutMs);
  });
  return Promise.race([send(url, init, controller.signal), timedOut]).finally(() => clearTimeout(timer));
}

/** Default subgraph timeouts: 30 s for queries (what Apollo Router waits by default), 120 s for mutations (a model's answer may take a minute). */
export const DEFAULT_SUBGRAPH_TIMEOUTS: SubgraphTimeouts = { queryMs: 30_000, mutationMs: 120_000 };

/** The fetcher over `send` (undici pools, or a subgraph in this process), waiting at most `timeouts` for an answer. */
export function subgraphFetcher(send: SubgraphTransport, timeouts: SubgraphTimeouts = DEFAULT_SUBGRAPH_TIMEOUTS): (url: string, init: SubgraphRequest) => Promise<SubgraphResponse> {
  const inFlight = new Map<string, { answer: Promise<SubgraphAnswer>; readers: number; text?: string }>();
  return async (url, init) => {
    const body = init.body;
    if (typeof body !== 'string' || (init.method ?? 'GET').toUpperCase() !== 'POST' || isMutation(body)) return responseOf(url, await sendWithin(send, url, init, timeouts.mutationMs));
    const headers = Object.entries(init.headers ?? {}).filter(([k]) => !UNSHARED_HEADERS.has(k.toLowerCase())).map(([k, v]) => `${k.toLowerCase()}:${v}`).sort().join('\n');
    const key = `${url}\n${headers}\n${body}`;
    let call = inFlight.get(key);
    if (call) call.readers++;
    else {
      call = { answer: sendWithin(send, url, init, timeouts.queryMs).finally(() => inFlight.delete(key)), readers: 1 };
      inFlight.set(key, call);
    }
    const answer = await call.answer;
    // Every reader is known once the answer is in: the entry left the map before any of them resumed.
    return responseOf(url, answer, call.readers > 1 ? call : undefined);
  };
}
