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

/** A part of a partial answer that could not be read: where it is in the response body (a JSON pointer), its code and why. */
export interface PartProblem {
  pointer: string;
  code: string;
  detail: string;
}

/** The documented HTTP shapes of one service. */
export interface Envelope {
  success(payload: unknown, route: RouteSpec): Rendered;
  error(error: BridgeError, context: ErrorContext): Rendered;
  /**
   * A partial answer (partial.ts): the success shape with the parts that could not be read null
   * and listed in `errors`; undefined when the shape has no room for the list.
   */
  partial(payload: unknown, problems: readonly PartProblem[], route: RouteSpec): Rendered | undefined;
  /** Where the payload is in the success body, as a JSON pointer prefix (`/data`, or `` when the body is the payload). */
  payloadPointer: string;
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
