/**
 * The local provider's answer to a request, decided in this order:
 * 1. Tool call: when the request's tools and tool_choice call for one (local-tool-call.ts), ONE
 *    tool call (finish_reason 'tool_calls', content null).
 * 2. Tool result. When the last message(s) are `tool` results, a short summary per result:
 *    `Result of <tool>: <facts>. Figures: <up to 5 numbers>.` where facts are, for JSON content,
 *    its first scalar fields (`key: value`, arrays as "N items"), else its first 3 non-empty lines.
 * 3. JSON mode. When a system/developer message contains the word "JSON" (any case), the answer
 *    is a JSON object `{"summary": <summary>, "keyPoints": [<top 5 keywords>], "confidence": 0.5}`,
 *    where summary/keywords come from the tool results of 2 if any, else from the last user message.
 * 4. Otherwise: `Summary: <first sentence of the last user message>. Key points: <top 5 keywords>.`
 *    Keywords: see local-keywords.ts.
 *
 * `max_tokens` counts whitespace-separated words; a longer text answer is cut after that many
 * words with finish_reason 'length' (a JSON answer may then be invalid JSON, as with a real
 * model). Tool calls are never cut. Completion tokens: the number of words of the answer (so never
 * above max_tokens), or ceil(chars / 4) of a tool call's name and arguments.
 */
import { textOf, type ChatMessage, type ToolCall, type UpstreamChatRequest } from '../domain/openai-types.js';
import { clip, firstSentence, lastUserText, stripEnd, topKeywords } from './local-keywords.js';
import { toolCallFor } from './local-tool-call.js';

export type LocalAnswer =
  | { kind: 'text'; content: string; finishReason: 'stop' | 'length'; completionTokens: number }
  | { kind: 'tool'; call: ToolCall; finishReason: 'tool_calls'; completionTokens: number };

/** The deterministic answer to a request (see the module comment). */
export function localAnswer(request: UpstreamChatRequest): LocalAnswer {
  const messages = request.messages;
  const call = toolCallFor(request);
  if (call) {
    return { kind: 'tool', call, finishReason: 'tool_calls', completionTokens: Math.ceil((call.function.name.length + call.function.arguments.length) / 4) };
  }

  const results = trailingToolResults(messages);
  const userText = lastUserText(messages);
  let summary: string;
  let keywords: string[];
  if (results.length > 0) {
    summary = results.map((r) => summariseToolResult(r.name, r.content)).join(' ');
    keywords = topKeywords(results.map((r) => r.content).join('\n'), 5);
  } else {
    const sentence = firstSentence(userText);
    summary = sentence === '' ? 'No user message' : sentence;
    keywords = topKeywords(userText, 5);
  }

  let text: string;
  if (wantsJson(messages)) {
    text = JSON.stringify({ summary: stripEnd(summary), keyPoints: keywords, confidence: 0.5 });
  } else if (results.length > 0) {
    text = summary;
  } else {
    text = `Summary: ${summary}. Key points: ${keywords.length > 0 ? keywords.join(', ') : 'none'}.`;
  }

  const { content, truncated } = truncateWords(text, request.max_tokens);
  return { kind: 'text', content, finishReason: truncated ? 'length' : 'stop', completionTokens: countWords(content) };
}

const countWords = (text: string): number => (text.match(/\S+/g) ?? []).length;

function truncateWords(text: string, maxTokens: number | undefined): { content: string; truncated: boolean } {
  if (maxTokens === undefined) return { content: text, truncated: false };
  const limit = Math.max(0, Math.floor(maxTokens));
  let seen = 0;
  for (const match of text.matchAll(/\S+/g)) {
    if (seen === limit) return { content: text.slice(0, match.index).trimEnd(), truncated: true };
    seen++;
  }
  return { content: text, truncated: false };
}

function wantsJson(messages: ChatMessage[]): boolean {
  return messages.some((m) => (m.role === 'system' || m.role === 'developer') && /\bjson\b/i.test(textOf(m.content)));
}

function trailingToolResults(messages: ChatMessage[]): { name: string; content: string }[] {
  const out: { name: string; content: string }[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    const message = messages[i]!;
    out.unshift({ name: toolNameOf(messages, message), content: textOf(message.content) });
  }
  return out;
}

function toolNameOf(messages: ChatMessage[], result: ChatMessage): string {
  if (result.name) return result.name;
  for (const message of messages) {
    const call = message.tool_calls?.find((c) => c.id === result.tool_call_id);
    if (call) return call.function.name;
  }
  return 'the tool';
}

function summariseToolResult(name: string, content: string): string {
  const facts = factsOf(content);
  const numbers = [...new Set(content.match(/-?\d+(?:\.\d+)?%?/g) ?? [])].slice(0, 5);
  return `Result of ${name}: ${facts === '' ? '(empty)' : stripEnd(facts)}.${numbers.length > 0 ? ` Figures: ${numbers.join(', ')}.` : ''}`;
}

function factsOf(content: string): string {
  const trimmed = content.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      return describeJson(JSON.parse(trimmed) as unknown);
    } catch {
      // Not JSON after all.
    }
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 3)
    .map((line) => clip(line, 160))
    .join(' / ');
}

function describeJson(value: unknown): string {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    const head = `${value.length} items`;
    return typeof first === 'object' && first !== null && !Array.isArray(first) ? `${head}, first: ${describeJson(first)}` : head;
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .slice(0, 6)
      .map(([key, v]) => `${key}: ${Array.isArray(v) ? `${v.length} items` : typeof v === 'object' && v !== null ? '{…}' : clip(String(v), 60)}`)
      .join('; ');
  }
  return clip(String(value), 160);
}
