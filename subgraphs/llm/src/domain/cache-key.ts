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

/**
 * JSON with every object's keys sorted (members whose value is undefined left out, as
 * JSON.stringify leaves them out), so equal requests serialise equally whatever their key
 * order. Written straight to the string: no sorted copy of the request is built first.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (value[i] === undefined ? 'null' : canonicalJson(value[i]));
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    let out = '{';
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Exact-match key over the normalised request, scoped to the agent so one customer's cached
 * answer is never served to another.
 */
export function chatCacheKey(agentCode: string, request: CacheableRequest): string {
  const normal = canonicalJson({
    model: request.model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content, name: m.name, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id })),
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    tools: request.tools,
    tool_choice: request.tool_choice,
    stop: request.stop,
    top_p: request.top_p,
  });
  const digest = hash('sha256', normal, 'base64url');
  return `llm:cache:${agentCode}:${digest}`;
}
