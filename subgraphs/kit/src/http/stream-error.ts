import type { ServerResponse } from 'node:http';
import { httpStatusOf, SvcError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * An error of a streaming route before its first byte, in the GraphQL error shape
 * (`{errors: [...]}`) with the error's own HTTP status, so the bridge renders it in the
 * service's own error body like any other and a direct caller sees a 404 as a 404.
 * Unknown errors are masked and logged in full.
 */
export function sendStreamError(res: ServerResponse, error: unknown, log: Logger, what: string): void {
  const svc = error instanceof SvcError ? error : undefined;
  if (!svc) log.error({ err: error }, `${what} failed before the first byte`);
  const body = JSON.stringify({ errors: [svc ? { message: svc.message, extensions: svc.extensions } : { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] });
  res.writeHead(svc ? httpStatusOf(svc.code, svc.extensions.status) : 500, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
