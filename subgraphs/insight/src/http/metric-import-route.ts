import { createContext, httpStatusOf, SvcError, type Logger, type Route, type TokenVerifier } from '@svc/kit';
import type { ServerResponse } from 'node:http';
import type { ImportMetrics } from '../service/import-metrics.js';

export const IMPORT_PATH = '/api/v1/insight/metrics/import';

/** The analysis envelope, written here: the bridge passes this route's answer through untouched. */
function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, error: unknown, log: Logger): void {
  const svc = error instanceof SvcError ? error : undefined;
  if (!svc) log.error({ err: error }, 'metric import failed');
  const status = svc ? httpStatusOf(svc.code, svc.extensions.status) : 500;
  const errors = svc?.extensions.errors;
  const body = { code: status, message: svc?.message ?? 'Internal server error', data: null, ...(errors ? { errors } : {}) };
  // A streamed answer has sent its 200 and its progress lines: the envelope is its last line.
  if (res.headersSent) res.end(`${JSON.stringify(body)}\n`);
  else send(res, status, body);
}

/**
 * POST /api/v1/insight/metrics/import: a CSV (`text/csv`) or NDJSON (`application/x-ndjson`)
 * file of points streamed into the store, all or nothing (service/import-metrics.ts). With
 * `Accept: application/x-ndjson` the answer is a stream: a `{"progress": {"points": n}}` line every
 * 500,000 points while the file is read, then the envelope as the last line.
 */
export function metricImportRoute(options: { importMetrics: ImportMetrics; verifier: TokenVerifier; log: Logger }): Route {
  return {
    method: 'POST',
    path: IMPORT_PATH,
    async handle(req, res) {
      const streamed = String(req.headers.accept ?? '').includes('application/x-ndjson');
      try {
        const ctx = await createContext(req.headers, { verifier: options.verifier, log: options.log });
        if (ctx.authError) throw ctx.authError;
        const outcome = await options.importMetrics(ctx, String(req.headers['content-type'] ?? ''), req, {
          accepted: () => streamed && res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }),
          progress: (points) => streamed && res.write(`${JSON.stringify({ progress: { points } })}\n`),
        });
        const body = { code: 200, message: 'OK', data: outcome };
        if (streamed) res.end(`${JSON.stringify(body)}\n`);
        else send(res, 200, body);
      } catch (error) {
        if (!res.headersSent) req.resume();
        sendError(res, error, options.log);
      }
    },
  };
}
