import { SvcError } from './errors.js';

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22: a value out of range, malformed for its
 * type) come from values a client sent that no earlier check caught: a client error, not a 500.
 */
export function isDataException(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

const DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const DOWN_MESSAGE = /Connection terminated|not currently accepting connections|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command/i;

/**
 * A failure because PostgreSQL (or the way to it) is down, not because of the request: refused
 * or dropped connections, connect timeouts, and SQLSTATE classes 08 (connection exception),
 * 57P (operator intervention) and 53 (insufficient resources). Looks through `cause` chains, and
 * into graphql-js's NonErrorThrown wrapper (`thrownValue`), which a resolver's socket error from
 * another realm (not `instanceof Error` there) arrives in.
 */
export function isDependencyDown(error: unknown, depth = 0): boolean {
  // Not `instanceof Error`: errors from node's sockets may come from another realm (a VM context, a worker).
  if (!error || typeof error !== 'object' || typeof (error as { message?: unknown }).message !== 'string' || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (DOWN_CODES.has(code) || /^(08|57P|53)[0-9A-Z]{2,3}$/.test(code))) return true;
  if (DOWN_MESSAGE.test((error as Error).message)) return true;
  const inner = error as { cause?: unknown; thrownValue?: unknown };
  return isDependencyDown(inner.cause, depth + 1) || isDependencyDown(inner.thrownValue, depth + 1);
}

/**
 * The typed error for a failure that is not a bug: a dependency that is down (503 with
 * Retry-After) or a value the database refused (400). Undefined for anything else.
 */
export function knownFailure(error: unknown): SvcError | undefined {
  if (error instanceof SvcError) return error;
  if (isDependencyDown(error)) return new SvcError('UNAVAILABLE', 'The database is unavailable; retry shortly', { retryAfter: 5 });
  if (isDataException(error)) return new SvcError('BAD_USER_INPUT', `A value is not acceptable to the database: ${error.message.split('\n')[0]}`);
  return undefined;
}
