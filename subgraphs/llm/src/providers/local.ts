/**
 * The built-in `local` provider: deterministic, offline, no model weights. It lets the whole
 * platform (an analysis agent included) run without any API key, and makes tests reproducible:
 * the same request always gets the same answer (no randomness, no clock; `created` is 0).
 * `temperature`, `top_p` and `stop` are ignored.
 *
 * Chat answer, decided in this order:
 * 1. Tool call. When `tools` are given and `tool_choice` is not 'none', ONE tool call is emitted
 *    (finish_reason 'tool_calls', content null):
 *    - `tool_choice: {function: {name}}` or 'required': always (the named tool, or the best match);
 *    - 'auto' (or unset): only when the last message is from the user and at least one tool shares
 *      a word with it; otherwise the answer falls through to 2-4.
 *    Best match: the tool sharing the most distinct words (lower-cased, stopwords removed, a plural
 *    "s" stripped) with the last user message, a word of the tool's name (split on `_`, `-`, `.`
 *    and camelCase) counting 2 and a word of its description 1; ties go to the tool listed first.
 *    Arguments fill every property of the tool's JSON schema (`properties`, recursively):
 *    - `const` → it; `enum` → the first value the message mentions, else the default, else the first;
 *    - string → an explicit `name: value` / `name = value` / `name is value` in the message, else by
 *      format or name (uri/url/link → first URL, email → first e-mail address, date → first ISO
 *      date), else the default, else the next "quoted phrase" of the message, else the message's
 *      key phrase (the words of its first sentence without stopwords, at most 8);
 *    - number/integer → an explicit `name: 42`, else the next number of the message (dates and URLs
 *      excluded), else the default, else the minimum, else 0; clamped to minimum/maximum, rounded
 *      for integers;
 *    - boolean → an explicit `name: true|false`, else the default, else false;
 *    - array → the default, else for string items the top 3 keywords, else [];
 *    - object → its properties filled the same way (the default when it has none); null → null.
 *    The tool call id is `call_` + a hash of the conversation and the call.
 * 2. Tool result. When the last message(s) are `tool` results, a short summary per result:
 *    `Result of <tool>: <facts>. Figures: <up to 5 numbers>.` where facts are, for JSON content,
 *    its first scalar fields (`key: value`, arrays as "N items"), else its first 3 non-empty lines.
 * 3. JSON mode. When a system/developer message contains the word "JSON" (any case), the answer
 *    is a JSON object `{"summary": <summary>, "keyPoints": [<top 5 keywords>], "confidence": 0.5}`,
 *    where summary/keywords come from the tool results of 2 if any, else from the last user message.
 * 4. Otherwise: `Summary: <first sentence of the last user message>. Key points: <top 5 keywords>.`
 *    Keywords: lower-cased words of at least 2 letters without stopwords and pure numbers, by
 *    frequency, ties by first appearance.
 *
 * Tokens: `max_tokens` counts whitespace-separated words; a longer text answer is cut after that
 * many words with finish_reason 'length' (a JSON answer may then be invalid JSON, as with a real
 * model). Tool calls are never cut. Usage: prompt_tokens = Σ over messages of ceil(chars / 4) + 4
 * (chars of the text, tool call names and arguments) plus ceil(chars / 4) of the tool definitions'
 * JSON; completion_tokens = the number of words of the answer (so never above max_tokens), or
 * ceil(chars / 4) of a tool call's name and arguments.
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
import {
  textOf,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatMessage,
  type FinishReason,
  type Provider,
  type ToolCall,
  type ToolDefinition,
  type UpstreamChatRequest,
  type Usage,
} from '../domain/openai-types.js';
import { callerAbortError } from './caller-abort.js';

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

// ---------------------------------------------------------------------------------------------
// The answer.
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Text helpers.
// ---------------------------------------------------------------------------------------------

const STOPWORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below between both but by
  can can't cannot could couldn't did didn't do does doesn't doing don't down during each either else etc even ever every few for
  from further get gets got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
  how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let let's like many may me might more most much
  must mustn't my myself need no nor not now of off on once one only or other ought our ours ourselves out over own please per
  rather same say says shall shan't she she'd she'll she's should shouldn't show so some such than that that's the their theirs them
  themselves then there there's these they they'd they'll they're they've this those though through thus to too under until up
  upon us use used using very via was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether
  which while who who's whom whose why why's will with within without won't would wouldn't yes yet you you'd you'll you're you've
  your yours yourself yourselves tell give make want know find`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

const isContentWord = (w: string): boolean => w.length >= 2 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w);

/** The `n` most frequent content words, ties by first appearance. */
export function topKeywords(text: string, n: number): string[] {
  const counts = new Map<string, number>();
  for (const w of wordsOf(text)) if (isContentWord(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .map(([word, count], order) => ({ word, count, order }))
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .slice(0, n)
    .map((e) => e.word);
}

/** The first sentence (at most 40 words) without its final punctuation. */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?=\s|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index) : flat;
  return stripEnd(sentence.split(' ').slice(0, 40).join(' '));
}

