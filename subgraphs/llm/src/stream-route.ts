import { openAiStreamErrorBody, parseClientJson, readBody, sendStreamError, type Logger, type Route } from '@svc/kit';
import { formatSse } from './domain/sse.js';
import type { GatewayServices } from './service/gateway-services.js';

export const STREAM_PATH = '/stream/chat/completions';


/**
 * Streamed chat completions (the gateway cannot stream GraphQL): the bridge forwards
 * `stream: true` requests here with the caller's Authorization. Server-Sent Events of
 * `chat.completion.chunk`, then `data: [DONE]`; a failure mid-stream is one
 * `data: {"error": ...}` event before closing. A client that goes away aborts the upstream
 * call and is charged for what was generated.
 */
export function streamRoute(services: GatewayServices, maxBodyBytes: number, log: Logger): Route {
  return {
    method: 'POST',
    path: STREAM_PATH,
    async handle(req, res) {
      const requestId = String(req.headers['x-request-id'] ?? '');
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      let session;
      try {
        const agentCode = await services.callers.agent(req, 'Call models with an agent key, not the master key');
        const body = parseClientJson((await readBody(req, maxBodyBytes)).toString('utf8'));
        session = await services.chat.openStream(agentCode, body, controller.signal, requestId);
      } catch (error) {
        return sendStreamError(res, error, log, 'stream');
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-svc-cache': session.cacheStatus,
        'x-svc-model': session.model,
      });
      try {
        for await (const chunk of session.chunks) {
          if (controller.signal.aborted) break;
          res.write(formatSse(chunk));
        }
        if (!controller.signal.aborted) res.write(formatSse('[DONE]'));
      } catch (error) {
        res.write(formatSse(openAiStreamErrorBody(error)));
      } finally {
        res.end();
      }
    },
  };
}
