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

/** `out` (an object's JSON so far, from its `{`) with the member `name` added, unless its value is undefined. */
const withMember = (out: string, name: string, json: string | undefined): string => (json === undefined ? out : `${out}${out.length > 1 ? ',' : ''}"${name}":${json}`);
const json = (value: unknown): string | undefined => (value === undefined ? undefined : canonicalJson(value));

/** A message's canonical JSON: its cache-relevant members, written in sorted order. */
function messageJson(m: ChatMessage): string {
  let out = withMember('{', 'content', json(m.content));
  out = withMember(out, 'name', json(m.name));
  out = withMember(out, 'role', json(m.role));
  out = withMember(out, 'tool_call_id', json(m.tool_call_id));
  return `${withMember(out, 'tool_calls', json(m.tool_calls))}}`;
}

/**
 * Exact-match key over the normalised request, scoped to the agent so one customer's cached
 * answer is never served to another. The request's and its messages' own members are written
 * in sorted order directly (the same text {@link canonicalJson} gives for them, without
 * building and sorting a copy on every request); the values inside go through canonicalJson.
 */
export function chatCacheKey(agentCode: string, request: CacheableRequest): string {
  let messages = '[';
  for (let i = 0; i < request.messages.length; i++) messages += (i ? ',' : '') + messageJson(request.messages[i]!);
  let out = withMember('{', 'max_tokens', json(request.max_tokens));
  out = withMember(out, 'messages', `${messages}]`);
  out = withMember(out, 'model', json(request.model));
  out = withMember(out, 'stop', json(request.stop));
  out = withMember(out, 'temperature', json(request.temperature));
  out = withMember(out, 'tool_choice', json(request.tool_choice));
  out = withMember(out, 'tools', json(request.tools));
  out = withMember(out, 'top_p', json(request.top_p));
  const digest = hash('sha256', `${out}}`, 'base64url');
  return `llm:cache:${agentCode}:${digest}`;
}
