/**
 * How the router calls a subgraph. Two things on top of `fetch`:
 *
 * - A subgraph answers 400 when it cannot coerce a variable (a scalar the router passes through
 *   unchecked, such as DateTimeISO); its body holds GraphQL errors with their codes. The gateway
 *   would turn any non-2xx into an internal error, so such an answer is handed on as a 200 and
 *   the client sees the subgraph's BAD_USER_INPUT.
 * - Identical queries in flight at once are sent once and their answer shared: the same URL,
 *   document, variables and headers (so the same caller, tenant, site and client address; never
 *   across callers; a request's own id aside). Under load many clients ask the same thing (the dashboard's action
 *   cards, a page's delivery query) and the subgraph then works once. Mutations are never shared.
 */
import { CLIENT_IP_SIGNATURE_HEADER } from '@svc/kit';

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** Whether a subgraph request body (`{"query": …}`) is a mutation (or cannot be read, which is treated as one: never shared). */
function isMutation(body: string): boolean {
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

export function subgraphFetcher(fetchImpl: Fetch = fetch): Fetch {
  const direct: Fetch = async (url, init) => {
    const response = await fetchImpl(url, init);
    if (response.status !== 400 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    return new Response(await response.text(), { status: 200, headers: response.headers });
  };
  const inFlight = new Map<string, Promise<Answer>>();
  return async (url, init) => {
    const body = init.body;
    if (typeof body !== 'string' || (init.method ?? 'GET').toUpperCase() !== 'POST' || isMutation(body)) return direct(url, init);
    const headers = [...new Headers(init.headers)].filter(([k]) => !UNSHARED_HEADERS.has(k)).map(([k, v]) => `${k}:${v}`).sort().join('\n');
    const key = `${url}\n${headers}\n${body}`;
    let shared = inFlight.get(key);
    if (!shared) {
      shared = direct(url, init)
        // The body is read as text (decoded): its encoding and length no longer describe it.
        .then(async (response) => ({ status: response.status, headers: [...response.headers].filter(([k]) => k !== 'content-encoding' && k !== 'content-length'), body: await response.text() }))
        .finally(() => inFlight.delete(key));
      inFlight.set(key, shared);
    }
    const answer = await shared;
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}
