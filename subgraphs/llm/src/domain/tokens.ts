import { countTokens } from 'gpt-tokenizer';
import { textOf, type ChatMessage, type ToolDefinition } from './openai-types.js';

/**
 * Token count for providers that report no usage: OpenAI's o200k_base BPE (gpt-tokenizer),
 * plus 4 per message for role and framing and 3 for the reply priming. Other model families
 * tokenise differently, so it only estimates (auto-routing by size, embeddings without
 * usage); charges and reservations use the bounds of prompt-bound.ts instead.
 */
export function estimateTextTokens(text: string): number {
  return text ? countTokens(text) : 0;
}

export function estimatePromptTokens(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number {
  let total = 3;
  for (const m of messages) {
    total += 4 + estimateTextTokens(textOf(m.content));
    for (const call of m.tool_calls ?? []) total += estimateTextTokens(call.function.name + call.function.arguments);
  }
  if (tools?.length) total += estimateTextTokens(JSON.stringify(tools));
  return total;
}

/** A prompt whose upper bound (prompt-bound.ts) is at most this is held at its bound against tokens-per-minute limits. */
export const SHORT_PROMPT_TOKENS = 1024;

/**
 * The prompt tokens a tokens-per-minute limit holds until the answer settles them to the billed
 * count: a short prompt's upper bound `bound` (never less than it is billed, and no tokenizing
 * on the request's path: it over-holds by at most {@link SHORT_PROMPT_TOKENS} for a moment), a
 * longer prompt's o200k estimate (its bound, one token per byte, would hold several times its
 * tokens and could refuse a request that fits).
 */
export function heldPromptTokens(bound: number, messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number {
  return bound <= SHORT_PROMPT_TOKENS ? bound : estimatePromptTokens(messages, tools);
}
