import type { IncomingMessage, ServerResponse } from 'node:http';
import { knownFailure, openAiErrorBody, openAiErrors, openAiStreamErrorBody, parseClientJson, readBody, type FieldProblem, type Logger, type Route } from '@svc/kit';
import { formatSse } from '../domain/sse.js';
import type { GatewayServices } from '../service/gateway-services.js';
import type { ResponseMeta } from '../service/rate-limiter.js';

/**
 * The OpenAI-compatible paths, served natively over HTTP: the wire format is the gateway's
 * product, so a request goes from the socket to the chat service and back without a GraphQL
 * round (the GraphQL mutations share the same services). The bridge hands these paths here
 * unchanged (or, in one process, calls {@link openAiHandler} directly, with no socket at all).
 */
export const OPENAI_PATHS = ['/v1/chat/completions', '/v1/embeddings', '/v1/models', '/v1/models/*'] as const;

const AGENT_KEY_REQUIRED = 'The master key administers the gateway; call models with an agent key (POST /admin/v1/keys creates one)';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Any failure as an OpenAI error answer with its HTTP status (and the rate-limit headers of `meta`); unknown ones are logged and masked. */
function sendError(res: ServerResponse, error: unknown, log: Logger, meta: ResponseMeta = {}): void {
  const known = knownFailure(error);
  if (!known) log.error({ err: error }, 'gateway request failed');
  const ext = (known?.extensions ?? {}) as Record<string, unknown>;
  const status = known?.status ?? 500;
  const body = known
    ? openAiErrorBody({ code: known.code, status, message: known.message, slug: ext.slug as string | undefined, errors: ext.errors as FieldProblem[] | undefined, details: ext.details as Record<string, unknown> | undefined })
    : { error: { message: 'Internal server error', type: 'api_error', param: null, code: 'internal_server_error' } };
  const headers: Record<string, string> = { ...meta.headers };
  if (typeof ext.retryAfter === 'number') {
    headers['retry-after'] = String(Math.max(1, Math.ceil(ext.retryAfter)));
    // OpenAI's SDKs prefer the exact wait when it is given.
    if (known?.code === 'RATE_LIMITED') headers['retry-after-ms'] = String(Math.max(1, Math.ceil(ext.retryAfter * 1000)));
  }
  if (status === 401) headers['www-authenticate'] = 'Bearer';
  if (res.headersSent) return void res.end();
  sendJson(res, status, body, headers);
}

async function jsonBody(req: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) throw openAiErrors.invalidRequest(`Content-Type must be application/json; got ${JSON.stringify(type || '(none)')}`, null, 'unsupported_media_type');
  return parseClientJson((await readBody(req, maxBodyBytes)).toString('utf8'));
}

/** One handler for every OpenAI path (the bridge's in-process hand-off calls it too). */
export function openAiHandler(services: GatewayServices, maxBodyBytes: number, log: Logger) {
  async function chat(req: IncomingMessage, res: ServerResponse, meta: ResponseMeta): Promise<void> {
    const requestId = String(req.headers['x-request-id'] ?? '');
    const caller = await services.callers.agentCaller(req, AGENT_KEY_REQUIRED);
    const body = await jsonBody(req, maxBodyBytes);
    if ((body as { stream?: unknown } | null)?.stream !== true) {
      const outcome = await services.chat.complete(caller, body, requestId, meta);
      return sendJson(res, 200, outcome.completion, { ...meta.headers, 'x-svc-cache': outcome.cacheStatus, 'x-svc-model': outcome.model });
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const session = await services.chat.openStream(caller, body, controller.signal, requestId, meta);
    res.writeHead(200, {
      ...meta.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-svc-cache': session.cacheStatus,
      'x-svc-model': session.model,
    });
    try {
      let first = true;
      for await (const chunk of session.chunks) {
        if (controller.signal.aborted) break;
        res.write(formatSse(chunk));
        // Node corks a response's writes until the next tick, and chunks that arrived together are
        // all handled before it: let the head and the first event leave now; the rest go out batched.
        if (first) await new Promise((resolve) => setImmediate(resolve));
        first = false;
      }
      if (!controller.signal.aborted) res.write(formatSse('[DONE]'));
    } catch (error) {
      // After the first byte the status is sent: the failure is one error event.
      res.write(formatSse(openAiStreamErrorBody(error)));
    } finally {
      res.end();
    }
  }

  async function embeddings(req: IncomingMessage, res: ServerResponse, meta: ResponseMeta): Promise<void> {
    const caller = await services.callers.agentCaller(req, AGENT_KEY_REQUIRED);
    const body = await jsonBody(req, maxBodyBytes);
    const answer = await services.embeddings.embed(caller, body, String(req.headers['x-request-id'] ?? ''), meta);
    sendJson(res, 200, answer, meta.headers);
  }

  async function models(req: IncomingMessage, res: ServerResponse, id: string | undefined): Promise<void> {
    await services.callers.identify(req);
    const list = services.modelList();
    if (id === undefined) return sendJson(res, 200, list);
    const model = list.data.find((m) => m.id === id);
    if (!model) throw openAiErrors.notFound(`The model ${JSON.stringify(id)} does not exist; GET /v1/models lists the models this gateway serves`, 'model', 'model_not_found');
    sendJson(res, 200, model);
  }

  /** Serves the request when it is one of the OpenAI paths; false otherwise. */
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    // Filled once the rate limits have admitted (or refused) the request: its headers go on whatever answer follows.
    const meta: ResponseMeta = {};
    try {
      if (path === '/v1/chat/completions' && method === 'POST') await chat(req, res, meta);
      else if (path === '/v1/embeddings' && method === 'POST') await embeddings(req, res, meta);
      else if (path === '/v1/models' && (method === 'GET' || method === 'HEAD')) await models(req, res, undefined);
      else if (path.startsWith('/v1/models/') && (method === 'GET' || method === 'HEAD')) await models(req, res, decodeURIComponent(path.slice('/v1/models/'.length)));
      else if ((OPENAI_PATHS as readonly string[]).includes(path) || path.startsWith('/v1/models/')) {
        const allow = path === '/v1/chat/completions' || path === '/v1/embeddings' ? 'POST' : 'GET';
        sendJson(res, 405, { error: { message: `${method} is not allowed on ${path}; allowed: ${allow}`, type: 'invalid_request_error', param: null, code: 'method_not_allowed' } }, { allow });
      } else return false;
    } catch (error) {
      sendError(res, error, log, meta);
    }
    return true;
  };
}

export type OpenAiHandler = ReturnType<typeof openAiHandler>;

/** The handler as routes of the llm subgraph's HTTP server. */
export function openAiRoutes(handler: OpenAiHandler): Route[] {
  return ['/v1/chat/completions', '/v1/embeddings', '/v1/models', '/v1/models/*'].map((path) => ({ method: '*', path, handle: async (req, res) => void (await handler(req, res)) }));
}
