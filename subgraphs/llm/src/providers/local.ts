/**
 * The built-in `local` provider: deterministic, offline, no model weights. It lets the whole
 * platform (an analysis agent included) run without any API key, and makes tests reproducible:
 * the same request always gets the same answer (no randomness, no clock; `created` is 0).
 * `temperature`, `top_p` and `stop` are ignored.
 *
 * The answer is written by local-answer.ts (a tool call, a summary of tool results, JSON mode or
 * a plain summary), with the word heuristics of local-keywords.ts and the tool choice and
 * arguments of local-tool-call.ts. This file makes it a completion or a stream of chunks.
 *
 * Usage: prompt_tokens = Σ over messages of ceil(chars / 4) + 4 (chars of the text, tool call
 * names and arguments) plus ceil(chars / 4) of the tool definitions' JSON; completion_tokens as
 * local-answer.ts counts them.
 *
 * Streaming follows the OpenAI chunk protocol: a role chunk `{role:'assistant', content:''}`, one
 * content chunk per word (with its leading whitespace; the chunks concatenate to the full answer)
 * or, for a tool call, a `tool_calls` chunk with index/id/type/name and empty arguments followed by
 * argument fragments of up to 16 characters, then a chunk with an empty delta and the finish_reason,
 * then, when `include_usage`, a chunk with `choices: []` and usage.
 *
 * Embeddings: `localEmbedding` (feature hashing into 384 dimensions, see domain/local-embedding.ts),
 * for any model name; prompt tokens = Σ ceil(chars / 4).
 */
import { fnv1a32, localEmbedding } from '../domain/local-embedding.js';
import { textOf, type ChatCompletion, type ChatCompletionChunk, type FinishReason, type Provider, type UpstreamChatRequest, type Usage } from '../domain/openai-types.js';
import { callerAbortError } from './caller-abort.js';
import { localAnswer } from './local-answer.js';

export { LOCAL_EMBEDDING_DIMENSIONS } from '../domain/local-embedding.js';

export function createLocalProvider(): Provider {
  return {
    kind: 'local',

    async chat(request, signal) {
      if (signal.aborted) throw callerAbortError(signal);
      return localCompletion(request);
    },

    async *chatStream(request, signal) {
      for (const chunk of localChunks(request)) {
        if (signal.aborted) throw callerAbortError(signal);
        yield chunk;
      }
    },

    async embed(_model, input, signal) {
      if (signal.aborted) throw callerAbortError(signal);
      return {
        vectors: input.map((text) => localEmbedding(text)),
        promptTokens: input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0),
      };
    },
  };
}

export function localCompletion(request: UpstreamChatRequest): ChatCompletion {
  const answer = localAnswer(request);
  const message: ChatCompletion['choices'][number]['message'] =
    answer.kind === 'tool' ? { role: 'assistant', content: null, tool_calls: [answer.call] } : { role: 'assistant', content: answer.content };
  return {
    id: completionId(request),
    object: 'chat.completion',
    created: 0,
    model: request.model,
    choices: [{ index: 0, message, finish_reason: answer.finishReason, logprobs: null }],
    usage: usageOf(request, answer.completionTokens),
  };
}

export function localChunks(request: UpstreamChatRequest): ChatCompletionChunk[] {
  const answer = localAnswer(request);
  const base = { id: completionId(request), object: 'chat.completion.chunk' as const, created: 0, model: request.model };
  const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason = null): ChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const out: ChatCompletionChunk[] = [chunk({ role: 'assistant', content: '' })];
  if (answer.kind === 'tool') {
    const { id, function: fn } = answer.call;
    out.push(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: fn.name, arguments: '' } }] }));
    for (let i = 0; i < fn.arguments.length; i += 16) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: fn.arguments.slice(i, i + 16) } }] }));
  } else {
    for (const piece of answer.content.match(/\s*\S+/g) ?? []) out.push(chunk({ content: piece }));
  }
  out.push(chunk({}, answer.finishReason));
  if (request.include_usage) out.push({ ...base, choices: [], usage: usageOf(request, answer.completionTokens) });
  return out;
}

function usageOf(request: UpstreamChatRequest, completionTokens: number): Usage {
  const prompt = promptTokens(request);
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
}

/** Σ ceil(chars / 4) + 4 per message, plus ceil(chars / 4) of the tool definitions. */
export function promptTokens(request: Pick<UpstreamChatRequest, 'messages' | 'tools'>): number {
  let total = 0;
  for (const message of request.messages) {
    let chars = textOf(message.content).length;
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
    total += Math.ceil(chars / 4) + 4;
  }
  if (request.tools && request.tools.length > 0) total += Math.ceil(JSON.stringify(request.tools).length / 4);
  return total;
}

function completionId(request: UpstreamChatRequest): string {
  const key = JSON.stringify([request.model, request.messages, request.tools ?? null, request.tool_choice ?? null, request.max_tokens ?? null]);
  return `chatcmpl-local-${hex(fnv1a32(key))}`;
}

const hex = (n: number): string => n.toString(16).padStart(8, '0');
