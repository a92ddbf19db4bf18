import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAddressMatcher, createHttpServer, healthRoutes, listen, packageFileRoutes, readBody, sendJson, type Logger, type Route, type RunningServer } from '@svc/kit';
import { cookie, readCookie, SESSION_COOKIE, TENANT_COOKIE } from './cookies.js';
import { bridgePathOf } from './proxy-path.js';
import { expiryOf, grantsTenant, lookUpViewer, sessionId, sessionView, TENANT_ID, type Viewer } from './session.js';
import type { DashboardSessions } from './session-store.js';

/**
 * The dashboard's server: the page, its compiled modules and uPlot, all from the project (no
 * CDN), and a same-origin proxy to the bridge (REST and the event stream) and the router
 * (GraphQL). It holds no rules: it keeps the person's token on the server (session-store.ts),
 * behind a random session id in an HttpOnly, SameSite=Strict cookie (no script, and no other
 * origin, can read it), and adds the token, with the tenant the person chose (X-Svc-Tenant-Id)
 * and the person's own address (X-Forwarded-For, so the platform throttles sign-ins per real
 * client), to what it forwards. Who is signed in comes from the platform, which verifies the
 * token (session.ts); the proxy reaches only the bridge's /api/ paths (proxy-path.ts).
 */
export interface DashboardOptions {
  /** The REST bridge's base URL (http://host:port). */
  bridgeUrl: string;
  /** The router's GraphQL URL. */
  routerUrl: string;
  log: Logger;
  /** The start warned that the default admin account is in use: the page shows it too. */
  defaultCredentials: boolean;
  /**
   * Mark the session cookie Secure (SVC_DASHBOARD_SECURE_COOKIE). Default false (the local setup
   * is plain HTTP); a request that a trusted proxy says came over https (X-Forwarded-Proto) gets a
   * Secure cookie either way.
   */
  secureCookie?: boolean;
  /** Where sessions are kept (session-store.ts). */
  sessions: DashboardSessions;
  /** SVC_TRUSTED_PROXIES: peers whose X-Forwarded-For and X-Forwarded-Proto are believed. Default loopback. */
  trustedProxies?: readonly string[];
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PUBLIC = join(ROOT, 'public');
const BROWSER = join(ROOT, 'dist', 'browser');

/** Scripts, styles and connections only from this origin; nothing may frame the page. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8', '.map': 'application/json', '.svg': 'image/svg+xml' };

function securityHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
}

/** Files below `dir` under URL prefix `prefix` (no path escapes). */
function directoryRoute(prefix: string, dir: string, cache: string): Route {
  return {
    method: 'GET',
    path: `${prefix}*`,
    handle: async (req, res) => {
      let relative: string;
      try {
        relative = normalize(decodeURIComponent((req.url ?? '').split('?')[0]!.slice(prefix.length)));
      } catch {
        return sendJson(res, 404, { message: 'Not found' }); // malformed percent-encoding
      }
      if (relative.startsWith('..') || relative.includes('\0')) return sendJson(res, 404, { message: 'Not found' });
      try {
        const data = await readFile(join(dir, relative));
        securityHeaders(res);
        res.setHeader('content-type', TYPES[extname(relative)] ?? 'application/octet-stream');
        res.setHeader('cache-control', cache);
        res.end(data);
      } catch {
        sendJson(res, 404, { message: 'Not found' });
      }
    },
  };
}

/**
 * A request that changes something must come from the page itself: SameSite=Strict keeps the
 * cookie off cross-site requests, and the custom header cannot be sent cross-origin without a
 * CORS preflight this server never grants.
 */
function fromThePage(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  if (req.headers['x-svc-dashboard'] !== '1') return false;
  const origin = req.headers.origin;
  return !origin || origin === `http://${req.headers.host}` || origin === `https://${req.headers.host}`;
}

export async function startDashboard(options: DashboardOptions, port: number, host: string): Promise<RunningServer> {
  const { log } = options;
  const index = await readFile(join(PUBLIC, 'index.html'), 'utf8');
  const { sessions } = options;
  const isTrusted = createAddressMatcher(options.trustedProxies ?? ['127.0.0.1', '::1']);
  /** Secure by configuration, or when a trusted proxy says the request came over https. */
  const secureFor = (req: IncomingMessage) =>
    (options.secureCookie ?? false) || (isTrusted(req.socket.remoteAddress) && String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim().toLowerCase() === 'https');
  const signedOut = (req: IncomingMessage) => {
    const secure = secureFor(req);
    return [cookie(SESSION_COOKIE, '', 0, secure), cookie(TENANT_COOKIE, '', 0, secure)];
  };
  /**
   * The chain the platform reads the client from, as the bridge builds it: what a trusted proxy
   * in front of the dashboard said, then the dashboard's own peer. The bridge trusts the
   * dashboard (it must be among the bridge's SVC_TRUSTED_PROXIES; loopback by default) and takes
   * the last untrusted hop, exactly as for a client that calls it directly.
   */
  const forwardedFor = (req: IncomingMessage) => {
    const peer = req.socket.remoteAddress ?? '';
    const given = req.headers['x-forwarded-for'];
    return isTrusted(peer) && given ? `${Array.isArray(given) ? given.join(', ') : given}, ${peer}` : peer;
  };

  /**
   * Forwards one request to `target` with the session's token and chosen tenant (X-Svc-Tenant-Id,
   * on every call: REST, the event stream and GraphQL); streams the answer back.
   */
  function forward(req: IncomingMessage, res: ServerResponse, target: URL, token: string | undefined, body?: Buffer): void {
    const tenant = readCookie(req, TENANT_COOKIE);
    const headers: Record<string, string> = { accept: req.headers.accept ?? 'application/json', 'x-request-id': String(req.headers['x-request-id'] ?? ''), 'x-forwarded-for': forwardedFor(req) };
    if (token) headers.authorization = `Bearer ${token}`;
    if (tenant && TENANT_ID.test(tenant)) headers['x-svc-tenant-id'] = tenant;
    if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
    if (req.headers['last-event-id']) headers['last-event-id'] = String(req.headers['last-event-id']);
    if (body) headers['content-length'] = String(body.length);
    const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
      const passed: Record<string, string | string[]> = {};
      for (const name of ['content-type', 'cache-control', 'retry-after', 'x-request-id', 'etag']) {
        const value = answer.headers[name];
        if (value !== undefined) passed[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, passed);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      log.warn({ target: target.pathname, reason: error.message }, 'dashboard proxy call failed');
      if (!res.headersSent) sendJson(res, 503, { code: 503, message: 'The platform is unavailable; retry shortly', data: null });
      else res.destroy();
    });
    req.on('close', () => {
      if (!res.writableEnded) upstream.destroy();
    });
    upstream.end(body);
  }

