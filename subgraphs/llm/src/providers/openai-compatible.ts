/**
 * Provider for any OpenAI-compatible HTTP API (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio,
 * llama.cpp server, LiteLLM, ...), over undici: whole answers with `undici.request` (its global
 * dispatcher keeps a keep-alive pool per upstream origin, and writes a request's head and body in
 * one go, without fetch's web-stream machinery on the hot path); streams are read from its body.
 *
 * - Chat: POST `<baseUrl>/chat/completions`; embeddings: POST `<baseUrl>/embeddings`. The path is
 *   appended to the base URL's path and its query string is kept, so an Azure base URL such as
 *   `https://x.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-06-01` works
 *   (for Azure key auth pass `headers: { 'api-key': key }` instead of `apiKey`, which is sent as
 *   `Authorization: Bearer`).
 * - `top_p`, `stop`, `tools`, `max_tokens` are sent only when set; `tool_choice` only together
 *   with a non-empty `tools` (OpenAI rejects it otherwise).
 * - Streaming: `stream: true` (+ `stream_options.include_usage` when asked); the SSE stream ends at
 *   `[DONE]`. A usage block that an upstream attaches to a chunk that still has choices is moved to
 *   a separate final chunk with empty `choices`, as the `Provider` contract says.
 * - Timeouts: for `chat` and `embed` `timeoutMs` bounds the whole exchange; for `chatStream` it
 *   bounds the wait for the response headers and then every silence between two upstream chunks
 *   (an idle timeout), so long generations are not cut off. Time the consumer spends between two
 *   pulls does not count.
 * - Errors: see `classifyFailure`: HTTP errors, network errors and timeouts become
 *   `UpstreamError`s; an abort of the caller's signal is rethrown as the signal's reason (an
 *   AbortError `DOMException` unless the caller gave another reason), never as an UpstreamError.
 *
 * The transport helpers (`postJson`, `postSse`, ...) are exported for the Anthropic provider.
 */
import {
  UpstreamError,
  type ChatCompletion,
  type ChatCompletionChunk,
  type EmbeddingResult,
  type Provider,
  type UpstreamChatRequest,
  type Usage,
} from '../domain/openai-types.js';
import { parseSse, type SseEvent } from '../domain/sse.js';
import { request, type Dispatcher } from 'undici';

export interface OpenAiCompatibleOptions {
  /** E.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`; may carry a query string. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  timeoutMs: number;
  /** Extra headers for every request (e.g. `api-key` for Azure, `OpenAI-Organization`). */
  headers?: Record<string, string>;
}

export function createOpenAiCompatibleProvider(options: OpenAiCompatibleOptions): Provider {
  const chatUrl = joinUrl(options.baseUrl, '/chat/completions');
  const embeddingsUrl = joinUrl(options.baseUrl, '/embeddings');
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
  const { timeoutMs } = options;

  return {
    kind: 'openai-compatible',

    async chat(request, signal) {
      const body = await postJson({ url: chatUrl, headers, body: chatBody(request, false), timeoutMs, signal, label: 'chat completion' });
      return toChatCompletion(body, request.model);
    },

    async *chatStream(request, signal) {
      const events = postSse({ url: chatUrl, headers, body: chatBody(request, true), timeoutMs, signal, label: 'chat completion stream' });
      let id = '';
      let created = 0;
      let model = request.model;
      let pendingUsage: Usage | undefined;
      let usageSent = false;
      let finished = false;
      let done = false;
      for await (const event of events) {
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        const parsed = parseJsonData(event.data, 'chat completion stream');
        const error = upstreamErrorInBody(parsed, undefined);
        if (error) throw error;
        const chunk = parsed as Partial<ChatCompletionChunk>;
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        if (typeof chunk.id === 'string') id = chunk.id;
        if (typeof chunk.created === 'number') created = chunk.created;
        if (typeof chunk.model === 'string') model = chunk.model;
        if (choices.some((c) => c.finish_reason)) finished = true;
        const usage = isUsage(chunk.usage) ? chunk.usage : undefined;
        if (usage && choices.length > 0) {
          pendingUsage = usage;
          yield { ...chunk, object: 'chat.completion.chunk', choices, usage: null } as ChatCompletionChunk;
          continue;
        }
        if (usage) {
          usageSent = true;
          pendingUsage = undefined;
        }
        if (choices.length === 0 && !usage) continue; // keep-alive or vendor-specific metadata
        yield { ...chunk, object: 'chat.completion.chunk', choices } as ChatCompletionChunk;
      }
      if (!done && !finished) throw new UpstreamError('chat completion stream ended before completion', undefined, true);
      if (request.include_usage && pendingUsage && !usageSent) {
        yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage: pendingUsage };
      }
    },

    async embed(model, input, signal, dimensions) {
      const body = await postJson({ url: embeddingsUrl, headers, body: { model, input, ...(dimensions !== undefined ? { dimensions } : {}) }, timeoutMs, signal, label: 'embeddings' });
      return toEmbeddingResult(body, input.length);
    },
  };
}

