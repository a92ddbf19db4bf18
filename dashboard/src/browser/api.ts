/** Calls the platform through the dashboard's own origin (its server adds the session's token). */

export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly body: unknown) {
    super(message);
  }
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json', 'x-svc-dashboard': '1' };

async function parse(response: Response): Promise<any> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

export async function rest<T = any>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const response = await fetch(path, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers: { ...HEADERS, ...(init.headers ?? {}) }, body: init.body !== undefined ? JSON.stringify(init.body) : undefined, credentials: 'same-origin' });
  const body = await parse(response);
  if (!response.ok) throw new ApiError(response.status, (body && (body.message ?? body.detail)) || `HTTP ${response.status}`, body);
  return (body && typeof body === 'object' && 'data' in body ? body.data : body) as T;
}

export async function graphql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/graphql', { method: 'POST', headers: HEADERS, body: JSON.stringify({ query, variables }), credentials: 'same-origin' });
  const body = await parse(response);
  if (!response.ok || body?.errors?.length) throw new ApiError(response.status, body?.errors?.[0]?.message ?? `HTTP ${response.status}`, body);
  return body.data as T;
}

/** The signed-in person as the platform verified them (the dashboard server's GET /session). */
export interface Session {
  subject: string;
  roles: string[];
  /** `['*']` for every tenant. */
  tenants: string[];
  sites: string[];
  expiresAt: number;
  /** The tenant every call is made for (X-Svc-Tenant-Id, added by the dashboard server). */
  tenant: string | null;
  defaultCredentials: boolean;
}