  const proxy = (base: string, keepPath: boolean): Route['handle'] => async (req, res) => {
    if (!fromThePage(req)) return sendJson(res, 403, { code: 403, message: 'Changes must come from the dashboard page (x-svc-dashboard header, same origin)', data: null });
    let target = new URL(base);
    if (keepPath) {
      const path = bridgePathOf(req.url ?? '/');
      if (!path) return sendJson(res, 400, { code: 400, message: `Not a platform path under /api/: ${JSON.stringify((req.url ?? '').split('?')[0]!.slice(0, 200))} (dot segments, encoded slashes and backslashes are refused)`, data: null });
      target = new URL(path, base);
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req, 1_000_000);
    forward(req, res, target, await sessions.token(sessionId(req)), body);
  };

  /** The verified session of a request, or the answer to send instead. */
  async function verified(req: IncomingMessage): Promise<{ token: string; viewer: Viewer; expiresAt: number } | { status: number; message: string; expired?: boolean }> {
    const id = sessionId(req);
    const token = await sessions.token(id);
    if (!token) return { status: 401, message: id ? 'Your session ended; sign in again' : 'Not signed in', expired: !!id };
    const expiresAt = expiryOf(token);
    if (expiresAt !== undefined && expiresAt <= Date.now()) return { status: 401, message: 'Your session expired; sign in again', expired: true };
    const answer = await lookUpViewer(options.routerUrl, token);
    if ('status' in answer) {
      // The platform refused the token (the account changed, so its sessions ended): so does the dashboard, for every copy of the cookie.
      if (answer.status === 401) await sessions.end(id);
      return answer;
    }
    return { token, viewer: answer.viewer, expiresAt: expiresAt ?? Date.now() + 3_600_000 };
  }

