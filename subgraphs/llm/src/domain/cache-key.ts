import { hash } from 'node:crypto';
import type { ChatMessage, ToolChoice, ToolDefinition } from './openai-types.js';

export interface CacheableRequest {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  max_tokens?: number;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  stop?: string | string[];
  top_p?: number;
}

/** Sorts object keys so equal requests serialise equally. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined).map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/**
 * Exact-match key over the normalised request, scoped to the agent so one customer's cached
 * answer is never served to another.
 */
export function chatCacheKey(agentCode: string, request: CacheableRequest): string {
  const normal = canonical({
    model: request.model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content, name: m.name, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id })),
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    tools: request.tools,
    tool_choice: request.tool_choice,
    stop: request.stop,
    top_p: request.top_p,
  });
  const digest = hash('sha256', JSON.stringify(normal), 'base64url');
  return `llm:cache:${agentCode}:${digest}`;
}
