/**
 * The HTTP transport the upstream providers share (OpenAI-compatible, Anthropic), over undici:
 * whole answers with `undici.request` (on the providers' own agent, a keep-alive pool per upstream
 * origin; it writes a request's head and body in one go, without fetch's web-stream machinery on
 * the hot path); streams are read from its body as server-sent events.
 *
 * - Timeouts: for `postJson` `timeoutMs` bounds the whole exchange; for `postSse` it bounds the
 *   wait for the response headers and then every silence between two upstream chunks (an idle
 *   timeout), so long generations are not cut off. Time the consumer spends between two pulls
 *   does not count.
 * - Errors: see `classifyFailure`: HTTP errors, network errors and timeouts become
 *   `UpstreamError`s; an abort of the caller's signal is rethrown as the signal's reason (an
 *   AbortError `DOMException` unless the caller gave another reason), never as an UpstreamError.
 *   Upstream error bodies are never passed on (they may quote the prompt): only their identifiers.
 * - Size: a whole answer is read up to {@link MAX_ANSWER_BYTES} (room for the largest embeddings
 *   answer OpenAI gives), an error body up to {@link MAX_ERROR_BODY_BYTES}; a larger one is not
 *   read further (its connection is closed), so a broken or hostile upstream cannot fill memory.
 */
import { Agent, request, type Dispatcher } from 'undici';

/**
 * The providers' own keep-alive pools (one per upstream origin), from the undici this package
 * depends on. Without it `request` uses the process's global dispatcher, which is Node's bundled
 * (older) undici once anything in the process has called `fetch`; this one costs less per request.
 */
const upstreamAgent = new Agent();
import { UpstreamError } from '../domain/openai-types.js';
import { parseSse, type SseEvent } from '../domain/sse.js';
import { callerAbortError } from './caller-abort.js';

/** `base` with `path` appended to its path, keeping its query string (`...?api-version=...`). */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url.toString();
}

export interface UpstreamCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  /** The caller's signal: its abort is propagated as is, never turned into an UpstreamError. */
  signal: AbortSignal;
  /** Names the operation in error messages. */
  label: string;
}

/** The most a whole upstream answer may be: 2,048 embeddings of 3,072 dimensions as JSON floats are about 130 MB. */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** The most of an error body read (for its error kind only). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * The answer's body as text when it is at most `maxBytes`, otherwise undefined (reading stops and
 * the connection is closed). A body with a Content-Length is read in one go (undici reads no more
 * than it declares); a chunked one is counted as it arrives.
 */
export function readAtMost(response: Dispatcher.ResponseData, maxBytes: number): Promise<string | undefined> {
  const declared = response.headers['content-length'];
  if (declared === undefined) return readChunked(response.body, maxBytes);
  if (Number(declared) <= maxBytes) return response.body.text();
  response.body.destroy();
  return Promise.resolve(undefined);
}

async function readChunked(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return void body.destroy();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** A whole answer's text; one over {@link MAX_ANSWER_BYTES} is a broken upstream (the next deployment is tried). */
function answerText(response: Dispatcher.ResponseData, label: string): Promise<string> {
  return readAtMost(response, MAX_ANSWER_BYTES).then((text) => {
    if (text === undefined) throw new UpstreamError(`${label}: upstream answer larger than ${MAX_ANSWER_BYTES} bytes, not read`, undefined, true);
    return text;
  });
}

/** POSTs the call's JSON body; an answer that is not 2xx becomes the upstream's HTTP error (its body read for the error's kind only). */
async function postUpstream(call: UpstreamCall, accept: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  const response = await request(call.url, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...call.headers }, body: JSON.stringify(call.body), signal, dispatcher: upstreamAgent });
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await readAtMost(response, MAX_ERROR_BODY_BYTES).catch(() => '');
  throw upstreamHttpError(response.statusCode, text, headerReader(response.headers), call.label);
}

/**
 * One signal for undici that aborts when the caller's does (with its reason) or when `abort` is
 * called; `release` detaches it from the caller's. A listener and a plain controller per request:
 * `AbortSignal.any` and `AbortSignal.timeout` cost several times more (weak references,
 * finalisation registries) on every call.
 */
function followCaller(caller: AbortSignal): { signal: AbortSignal; abort(reason: unknown): void; release(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(caller.reason);
  caller.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, abort: (reason) => controller.abort(reason), release: () => caller.removeEventListener('abort', onAbort) };
}

const timeoutError = (label: string) => new DOMException(`${label} timed out`, 'TimeoutError');

/** POSTs JSON and returns the parsed JSON answer; `timeoutMs` bounds the whole exchange. */
export async function postJson(call: UpstreamCall): Promise<unknown> {
  if (call.signal.aborted) throw callerAbortError(call.signal);
  const linked = followCaller(call.signal);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    linked.abort(timeoutError(call.label));
  }, call.timeoutMs);
  timer.unref();
  try {
    const response = await postUpstream(call, 'application/json', linked.signal);
    const parsed = parseJsonData(await answerText(response, call.label), call.label);
    const error = upstreamErrorInBody(parsed, response.statusCode);
    if (error) throw error;
    return parsed;
  } catch (error) {
    throw classifyFailure(error, call, timedOut);
  } finally {
    clearTimeout(timer);
    linked.release();
  }
}

/**
 * POSTs JSON and yields the SSE events of the answer. `timeoutMs` bounds the wait for the
 * headers and each silence between upstream chunks; returning early cancels the request.
 */
