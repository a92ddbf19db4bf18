import { SvcError, type ErrorCode, type FieldProblem, type SvcErrorOptions } from './errors.js';

/**
 * OpenAI's error shape, `{error: {message, type, param, code}}`, for the model gateway's
 * clients. The gateway raises these errors as SvcErrors whose `details` carry `type`,
 * `param` and `openaiCode`; the bridge (GraphQL answers) and llm's SSE route (errors
 * mid-stream) render them with {@link openAiErrorBody} and {@link openAiStreamErrorBody}.
 */

export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'rate_limit_error' | 'insufficient_quota' | 'api_error';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error to render: a SvcError's extensions with its message, or what the bridge received. */
export interface OpenAiErrorSource {
  code: string;
  status: number;
  message: string;
  slug?: string;
  errors?: FieldProblem[];
  details?: Record<string, unknown>;
}

/** The `type` of errors that did not state one, by HTTP status. */
const TYPES: Record<number, OpenAiErrorType> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  409: 'invalid_request_error', 413: 'invalid_request_error', 415: 'invalid_request_error', 422: 'invalid_request_error',
  429: 'rate_limit_error', 502: 'api_error', 503: 'api_error',
};

const stated = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const body = (message: string, type: string, param: string | null, code: string | null): OpenAiErrorBody => ({ error: { message, type, param, code } });

/**
 * The error body of an answer. What the error states about itself wins; otherwise `type`
 * follows the status, `param` the first field problem, and `code` the key check (401) or the
 * error's slug or code.
 */
export function openAiErrorBody(error: OpenAiErrorSource): OpenAiErrorBody {
  const details = error.details ?? {};
  return body(
    error.message,
    stated(details.type) ?? TYPES[error.status] ?? 'api_error',
    stated(details.param) ?? error.errors?.[0]?.pointer.replace(/^\//, '').replace(/\//g, '.') ?? null,
    stated(details.openaiCode) ?? (error.status === 401 ? 'invalid_api_key' : (error.slug ?? error.code.toLowerCase())),
  );
}

/**
 * The `data: {"error": ...}` event of a stream that fails after its first byte: only what a
 * SvcError states (no param, nothing inferred); any other error is an internal one.
 */
export function openAiStreamErrorBody(error: unknown): OpenAiErrorBody {
  if (!(error instanceof SvcError)) return body('Internal server error', 'api_error', null, null);
  const details = (error.extensions.details ?? {}) as Record<string, unknown>;
  return body(error.message, stated(details.type) ?? 'api_error', null, stated(details.openaiCode) ?? null);
}

/**
 * A SvcError that OpenAI clients read as `{type, param, code}`; `options.details` adds public
 * members. An undefined `openaiCode` is left out of `details`, a null one kept (GraphQL clients
 * see it); openAiErrorBody infers a code for both.
 */
function openAiError(code: ErrorCode, message: string, type: OpenAiErrorType, param: string | null, openaiCode: string | null | undefined, options: SvcErrorOptions = {}): SvcError {
  return new SvcError(code, message, {
    ...options,
    details: { type, param, ...(openaiCode !== undefined ? { openaiCode } : {}), ...options.details },
  });
}

/** The kinds of OpenAI errors the model gateway answers with. */
export const openAiErrors = {
  /** 400 `invalid_request_error`, naming the offending parameter. */
  invalidRequest: (message: string, param: string | null = null, openaiCode?: string | null, options?: SvcErrorOptions) =>
    openAiError('BAD_USER_INPUT', message, 'invalid_request_error', param, openaiCode, options),
  /** 401 `invalid_api_key`: no key, or one the gateway does not know. */
  invalidApiKey: (message: string) => openAiError('UNAUTHENTICATED', message, 'invalid_request_error', null, 'invalid_api_key', { slug: 'invalid-api-key' }),
  /** 403 `permission_error`: a valid credential of the wrong kind. */
  permissionDenied: (message: string, openaiCode?: string) => openAiError('FORBIDDEN', message, 'permission_error', null, openaiCode),
  /** 404 `invalid_request_error` (OpenAI answers unknown models and objects so). */
  notFound: (message: string, param: string, openaiCode: string, options?: SvcErrorOptions) => openAiError('NOT_FOUND', message, 'invalid_request_error', param, openaiCode, options),
  /** 429 `insufficient_quota`: the agent's budget is spent. */
  insufficientQuota: (message: string, options?: SvcErrorOptions) => openAiError('BUDGET_EXCEEDED', message, 'insufficient_quota', null, 'insufficient_quota', options),
  /** 502 `upstream_error`, or 503 `upstream_rate_limited` when the provider throttled. */
  upstreamFailure: (message: string, rateLimited: boolean, retryAfter: number | undefined) =>
    openAiError(rateLimited ? 'UNAVAILABLE' : 'UPSTREAM_ERROR', message, 'api_error', null, rateLimited ? 'upstream_rate_limited' : 'upstream_error', { retryAfter }),
};