  const routes: Route[] = [
    ...healthRoutes({ service: 'dashboard', log }),
    {
      method: 'GET',
      path: '/',
      handle: (_req, res) => {
        securityHeaders(res);
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.setHeader('cache-control', 'no-store');
        res.end(index);
      },
    },
    directoryRoute('/static/', PUBLIC, 'no-cache'),
    directoryRoute('/app/', BROWSER, 'no-cache'),
    ...packageFileRoutes(import.meta.url, { '/vendor/uPlot.iife.min.js': 'uplot/dist/uPlot.iife.min.js', '/vendor/uPlot.min.css': 'uplot/dist/uPlot.min.css' }),
    {
      method: 'POST',
      path: '/session',
      handle: async (req, res) => {
        if (!fromThePage(req)) return sendJson(res, 403, { message: 'Sign in from the dashboard page' });
        const body = await readBody(req, 10_000);
        // The person's address goes on, so the platform throttles this sign-in per real client, as at the bridge.
        const answer = await fetch(`${options.bridgeUrl}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor(req) }, body }).catch(() => undefined);
        if (!answer) return sendJson(res, 503, { message: 'The platform is unavailable; retry shortly' });
        const reply = (await answer.json().catch(() => ({}))) as { data?: { accessToken?: string; expiresIn?: number }; message?: string; errors?: unknown };
        const token = reply.data?.accessToken;
        if (!answer.ok || !token) {
          const retryAfter = answer.headers.get('retry-after');
          if (retryAfter) res.setHeader('retry-after', retryAfter);
          return sendJson(res, answer.status >= 400 ? answer.status : 502, { message: reply.message ?? 'Sign-in failed', errors: reply.errors });
        }
        const who = await lookUpViewer(options.routerUrl, token);
        if ('status' in who) return sendJson(res, who.status === 401 ? 502 : who.status, { message: who.status === 401 ? 'The platform refused the token it just issued' : who.message });
        const maxAge = reply.data?.expiresIn ?? 3600;
        const session = sessionView(req, who.viewer, expiryOf(token) ?? Date.now() + maxAge * 1000);
        const id = await sessions.open(token, maxAge);
        const secure = secureFor(req);
        res.setHeader('set-cookie', [cookie(SESSION_COOKIE, id, maxAge, secure), cookie(TENANT_COOKIE, session.tenant ?? '', session.tenant ? maxAge : 0, secure)]);
        sendJson(res, 200, { ...session, defaultCredentials: options.defaultCredentials });
      },
    },
    {
      method: 'GET',
      path: '/session',
      handle: async (req, res) => {
        res.setHeader('cache-control', 'no-store');
        const session = await verified(req);
        if ('status' in session) {
          if (session.status === 401 && sessionId(req)) res.setHeader('set-cookie', signedOut(req));
          return sendJson(res, session.status, { message: session.message, expired: session.expired, defaultCredentials: options.defaultCredentials });
        }
        const view = sessionView(req, session.viewer, session.expiresAt);
        // A session without a usable tenant cookie (signed in before tenants, or a stale choice) gets its tenant now, so every later call carries it.
        if (view.tenant && readCookie(req, TENANT_COOKIE) !== view.tenant) res.setHeader('set-cookie', cookie(TENANT_COOKIE, view.tenant, (session.expiresAt - Date.now()) / 1000, secureFor(req)));
        sendJson(res, 200, { ...view, defaultCredentials: options.defaultCredentials });
      },
    },
    {
      method: 'PUT',
      path: '/session/tenant',
      handle: async (req, res) => {
        if (!fromThePage(req)) return sendJson(res, 403, { message: 'Choose a tenant from the dashboard page' });
        let tenant: unknown;
        try {
          tenant = (JSON.parse((await readBody(req, 10_000)).toString('utf8') || '{}') as { tenant?: unknown }).tenant;
        } catch {
          return sendJson(res, 400, { message: 'The body must be JSON: {"tenant": "<tenant id>"}' });
        }
        if (typeof tenant !== 'string' || !TENANT_ID.test(tenant)) {
          return sendJson(res, 400, { message: `Tenant ${JSON.stringify(tenant)} is not a tenant id (1-64 letters, digits, ".", "_" or "-", starting with a letter or digit)` });
        }
        const session = await verified(req);
        if ('status' in session) return sendJson(res, session.status, { message: session.message, expired: session.expired });
        if (!grantsTenant(session.viewer, tenant)) return sendJson(res, 403, { message: `Your token does not grant tenant ${JSON.stringify(tenant)}; it grants ${session.viewer.tenants.join(', ') || 'none'}` });
        res.setHeader('set-cookie', cookie(TENANT_COOKIE, tenant, (session.expiresAt - Date.now()) / 1000, secureFor(req)));
        sendJson(res, 200, { ...sessionView(req, session.viewer, session.expiresAt, tenant), defaultCredentials: options.defaultCredentials });
      },
    },
    {
      method: 'DELETE',
      path: '/session',
      handle: async (req, res) => {
        if (!fromThePage(req)) return sendJson(res, 403, { message: 'Sign out from the dashboard page' });
        await sessions.end(sessionId(req)); // every copy of the cookie is signed out with it
        res.setHeader('set-cookie', signedOut(req));
        sendJson(res, 200, { message: 'Signed out' });
      },
    },
    { method: '*', path: '/api/*', handle: proxy(options.bridgeUrl, true) },
    { method: '*', path: '/graphql', handle: proxy(options.routerUrl, false) },
  ];
  const running = await listen(createHttpServer({ name: 'dashboard', log, routes }), port, host);
  log.info({ url: running.url }, 'dashboard listening');
  return running;
}
