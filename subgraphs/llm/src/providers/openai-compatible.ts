/**
 * Provider for any OpenAI-compatible HTTP API (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio,
 * llama.cpp server, LiteLLM, ...), over the shared upstream transport (upstream-http.ts:
 * undici, timeouts, error classification).
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
 *   (an idle timeout), so long generations are not cut off.
 * - Errors: HTTP errors, network errors and timeouts become `UpstreamError`s; an abort of the
 *   caller's signal is rethrown as the signal's reason, never as an UpstreamError.
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
import { joinUrl, parseJsonData, postJson, postSse, upstreamErrorInBody } from './upstream-http.js';

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
