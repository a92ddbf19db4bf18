import { textOf, type ChatMessage, type ToolDefinition } from './openai-types.js';

/**
 * Token estimate for providers that report no usage and for budget reservations:
 * ceil(characters / 4) per text, plus 4 per message for role and framing, plus 3 for the
 * reply priming. It overestimates common English slightly, which is the safe side for money.
 */
export function estimateTextTokens(text: string): number {
  return text ? Math.ceil(text.length / 4) : 0;
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
