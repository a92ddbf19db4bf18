import type { IncomingMessage } from 'node:http';
import { readCookie, SESSION_COOKIE, TENANT_COOKIE } from './cookies.js';

/**
 * Who the session's token belongs to, as the platform says after verifying it: the dashboard
 * holds no signing key, so it never shows the claims of a cookie nobody verified (an unsigned or
 * forged token gets "Not signed in", the same as none).
 */
export interface Viewer {
  subject: string;
  roles: string[];
  /** `['*']` for every tenant. */
  tenants: string[];
  sites: string[];
}

export interface SessionView extends Viewer {
  expiresAt: number;
  /** The tenant the dashboard sends as X-Svc-Tenant-Id (null when the token grants none). */
  tenant: string | null;
}

/** The dashboard's GraphQL read of the signed-in person (recorded in schema/operations/dashboard.graphql). */
export const VIEWER_QUERY = `query DashboardViewer {
  viewer { subject roles tenants sites }
}`;

/** Tenant ids the dashboard accepts from a person (the platform decides whether the token grants it). */
export const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The demo shop's tenant: offered first to tokens for every tenant. */
export const DEMO_TENANT = 'demo';

export type ViewerAnswer = { viewer: Viewer } | { status: 401 | 503; message: string };

/** Asks the router who `token` is. 401 when the platform refuses the token, 503 when it cannot be reached. */
export async function lookUpViewer(routerUrl: string, token: string): Promise<ViewerAnswer> {
  const answer = await fetch(routerUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: VIEWER_QUERY, operationName: 'DashboardViewer' }),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
  if (!answer) return { status: 503, message: 'The platform is unavailable; retry shortly' };
  const body = (await answer.json().catch(() => undefined)) as { data?: { viewer?: Viewer }; errors?: { extensions?: { code?: string } }[] } | undefined;
  if (body?.data?.viewer) return { viewer: body.data.viewer };
  const refused = answer.status === 401 || answer.status === 403 || (body?.errors ?? []).some((e) => ['UNAUTHENTICATED', 'FORBIDDEN'].includes(e.extensions?.code ?? ''));
  return refused ? { status: 401, message: 'Not signed in' } : { status: 503, message: 'The platform could not check your session; retry shortly' };
}

/** When the token ends (ms), from its `exp` claim: read only after the platform verified the token. */
export function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function grantsTenant(viewer: Viewer, tenant: string): boolean {
  return viewer.tenants.includes('*') || viewer.tenants.includes(tenant);
}

/** The tenant a session starts with: demo for tokens that grant every tenant or demo, else the token's first. */
export function defaultTenant(viewer: Viewer): string | null {
  if (grantsTenant(viewer, DEMO_TENANT)) return DEMO_TENANT;
  return viewer.tenants[0] ?? null;
}

/** The session as the page sees it: the verified viewer, the token's expiry and the chosen tenant. */
export function sessionView(req: IncomingMessage, viewer: Viewer, expiresAt: number, chosen?: string): SessionView {
  const wanted = chosen ?? readCookie(req, TENANT_COOKIE);
  const tenant = wanted && TENANT_ID.test(wanted) && grantsTenant(viewer, wanted) ? wanted : defaultTenant(viewer);
  return { ...viewer, expiresAt, tenant };
}

/** The session id the cookie holds (session-store.ts keeps the token it stands for). */
export const sessionId = (req: IncomingMessage) => readCookie(req, SESSION_COOKIE);
