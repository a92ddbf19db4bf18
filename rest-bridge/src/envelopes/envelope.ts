import type { FieldProblem } from '@svc/kit';
import type { RouteSpec } from '../route-spec.js';

/** An error as the bridge received it from a subgraph (GraphQL extensions) or raised itself. */
export interface BridgeError {
  code: string;
  status: number;
  message: string;
  slug?: string;
  title?: string;
  errors?: FieldProblem[];
  retryAfter?: number;
  details?: Record<string, unknown>;
}

export interface ErrorContext {
  /** Request path, for problem `instance`. */
  instance: string;
  /** Public base URL, for problem `type`. */
  baseUrl: string;
}

export interface Rendered {
  status: number;
  contentType: string;
  body: unknown;
}

/** The documented HTTP shapes of one service. */
export interface Envelope {
  success(payload: unknown, route: RouteSpec): Rendered;
  error(error: BridgeError, context: ErrorContext): Rendered;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

export function slugOf(error: BridgeError): string {
  return error.slug ?? error.code.toLowerCase().replace(/_/g, '-');
}
