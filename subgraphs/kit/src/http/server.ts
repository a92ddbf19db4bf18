import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { requestIdFrom } from '../context.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface Route {
  method: string;
  /** Exact path, or a prefix ending in `*`. */
  path: string;
  handle: Handler;
}

export interface HttpServerOptions {
  name: string;
  log: Logger;
  routes: Route[];
  /** Origins allowed to call with CORS; requests from others get no CORS headers. */
  corsOrigins?: readonly string[];
  /** Called for requests no route matches; default 404 JSON. */
  fallback?: Handler;
}

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

function matches(route: Route, method: string, path: string): boolean {
  if (route.method !== '*' && route.method !== method && !(route.method === 'GET' && method === 'HEAD')) return false;
  return route.path.endsWith('*') ? path.startsWith(route.path.slice(0, -1)) : route.path === path;
}

function applyCors(req: IncomingMessage, res: ServerResponse, origins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (!origin || !origins.includes(origin)) return false;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-expose-headers', 'x-request-id, etag, retry-after');
  if (req.method === 'OPTIONS') {
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'content-type, authorization');
    res.setHeader('access-control-max-age', '600');
    res.statusCode = 204;
    res.end();
    return true;
  }
  return false;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json; charset=utf-8'): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * How long an idle keep-alive connection stays open. Longer than the idle timeouts of the
 * proxies in front of us (Varnish's `backend_idle_timeout` and most load balancers' are 60 s),
 * so a proxy or a pooled client never sends a request on a connection we are closing at that
 * moment; Node's 5 s default made that race likely (a client that stalls for its keep-alive
 * margin reuses a socket whose FIN is already on the way: "other side closed").
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** A node:http server with a route list, CORS, request ids, access logs and graceful close. */
export function createHttpServer(options: HttpServerOptions): Server {
  const { log, routes } = options;
  return createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: KEEP_ALIVE_TIMEOUT_MS + 1_000 }, async (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFrom(req.headers);
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (path === '/health' || path === '/ready') return;
      log.info({ requestId, method: req.method, path, status: res.statusCode, durationMs: Math.round(durationMs * 100) / 100 }, 'request');
    });
    try {
      if (options.corsOrigins && applyCors(req, res, options.corsOrigins)) return;
      const route = routes.find((r) => matches(r, req.method ?? 'GET', path));
      if (route) await route.handle(req, res);
      else if (options.fallback) await options.fallback(req, res);
      else sendJson(res, 404, { error: `No route for ${req.method} ${path}` });
    } catch (error) {
      log.error({ requestId, err: error }, 'unhandled error in HTTP handler');
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error', requestId });
      else res.destroy();
    }
  });
}

export async function listen(server: Server, port: number, host: string): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
