/**
 * The local provider's tool call. When `tools` are given and `tool_choice` is not 'none', ONE tool
 * call is made:
 * - `tool_choice: {function: {name}}` or 'required': always (the named tool, or the best match);
 * - 'auto' (or unset): only when the last message is from the user and at least one tool shares
 *   a word with it; otherwise there is none (and the answer is text, local-answer.ts).
 * Best match: the tool sharing the most distinct words (lower-cased, stopwords removed, a plural
 * "s" stripped) with the last user message, a word of the tool's name (split on `_`, `-`, `.`
 * and camelCase) counting 2 and a word of its description 1; ties go to the tool listed first.
 * Arguments fill every property of the tool's JSON schema (`properties`, recursively):
 * - `const` → it; `enum` → the first value the message mentions, else the default, else the first;
 * - string → an explicit `name: value` / `name = value` / `name is value` in the message, else by
 *   format or name (uri/url/link → first URL, email → first e-mail address, date → first ISO
 *   date), else the default, else the next "quoted phrase" of the message, else the message's
 *   key phrase (the words of its first sentence without stopwords, at most 8);
 * - number/integer → an explicit `name: 42`, else the next number of the message (dates and URLs
 *   excluded), else the default, else the minimum, else 0; clamped to minimum/maximum, rounded
 *   for integers;
 * - boolean → an explicit `name: true|false`, else the default, else false;
 * - array → the default, else for string items the top 3 keywords, else [];
 * - object → its properties filled the same way (the default when it has none); null → null.
 * The tool call id is `call_` + a hash of the conversation and the call.
 */
import { fnv1a32 } from '../domain/local-embedding.js';
import type { ToolCall, ToolDefinition, UpstreamChatRequest } from '../domain/openai-types.js';
import { clip, firstSentence, isContentWord, lastUserText, STOPWORDS, stripEnd, topKeywords, wordsOf } from './local-keywords.js';

/** The tool call the request gets, if any (see the module comment). */
export function toolCallFor(request: UpstreamChatRequest): ToolCall | undefined {
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
  const id = `call_${hex8(fnv1a32(JSON.stringify([messages, tool.function.name, argumentsJson])))}`;
  return { id, type: 'function', function: { name: tool.function.name, arguments: argumentsJson } };
}

function splitName(name: string): string[] {
  return wordsOf(name.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' '));
}

function stem(word: string): string {
  let w = word.replace(/'s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
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

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');
