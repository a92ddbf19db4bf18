import { textOf, type ChatMessage, type ToolDefinition } from './openai-types.js';
import { estimatePromptTokens } from './tokens.js';

export type RouteTier = 'fast-track' | 'deep-reasoning';

/** Prompts longer than this go to deep-reasoning. */
export const AUTO_ROUTE_PROMPT_TOKENS = 2000;

const REASONING_CUES = /\b(why|prove|proof|analy[sz]e|analysis|step[- ]by[- ]step|reason(ing)?|plan|strateg(y|ies)|compare|trade-?offs?|derive|root cause|diagnos(e|is)|evaluate|what if|simulat(e|ion)|forecast)\b/i;

/**
 * `auto-route`: deep-reasoning when the prompt is long (more than 2000 estimated tokens),
 * when tools are offered, or when the last user message asks for reasoning (why, analyse,
 * compare, plan, step by step, root cause, what if, forecast, ...); fast-track otherwise.
 */
export function autoRoute(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): { tier: RouteTier; reason: string } {
  if (tools?.length) return { tier: 'deep-reasoning', reason: 'tools offered' };
  const tokens = estimatePromptTokens(messages);
  if (tokens > AUTO_ROUTE_PROMPT_TOKENS) return { tier: 'deep-reasoning', reason: `prompt of ~${tokens} tokens` };
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const cue = lastUser ? REASONING_CUES.exec(textOf(lastUser.content)) : null;
  if (cue) return { tier: 'deep-reasoning', reason: `reasoning cue "${cue[0]}"` };
  return { tier: 'fast-track', reason: 'short prompt without reasoning cues' };
}
