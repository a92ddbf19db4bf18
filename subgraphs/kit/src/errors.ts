import { GraphQLError } from 'graphql';

/**
 * The platform's one error vocabulary. Every subgraph raises these codes; the REST bridge
 * maps them to HTTP with {@link httpStatusOf}. Extra codes at the bottom are raised by the
 * bridge itself for HTTP-level problems (media types, body size).
 */
export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** An entity another subgraph referenced (an action's target) does not exist (any more). */
  ENTITY_NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 400,
  BUDGET_EXCEEDED: 429,
  RATE_LIMITED: 429,
  UPSTREAM_ERROR: 502,
  UNAVAILABLE: 503,
  /** Raised by the router: a subgraph did not answer (down, past its timeout, or 5xx); the rest of the answer stands. */
  SUBGRAPH_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
  NOT_ACCEPTABLE: 406,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  METHOD_NOT_ALLOWED: 405,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Apollo's own codes for a request the client got wrong (kept as they are, never masked). */
export const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE',
]);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** One invalid input field: a JSON pointer into the request and what is wrong with it. */
export interface FieldProblem {
  pointer: string;
  detail: string;
}

export interface SvcErrorOptions {
  /** Only for BAD_USER_INPUT: 422 when the input is well-formed but fails validation. */
  status?: 400 | 422;
  /** Machine-readable kind used in problem `type` URLs; defaults to the code in kebab case. */
  slug?: string;
  /** Short human title; defaults to the HTTP reason phrase of the status. */
  title?: string;
  /** Every offending field, for validation failures. */
  errors?: FieldProblem[];
  /** Seconds until a retry may succeed (RATE_LIMITED, BUDGET_EXCEEDED, UNAVAILABLE). */
  retryAfter?: number;
  /** Further public members copied into error bodies (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** A typed, caller-safe error: its message is shown to clients as it is. */
export class SvcError extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    const status = code === 'BAD_USER_INPUT' && options.status ? options.status : ERROR_STATUS[code];
    super(message, {
      originalError: options.cause instanceof Error ? options.cause : undefined,
      extensions: {
        code,
        status,
        ...(options.slug ? { slug: options.slug } : {}),
        ...(options.title ? { title: options.title } : {}),
        ...(options.errors ? { errors: options.errors } : {}),
        ...(options.retryAfter !== undefined ? { retryAfter: options.retryAfter } : {}),
        ...(options.details ? { details: options.details } : {}),
      },
    });
    this.name = 'SvcError';
    this.code = code;
    this.status = status;
  }
}

/** 422 with every offending field named. */
export function validationError(errors: FieldProblem[], message?: string): SvcError {
  const summary = message ?? `Validation failed: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`;
  return new SvcError('BAD_USER_INPUT', summary, { status: 422, slug: 'validation-failed', title: 'Validation Failed', errors });
}

export function httpStatusOf(code: unknown, declared?: unknown): number {
  if (typeof declared === 'number' && declared >= 400 && declared < 600) return declared;
  return isErrorCode(code) ? ERROR_STATUS[code] : 500;
}

/** For exhaustive switches: the compiler proves this is never reached. */
export class UnreachableCaseError extends Error {
  constructor(value: never) {
    super(`Unreachable case: ${JSON.stringify(value)}`);
  }
}
