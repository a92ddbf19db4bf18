/**
 * Provider for the Anthropic Messages API. Translation lives in `anthropic-translate.ts`; the HTTP
 * transport, timeouts and error classification are the shared upstream ones (upstream-http.ts:
 * 429, 408, 5xx including 529 "overloaded" are retryable; Retry-After is honoured).
 *
 * URL: `<baseUrl>/v1/messages`, or `<baseUrl>/messages` when the base URL already ends in `/v1`.
 * Headers: `x-api-key`, `anthropic-version` (default 2023-06-01).
 * Anthropic has no embeddings API: `embed` throws a non-retryable UpstreamError (400).
 */
import { UpstreamError, type Provider } from '../domain/openai-types.js';
import { AnthropicStreamTranslator, fromAnthropicResponse, toAnthropicRequest, type AnthropicResponse, type AnthropicStreamEvent } from './anthropic-translate.js';
import { joinUrl, parseJsonData, postJson, postSse } from './upstream-http.js';

export interface AnthropicOptions {
  /** Default `https://api.anthropic.com`. */
  baseUrl?: string;
  apiKey: string;
  timeoutMs: number;
  /** The `anthropic-version` header; default `2023-06-01`. */
  version?: string;
  /** Extra headers (e.g. `anthropic-beta`). */
  headers?: Record<string, string>;
}

export function createAnthropicProvider(options: AnthropicOptions): Provider {
  const base = options.baseUrl ?? 'https://api.anthropic.com';
  const url = joinUrl(base, /\/v1\/?$/.test(new URL(base).pathname) ? '/messages' : '/v1/messages');
  const headers: Record<string, string> = {
    ...options.headers,
    'x-api-key': options.apiKey,
    'anthropic-version': options.version ?? '2023-06-01',
  };
  const { timeoutMs } = options;
  const now = (): number => Math.floor(Date.now() / 1000);

  return {
    kind: 'anthropic',

    async chat(request, signal) {
      const body = await postJson({ url, headers, body: toAnthropicRequest(request), timeoutMs, signal, label: 'Anthropic messages' });
      const response = body as AnthropicResponse;
      if (typeof response !== 'object' || response === null || !Array.isArray(response.content)) {
        throw new UpstreamError('Anthropic messages: response has no content', undefined, true);
      }
      return fromAnthropicResponse(response, request.model, now());
    },

    async *chatStream(request, signal) {
      const translator = new AnthropicStreamTranslator({ model: request.model, created: now(), includeUsage: request.include_usage === true });
      const label = 'Anthropic messages stream';
      for await (const sse of postSse({ url, headers, body: toAnthropicRequest(request, true), timeoutMs, signal, label })) {
        const parsed = parseJsonData(sse.data, label) as Partial<AnthropicStreamEvent>;
        // The JSON carries `type`; fall back to the SSE event name.
        const event = { ...parsed, type: parsed.type ?? sse.event } as AnthropicStreamEvent;
        yield* translator.accept(event);
        if (translator.done) return;
      }
      translator.finish();
    },

    async embed() {
      throw new UpstreamError('Anthropic has no embeddings API', 400, false);
    },
  };
}