export async function* postSse(call: UpstreamCall): AsyncGenerator<SseEvent> {
  if (call.signal.aborted) throw callerAbortError(call.signal);
  const linked = followCaller(call.signal);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      linked.abort(timeoutError(call.label));
    }, call.timeoutMs);
    timer.unref?.();
  };
  const disarm = (): void => clearTimeout(timer);
  arm();
  try {
    const response = await postUpstream(call, 'text/event-stream', linked.signal);
    if (String(response.headers['content-type'] ?? '').includes('application/json')) {
      // Some servers answer a streaming request with a JSON error (or ignore `stream`).
      const parsed = parseJsonData(await answerText(response, call.label), call.label);
      throw upstreamErrorInBody(parsed, response.statusCode) ?? new UpstreamError(`${call.label}: upstream answered JSON instead of an event stream`, response.statusCode, false);
    }
    arm();
    for await (const event of parseSse(response.body)) {
      disarm();
      yield event;
      arm();
    }
  } catch (error) {
    throw classifyFailure(error, call, timedOut);
  } finally {
    disarm();
    linked.release();
  }
}

/**
 * Turns any failure into what the caller should see:
 * - the caller's signal aborted → the signal's reason (an AbortError unless the caller chose another),
 * - an UpstreamError → itself,
 * - our timeout → UpstreamError(retryable, no status),
 * - anything else (connection refused/reset, DNS, TLS, broken body) → UpstreamError(retryable, no status).
 */
export function classifyFailure(error: unknown, call: Pick<UpstreamCall, 'signal' | 'label' | 'timeoutMs'>, timedOut: boolean): unknown {
  if (call.signal.aborted) return callerAbortError(call.signal);
  if (error instanceof UpstreamError) return error;
  if (timedOut) return new UpstreamError(`${call.label} timed out after ${call.timeoutMs} ms`, undefined, true);
  return new UpstreamError(`${call.label} failed: ${describeNetworkError(error)}`, undefined, true);
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${error.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return error.message;
}

/**
 * Builds the UpstreamError for a non-2xx answer. Upstream error bodies often echo the request
 * (the prompt), so only the status, the error's type and code identifiers, the body's size and
 * Retry-After are kept: they reach logs and clients, the body never does.
 */
export function upstreamHttpError(status: number, text: string | undefined, headers: HeaderReader, label: string): UpstreamError {
  const kind = text === undefined ? undefined : errorKindOf(text);
  const size = text === undefined ? `over ${MAX_ERROR_BODY_BYTES}` : String(Buffer.byteLength(text));
  return new UpstreamError(`${label}: HTTP ${status}${kind ? ` (${kind})` : ''}, ${size} bytes of error body not shown`, status, isRetryableStatus(status), parseRetryAfter(headers));
}

/** What reading response headers needs: {@link headerReader} over undici's plain object (fetch's `Headers` fits too). */
export interface HeaderReader {
  get(name: string): string | null;
}

export function headerReader(headers: Record<string, string | string[] | undefined>): HeaderReader {
  return {
    get: (name) => {
      const value = headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** 408, 429 and 5xx (including Anthropic's 529 "overloaded") are worth retrying elsewhere. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

const IDENTIFIER = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The upstream error's identifiers, `type/code` (e.g. `invalid_request_error/context_length_exceeded`),
 * from bodies such as `{"error":{"type":...,"code":...}}` (OpenAI, Azure, Anthropic); never its
 * message, which may quote the request. Undefined when the body names none.
 */
export function errorKindOf(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text.trim());
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object') return undefined;
  const error = (body as Record<string, unknown>)['error'];
  const source = error && typeof error === 'object' ? (error as Record<string, unknown>) : (body as Record<string, unknown>);
  const parts = [source['type'], source['code']].filter((v): v is string | number => (typeof v === 'string' && IDENTIFIER.test(v)) || typeof v === 'number').map(String);
  return parts.length ? [...new Set(parts)].join('/') : undefined;
}

/**
 * An UpstreamError when a parsed 2xx body or stream event is an error object
 * (`{"error": {...}}`, Anthropic's `{"type": "error", ...}`), else undefined. Retryable when the
 * error's type/code says rate limit, overload, server error or timeout, or its numeric code is.
 */
export function upstreamErrorInBody(body: unknown, status: number | undefined): UpstreamError | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const raw = (body as { error: unknown }).error;
  if (raw === null || raw === undefined) return undefined;
  const error: Record<string, unknown> = typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const code = error['code'];
  const numeric = typeof code === 'number' && code >= 100 && code <= 599 ? code : undefined;
  const kind = `${typeof error['type'] === 'string' ? error['type'] : ''} ${typeof code === 'string' ? code : ''}`;
  const retryable = numeric !== undefined ? isRetryableStatus(numeric) : /rate_limit|overloaded|server_error|api_error|internal|timeout|unavailable/i.test(kind);
  // The error's message may quote the request: only its identifiers are kept.
  const identified = errorKindOf(JSON.stringify({ error }));
  return new UpstreamError(`upstream error${identified ? ` (${identified})` : ''} in a ${status ?? 'streamed'} answer`, numeric ?? status, retryable);
}

/** Milliseconds from `retry-after-ms` (OpenAI/Azure) or `Retry-After` (seconds or an HTTP date). */
export function parseRetryAfter(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Parses JSON from an upstream; garbage means a broken upstream (retryable). Like an error body, the text is never quoted: it may echo the prompt. */
export function parseJsonData(text: string, label: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError(`${label}: upstream sent invalid JSON (${Buffer.byteLength(text)} bytes, not shown)`, undefined, true);
  }
}