/** The JSON body for `/chat/completions`; optional parameters only when set. */
export function chatBody(request: UpstreamChatRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages, temperature: request.temperature };
  if (request.max_tokens !== undefined) body['max_tokens'] = request.max_tokens;
  if (request.top_p !== undefined) body['top_p'] = request.top_p;
  if (request.stop !== undefined && (typeof request.stop === 'string' || request.stop.length > 0)) body['stop'] = request.stop;
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = request.tools;
    if (request.tool_choice !== undefined) body['tool_choice'] = request.tool_choice;
  }
  if (stream) {
    body['stream'] = true;
    if (request.include_usage) body['stream_options'] = { include_usage: true };
  }
  return body;
}

function toChatCompletion(body: unknown, model: string): ChatCompletion {
  const completion = body as Partial<ChatCompletion>;
  // A body that is not a completion is a broken upstream (502), never a charged answer.
  if (!Array.isArray(completion.choices) || completion.choices.length === 0) throw new UpstreamError('chat completion response has no choices', undefined, true);
  for (const choice of completion.choices as unknown[]) {
    const message = (choice as { message?: { content?: unknown; tool_calls?: unknown } } | null)?.message;
    const contentOk = message && (typeof message.content === 'string' || message.content === null || message.content === undefined);
    if (!message || typeof message !== 'object' || !contentOk || (message.tool_calls !== undefined && !Array.isArray(message.tool_calls))) {
      throw new UpstreamError('chat completion response has a malformed choice', undefined, true);
    }
  }
  return { ...completion, object: 'chat.completion', model: completion.model ?? model } as ChatCompletion;
}

function toEmbeddingResult(body: unknown, count: number): EmbeddingResult {
  const response = body as { data?: { index?: number; embedding?: unknown }[]; usage?: { prompt_tokens?: number } };
  if (!Array.isArray(response.data)) throw new UpstreamError('embeddings response has no data', undefined, true);
  const vectors = new Array<number[] | undefined>(count).fill(undefined);
  response.data.forEach((item, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    if (!Array.isArray(item.embedding) || index < 0 || index >= count) {
      throw new UpstreamError('embeddings response has an invalid item (base64 encoding is not supported)', undefined, false);
    }
    vectors[index] = item.embedding as number[];
  });
  if (vectors.some((v) => v === undefined)) throw new UpstreamError(`embeddings response has ${response.data.length} vectors for ${count} inputs`, undefined, true);
  return { vectors: vectors as number[][], promptTokens: response.usage?.prompt_tokens ?? 0 };
}

function isUsage(value: unknown): value is Usage {
  return typeof value === 'object' && value !== null && typeof (value as Usage).prompt_tokens === 'number';
}

// ---------------------------------------------------------------------------------------------
// Transport shared by the HTTP providers.
// ---------------------------------------------------------------------------------------------

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

/** POSTs the call's JSON body; an answer that is not 2xx becomes the upstream's HTTP error (its body read for the error's kind only). */
async function postUpstream(call: UpstreamCall, accept: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  const response = await request(call.url, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...call.headers }, body: JSON.stringify(call.body), signal });
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  throw upstreamHttpError(response.statusCode, text, headerReader(response.headers), call.label);
}

/** POSTs JSON and returns the parsed JSON answer; `timeoutMs` bounds the whole exchange. */
export async function postJson(call: UpstreamCall): Promise<unknown> {
  if (call.signal.aborted) throw callerAbortError(call.signal);
  const timeout = AbortSignal.timeout(call.timeoutMs);
  try {
    const response = await postUpstream(call, 'application/json', AbortSignal.any([call.signal, timeout]));
    const parsed = parseJsonData(await response.body.text(), call.label);
    const error = upstreamErrorInBody(parsed, response.statusCode);
    if (error) throw error;
    return parsed;
  } catch (error) {
    throw classifyFailure(error, call, timeout.aborted);
  }
}

/**
 * POSTs JSON and yields the SSE events of the answer. `timeoutMs` bounds the wait for the
 * headers and each silence between upstream chunks; returning early cancels the request.
 */
export async function* postSse(call: UpstreamCall): AsyncGenerator<SseEvent> {
  if (call.signal.aborted) throw callerAbortError(call.signal);
  const idle = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      idle.abort(new DOMException(`${call.label} timed out`, 'TimeoutError'));
    }, call.timeoutMs);
    timer.unref?.();
  };
  const disarm = (): void => clearTimeout(timer);
  arm();
  try {
    const response = await postUpstream(call, 'text/event-stream', AbortSignal.any([call.signal, idle.signal]));
    if (String(response.headers['content-type'] ?? '').includes('application/json')) {
      // Some servers answer a streaming request with a JSON error (or ignore `stream`).
      const parsed = parseJsonData(await response.body.text(), call.label);
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

/** The error to throw when the caller's signal aborted. */
export function callerAbortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('This operation was aborted', 'AbortError');
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
export function upstreamHttpError(status: number, text: string, headers: HeaderReader, label: string): UpstreamError {
  const kind = errorKindOf(text);
  return new UpstreamError(`${label}: HTTP ${status}${kind ? ` (${kind})` : ''}, ${Buffer.byteLength(text)} bytes of error body not shown`, status, isRetryableStatus(status), parseRetryAfter(headers));
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

/** Parses JSON from an upstream; garbage means a broken upstream (retryable). */
export function parseJsonData(text: string, label: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError(`${label}: upstream sent invalid JSON: ${text.slice(0, 200)}`, undefined, true);
  }
}
