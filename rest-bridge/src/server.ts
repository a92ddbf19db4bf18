import { createAddressMatcher, createHttpServer, createRouterClient, healthRoutes, htmlRoute, listen, packageFileRoutes, readBody, SvcError, type InProcessGraphql, type Logger, type PurgeChannel, type RunningServer } from '@svc/kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBridge, type RestRequest } from './bridge.js';
import { createNativePass, type InProcessHandler } from './native-pass.js';
import { openApiDocument } from './openapi.js';
import { createResponseCache } from './response-cache.js';
import type { RouteSpec } from './route-spec.js';

export interface BridgeServerOptions {
  routes: readonly RouteSpec[];
  operations: ReadonlyMap<string, string>;
  routerUrl: string;
  /** The router of this process (`svc all`): operations run on it without a socket, not on `routerUrl`. */
  router?: InProcessGraphql;
  log: Logger;
  maxBodyBytes: number;
  corsOrigins: readonly string[];
  /** Peers whose X-Forwarded-For is kept; every other client's is replaced by its address. */
  trustedProxies: readonly string[];
  publicBaseUrl?: string;
  /** Base URLs of subgraphs serving event streams and native routes (insight, llm), by service. */
  streamTargets?: Record<string, string>;
  /** Services in this process that serve their native routes themselves (no socket), by service. */
  inProcess?: Record<string, InProcessHandler>;
  /**
   * Where the content service announces purges. With it, responses of cacheable routes (content
   * delivery) are kept in memory and dropped on every purge (response-cache.ts); give it only
   * when every content service announces on it (Redis, or the content service in this process).
   */
  purgeChannel?: PurgeChannel;
}

/** undici's default limit on a router answer, which the bridge's calls always had. */
const ROUTER_TIMEOUT_MS = 300_000;

const SWAGGER_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Svc Platform REST API</title>
  <link rel="icon" href="data:," />
  <link rel="stylesheet" href="/apidocs/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/apidocs/swagger-ui-bundle.js"></script>
  <script src="/apidocs/init.js"></script>
</body>
</html>`;

const SWAGGER_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, persistAuthorization: true });`;

export async function startBridge(options: BridgeServerOptions, port: number, host: string): Promise<RunningServer> {
  const { log } = options;
  const router = createRouterClient({ url: options.routerUrl, operations: options.operations, timeoutMs: ROUTER_TIMEOUT_MS, inProcess: options.router });
  const responseCache = options.purgeChannel ? createResponseCache({ channel: options.purgeChannel, log }) : undefined;
  const bridge = createBridge({
    ...options,
    responseCache,
    execute: (request, headers) => router.text(request.operationName, request.variables, { headers }),
    openStream: (url, init) => fetch(url, init),
  });
  const native = createNativePass({ routes: options.routes, targets: options.streamTargets ?? {}, inProcess: options.inProcess, log });
  const isTrusted = createAddressMatcher(options.trustedProxies);
  const openapi = JSON.stringify(openApiDocument(options.routes, { title: 'Svc Platform', version: '1.0.0' }));

  async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const headers: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(req.headers)) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    // Only a trusted proxy (Varnish, a load balancer) may tell us who the client is.
    const peer = req.socket.remoteAddress;
    const trusted = isTrusted(peer);
    if (peer) headers['x-forwarded-for'] = trusted && headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${peer}` : peer;
    const request: RestRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers };
    let response;
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') request.body = await readBody(req, options.maxBodyBytes);
      response = await bridge.handle(request);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      response = bridge.errorResponse(request, error);
    }
    if (response.stream) {
      res.statusCode = response.status;
      for (const [key, value] of Object.entries(response.headers)) res.setHeader(key, value);
      const { chunks, abort } = response.stream;
      res.on('close', () => {
        if (!res.writableFinished) abort();
      });
      res.flushHeaders();
      try {
        for await (const chunk of chunks) res.write(chunk);
      } catch (error) {
        if ((error as Error).name !== 'AbortError') log.warn({ err: error }, 'stream relay ended with an error');
      }
      res.end();
      return;
    }
    res.writeHead(response.status, response.body === undefined ? response.headers : { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
    res.end(req.method === 'HEAD' ? undefined : response.body);
  }

  const server = createHttpServer({
    name: 'bridge',
    log,
    corsOrigins: options.corsOrigins,
    routes: [
      ...healthRoutes({ service: 'bridge', log }),
      { method: 'GET', path: '/openapi.json', handle: (_req, res) => { res.setHeader('content-type', 'application/json'); res.end(openapi); } },
      htmlRoute('/apidocs-ui.html', SWAGGER_HTML),
      { method: 'GET', path: '/apidocs/init.js', handle: (_req, res) => { res.setHeader('content-type', 'text/javascript'); res.end(SWAGGER_INIT); } },
      ...packageFileRoutes(import.meta.url, {
        '/apidocs/swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
        '/apidocs/swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
      }),
    ],
    fallback: async (req, res) => {
      if (!(await native.handle(req, res))) await handleRest(req, res);
    },
  });
  const running = await listen(server, port, host);
  log.info({ url: running.url, apidocs: `${running.url}/apidocs-ui.html` }, 'REST bridge listening');
  return {
    ...running,
    close: async (graceMs) => {
      await running.close(graceMs);
      responseCache?.close();
      await options.purgeChannel?.close();
      await router.close();
      await native.close();
    },
  };
}
