import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import type { Logger } from '@svc/kit';
import { compileRoute, type CompiledRoute, type RouteSpec } from './route-spec.js';

/** A service's own handler for its native paths, when it runs in this process: true when it served the request. */
export type InProcessHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const REQUEST_HEADERS = ['authorization', 'content-type', 'content-length', 'accept', 'x-request-id', 'x-svc-tenant-id', 'user-agent', 'openai-organization', 'openai-project'];
const RESPONSE_HEADERS = ['content-type', 'content-length', 'cache-control', 'retry-after', 'www-authenticate', 'allow', 'x-request-id', 'x-svc-cache', 'x-svc-model', 'x-accel-buffering'];

/**
 * Routes served natively by a service (the model gateway's OpenAI paths): the request goes to the
 * service untouched, with no parse or re-serialisation of its body. In one process the service's
 * handler is called with the same request and response objects; otherwise the bytes are piped
 * over a keep-alive undici pool, both ways (a streamed answer streams).
 */
export function createNativePass(options: { routes: readonly RouteSpec[]; targets: Record<string, string>; inProcess?: Record<string, InProcessHandler>; log: Logger }) {
  const native: CompiledRoute[] = options.routes.filter((r) => r.native).map(compileRoute);
  const pools = new Map<string, Pool>();
  const poolOf = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
      pools.set(origin, pool);
    }
    return pool;
  };

  function unavailable(res: ServerResponse, service: string): void {
    if (res.headersSent) return void res.destroy();
    const body = JSON.stringify({ error: { message: `The ${service} service is unavailable; retry shortly`, type: 'api_error', param: null, code: 'service_unavailable' } });
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  async function forward(req: IncomingMessage, res: ServerResponse, service: string, base: string): Promise<void> {
    const target = new URL(req.url ?? '/', base);
    const headers: Record<string, string> = {};
    for (const name of REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const answer = await poolOf(target.origin).request({
        method: (req.method ?? 'GET') as 'GET',
        path: `${target.pathname}${target.search}`,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? null : req,
        signal: controller.signal,
      });
      const passed: Record<string, string | string[]> = {};
      for (const name of RESPONSE_HEADERS) {
        const value = answer.headers[name];
        if (value !== undefined) passed[name] = value;
      }
      res.writeHead(answer.statusCode, passed);
      if (passed['content-type']?.toString().startsWith('text/event-stream')) res.flushHeaders();
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (controller.signal.aborted) return;
      options.log.warn({ service, path: target.pathname, reason: (error as Error).message }, 'native pass-through failed');
      unavailable(res, service);
    }
  }

  return {
    /** Serves `req` when its path is a native route; false when the bridge should handle it. */
    async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
      const path = (req.url ?? '/').split('?')[0]!;
      const route = native.find((r) => r.pattern.test(path));
      if (!route) return false;
      const service = route.native!.service;
      const local = options.inProcess?.[service];
      if (local) return local(req, res);
      const base = options.targets[service];
      if (!base) {
        unavailable(res, service);
        return true;
      }
      await forward(req, res, service, base);
      return true;
    },
    async close(): Promise<void> {
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}
