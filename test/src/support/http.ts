/** A small fetch wrapper for tests: JSON in, status + headers + parsed body out. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string } = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Posts a GraphQL operation (with the content type Apollo's CSRF protection requires). */
export async function gql<T = any>(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return call<{ data?: T; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] }>(url, { json: { query, variables }, headers });
}

/** A GraphQL answer's body with errors in their platform shape (code, slug, errors[] in extensions). */
export interface GraphBody {
  data?: Record<string, any>;
  errors?: { message: string; extensions: Record<string, any> }[];
}

/**
 * Operations against `url` with a bearer token (`token()` read at each call, so a suite can set
 * it in beforeAll): `send` answers the body as it came, `ok` asserts it has no errors and answers
 * its data.
 */
export function graphAs(url: () => string, token: () => string) {
  const send = async (query: string, variables: Record<string, unknown>, as = token()): Promise<GraphBody> =>
    (await gql(url(), query, variables, { authorization: `Bearer ${as}` })).body as GraphBody;
  const ok = async (query: string, variables: Record<string, unknown>, as = token()): Promise<Record<string, any>> => {
    const body = await send(query, variables, as);
    if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data!;
  };
  return { send, ok };
}