const stripEnd = (text: string): string => text.replace(/[\s.!?:;,]+$/u, '');

function stem(word: string): string {
  let w = word.replace(/'s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
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

function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return textOf(messages[i]!.content);
  return '';
}

// ---------------------------------------------------------------------------------------------
// Tool results.
// ---------------------------------------------------------------------------------------------

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

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

// ---------------------------------------------------------------------------------------------
// Tool calls.
// ---------------------------------------------------------------------------------------------

function toolCallFor(request: UpstreamChatRequest): ToolCall | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return undefined;
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const userText = lastUserText(messages);

  let tool: ToolDefinition | undefined;
  if (typeof choice === 'object') {
    tool = tools.find((t) => t.function.name === choice.function.name);
    if (!tool) return undefined;
  } else {
    const scored = tools.map((t) => ({ t, score: toolScore(t, userText) }));
    const best = scored.reduce((a, b) => (b.score > a.score ? b : a));
    if (choice === 'required') tool = best.t;
    else if (last?.role === 'user' && best.score > 0) tool = best.t;
    else return undefined;
  }

  const args = fillObject(tool.function.parameters ?? {}, argumentContext(userText), 0);
  const argumentsJson = JSON.stringify(args);
  const id = `call_${hex(fnv1a32(JSON.stringify([messages, tool.function.name, argumentsJson])))}`;
  return { id, type: 'function', function: { name: tool.function.name, arguments: argumentsJson } };
}

function splitName(name: string): string[] {
  return wordsOf(name.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' '));
}

function toolScore(tool: ToolDefinition, userText: string): number {
  const user = new Set(wordsOf(userText).filter(isContentWord).map(stem));
  const nameWords = new Set(splitName(tool.function.name).filter(isContentWord).map(stem));
  const descriptionWords = new Set(wordsOf(tool.function.description ?? '').filter(isContentWord).map(stem));
  let score = 0;
  for (const w of user) {
    if (nameWords.has(w)) score += 2;
    else if (descriptionWords.has(w)) score += 1;
  }
  return score;
}

interface ArgumentContext {
  message: string;
  numbers: number[];
  quoted: string[];
  keywords: string[];
  phrase: string;
}

