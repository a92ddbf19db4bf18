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
