import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHttpServer, healthRoutes, listen, packageFileRoutes, readBody, sendJson, type Logger, type Route, type RunningServer } from '@svc/kit';

/**
 * The dashboard's server: the page, its compiled modules and uPlot, all from the project (no
 * CDN), and a same-origin proxy to the bridge (REST and the event stream) and the router
 * (GraphQL). It holds no rules: it only keeps the person's token in an HttpOnly, SameSite=Strict
 * cookie (no script, and no other origin, can read it) and adds it to what it forwards.
 */
export interface DashboardOptions {
  /** The REST bridge's base URL (http://host:port). */
  bridgeUrl: string;
  /** The router's GraphQL URL. */
  routerUrl: string;
  log: Logger;
  /** The start warned that the default admin account is in use: the page shows it too. */
  defaultCredentials: boolean;
  /** Mark the session cookie Secure (behind HTTPS). Default false (the local setup is plain HTTP). */
  secureCookie?: boolean;
}

const COOKIE = 'svc_session';
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
      const relative = normalize(decodeURIComponent((req.url ?? '').split('?')[0]!.slice(prefix.length)));
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

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE && value.length) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** The claims the page shows (who, which roles, until when); the bridge verifies the token on every call. */
function claimsOf(token: string): { subject: string; roles: string[]; expiresAt: number } | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown; roles?: unknown; exp?: unknown };
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
    return { subject: payload.sub, roles: Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [], expiresAt: payload.exp * 1000 };
  } catch {
    return undefined;
  }
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
  const cookie = (value: string, maxAge: number) =>
    `${COOKIE}=${encodeURIComponent(value)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${options.secureCookie ? '; Secure' : ''}`;

  /** Forwards one request to `target` with the session's token; streams the answer back (events included). */
  function forward(req: IncomingMessage, res: ServerResponse, target: URL, body?: Buffer): void {
    const token = cookieToken(req);
    const headers: Record<string, string> = { accept: req.headers.accept ?? 'application/json', 'x-request-id': String(req.headers['x-request-id'] ?? '') };
    if (token) headers.authorization = `Bearer ${token}`;
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
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const target = keepPath ? new URL(`${url.pathname}${url.search}`, base) : new URL(base);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req, 1_000_000);
    forward(req, res, target, body);
  };

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
        const answer = await fetch(`${options.bridgeUrl}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch(() => undefined);
        if (!answer) return sendJson(res, 503, { message: 'The platform is unavailable; retry shortly' });
        const reply = (await answer.json().catch(() => ({}))) as { data?: { accessToken?: string; expiresIn?: number }; message?: string; errors?: unknown };
        const token = reply.data?.accessToken;
        const claims = token ? claimsOf(token) : undefined;
        if (!answer.ok || !token || !claims) return sendJson(res, answer.status >= 400 ? answer.status : 502, { message: reply.message ?? 'Sign-in failed', errors: reply.errors });
        res.setHeader('set-cookie', cookie(token, reply.data?.expiresIn ?? 3600));
        sendJson(res, 200, { ...claims, defaultCredentials: options.defaultCredentials });
      },
    },
    {
      method: 'GET',
      path: '/session',
      handle: (req, res) => {
        const token = cookieToken(req);
        const claims = token ? claimsOf(token) : undefined;
        res.setHeader('cache-control', 'no-store');
        if (!claims) return sendJson(res, 401, { message: 'Not signed in', defaultCredentials: options.defaultCredentials });
        if (claims.expiresAt <= Date.now()) {
          res.setHeader('set-cookie', cookie('', 0));
          return sendJson(res, 401, { message: 'Your session expired; sign in again', expired: true, defaultCredentials: options.defaultCredentials });
        }
        sendJson(res, 200, { ...claims, defaultCredentials: options.defaultCredentials });
      },
    },
    {
      method: 'DELETE',
      path: '/session',
      handle: (req, res) => {
        if (!fromThePage(req)) return sendJson(res, 403, { message: 'Sign out from the dashboard page' });
        res.setHeader('set-cookie', cookie('', 0));
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