function argumentContext(message: string): ArgumentContext {
  const withoutUrlsAndDates = message.replace(/https?:\/\/\S+/g, ' ').replace(/\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?/g, ' ');
  const numbers = (withoutUrlsAndDates.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  const quoted = [...message.matchAll(/"([^"]+)"|“([^”]+)”|'([^']{2,})'/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  const phraseWords = wordsOf(firstSentence(message)).filter((w) => !STOPWORDS.has(w)).slice(0, 8);
  return {
    message,
    numbers,
    quoted,
    keywords: topKeywords(message, 3),
    phrase: phraseWords.length > 0 ? phraseWords.join(' ') : clip(message.trim(), 100),
  };
}

type Schema = Record<string, unknown>;

function fillObject(schema: Schema, ctx: ArgumentContext, depth: number): Record<string, unknown> {
  const properties = schema['properties'];
  const out: Record<string, unknown> = {};
  if (typeof properties !== 'object' || properties === null || depth > 4) return out;
  for (const [name, sub] of Object.entries(properties as Record<string, unknown>)) {
    out[name] = fillValue(name, typeof sub === 'object' && sub !== null ? (sub as Schema) : {}, ctx, depth + 1);
  }
  return out;
}

function typeOf(schema: Schema): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') as string | undefined) ?? 'null';
  if (schema['properties']) return 'object';
  if (schema['items']) return 'array';
  return 'string';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The value written after `name:` / `name =` / `name is` in the message (camelCase/snake_case also as spaced words). */
function explicitValue(name: string, message: string): string | undefined {
  const spaced = splitName(name).join('[\\s_-]*');
  const names = [escapeRegExp(name), spaced].filter((n) => n !== '');
  for (const n of names) {
    const match = new RegExp(`(?<![\\p{L}\\p{N}])${n}\\s*(?:[:=]|\\bis\\b)\\s*(?:"([^"]*)"|'([^']*)'|([^\\s,;]+))`, 'iu').exec(message);
    if (match) return stripEnd(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return undefined;
}

function fillValue(name: string, schema: Schema, ctx: ArgumentContext, depth: number): unknown {
  if ('const' in schema) return schema['const'];
  const def = schema['default'];
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) {
    const lower = ctx.message.toLowerCase();
    const mentioned = enumValues.find((v) => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(String(v).toLowerCase())}(?![\\p{L}\\p{N}])`, 'u').test(lower));
    if (mentioned !== undefined) return mentioned;
    return enumValues.includes(def) ? def : enumValues[0];
  }
  const explicit = explicitValue(name, ctx.message);
  switch (typeOf(schema)) {
    case 'string': {
      if (explicit !== undefined && explicit !== '') return explicit;
      const hint = `${String(schema['format'] ?? '')} ${name}`.toLowerCase();
      const url = /ur[il]|link|href|website/.test(hint) ? /https?:\/\/[^\s"'<>]+/.exec(ctx.message)?.[0]?.replace(/[.,;:!?)\]]+$/, '') : undefined;
      if (url) return url;
      const email = /e-?mail/.test(hint) ? /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(ctx.message)?.[0] : undefined;
      if (email) return email;
      const date = /date|day|since|until/.test(hint) ? /\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?/.exec(ctx.message)?.[0] : undefined;
      if (date) return date;
      if (typeof def === 'string') return def;
      const quoted = ctx.quoted.shift();
      if (quoted !== undefined) return quoted;
      return ctx.phrase;
    }
    case 'number':
    case 'integer': {
      const integer = typeOf(schema) === 'integer';
      let value: number;
      const parsed = explicit !== undefined ? Number(explicit) : Number.NaN;
      if (!Number.isNaN(parsed)) value = parsed;
      else if (ctx.numbers.length > 0) value = ctx.numbers.shift()!;
      else if (typeof def === 'number') value = def;
      else if (typeof schema['minimum'] === 'number') value = schema['minimum'];
      else if (typeof schema['exclusiveMinimum'] === 'number') value = schema['exclusiveMinimum'] + (integer ? 1 : 0);
      else value = 0;
      if (typeof schema['minimum'] === 'number') value = Math.max(value, schema['minimum']);
      if (typeof schema['maximum'] === 'number') value = Math.min(value, schema['maximum']);
      return integer ? Math.round(value) : value;
    }
    case 'boolean': {
      if (explicit !== undefined && /^(true|false)$/i.test(explicit)) return explicit.toLowerCase() === 'true';
      return typeof def === 'boolean' ? def : false;
    }
    case 'array': {
      if (Array.isArray(def)) return def;
      const items = schema['items'];
      const itemSchema = typeof items === 'object' && items !== null && !Array.isArray(items) ? (items as Schema) : {};
      if (typeOf(itemSchema) === 'string' && !Array.isArray(itemSchema['enum'])) return ctx.keywords;
      return [];
    }
    case 'object': {
      if (schema['properties']) return fillObject(schema, ctx, depth);
      return typeof def === 'object' && def !== null ? def : {};
    }
    case 'null':
      return null;
    default:
      return def ?? null;
  }
}
