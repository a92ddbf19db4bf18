import { UpstreamError, type ChatCompletion, type ChatCompletionChunk } from '../domain/openai-types.js';

// Streamed answers: a cached completion replayed as chunks, and an upstream stream opened up to its first token.

/** Replays a stored completion as the chunks a stream would have produced. */
export async function* replay(completion: ChatCompletion, includeUsage: boolean): AsyncGenerator<ChatCompletionChunk> {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const choice = completion.choices[0];
  yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
  const content = choice?.message.content ?? '';
  for (let i = 0; i < content.length; i += 64) yield { ...base, choices: [{ index: 0, delta: { content: content.slice(i, i + 64) }, finish_reason: null }] };
  if (choice?.message.tool_calls?.length) {
    yield { ...base, choices: [{ index: 0, delta: { tool_calls: choice.message.tool_calls.map((t, index) => ({ index, ...t })) }, finish_reason: null }] };
  }
  yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: choice?.finish_reason ?? 'stop' }] };
  if (includeUsage) yield { ...base, choices: [], usage: completion.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
}

/** An upstream stream up to its first token: the chunks read so far, and the rest. */
export interface OpenedStream {
  head: ChatCompletionChunk[];
  rest: AsyncIterator<ChatCompletionChunk>;
}

/** The text a chunk carries to the client: content and tool-call names and arguments. */
export function textOfChunk(chunk: ChatCompletionChunk): string {
  let text = '';
  for (const c of chunk.choices) {
    if (typeof c.delta.content === 'string') text += c.delta.content;
    for (const call of c.delta.tool_calls ?? []) text += (call.function?.name ?? '') + (call.function?.arguments ?? '');
  }
  return text;
}

/** A chunk the client can tell from nothing: content, a tool call, a finish reason or usage (not a bare role announcement). */
const carriesToken = (chunk: ChatCompletionChunk) => !!chunk.usage || chunk.choices.some((c) => !!c.finish_reason || !!c.delta.content || !!c.delta.tool_calls?.length);

/**
 * Reads an upstream stream until its first token. A stream that fails or ends before it
 * throws here, while nothing has reached the client, so the caller falls back to the next
 * deployment exactly as for a whole answer; an empty stream is a broken upstream.
 */
export async function openUntilFirstToken(stream: AsyncIterable<ChatCompletionChunk>): Promise<OpenedStream> {
  const rest = stream[Symbol.asyncIterator]();
  const head: ChatCompletionChunk[] = [];
  try {
    for (;;) {
      const step = await rest.next();
      if (step.done) throw new UpstreamError('chat completion stream ended before its first token', undefined, true);
      head.push(step.value);
      if (carriesToken(step.value)) return { head, rest };
    }
  } catch (error) {
    await rest.return?.().catch(() => undefined);
    throw error;
  }
}
