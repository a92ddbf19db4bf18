import { detectPii, type Span } from './detectors.js';
import { PiiMaskingError, PLACEHOLDER_RE, placeholderFor, stateOf, type PiiKind, type PiiVault, type VaultState } from './vault.js';

/** Replaces every detected value with a placeholder like `[EMAIL_1]`, `[CARD_2]` (kind + per-kind counter) and records it in the vault. */
export function maskPii(text: string, vault: PiiVault): string {
  return maskWithContext(text, vault, '');
}

/**
 * Literal placeholders the vault issued are masked again (so they round-trip); any other
 * placeholder-shaped text is reserved, so the vault never issues it.
 */
function knownPlaceholders(text: string, state: VaultState): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    if (state.byPlaceholder.has(m[0])) spans.push({ start: m.index, end: m.index + m[0].length, kind: m[1] as PiiKind });
    else state.reserved.add(m[0]);
  }
  return spans;
}

function maskWithContext(text: string, vault: PiiVault, context: string): string {
  const state = stateOf(vault);
  if (typeof text !== 'string') throw new PiiMaskingError(`cannot mask a ${typeof text}`);
  try {
    let out = '';
    let pos = 0;
    for (const span of detectPii(text, knownPlaceholders(text, state), context)) {
      if (span.start < pos) throw new PiiMaskingError('overlapping detections');
      out += text.slice(pos, span.start);
      const original = text.slice(span.start, span.end);
      out += span.kind === null ? original : placeholderFor(state, span.kind, original);
      pos = span.end;
    }
    return out + text.slice(pos);
  } catch (error) {
    if (error instanceof PiiMaskingError) throw error;
    throw new PiiMaskingError(`masking failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Content part types that carry no text to mask (binary media or a URL to it); passed through. */
const MEDIA_PART_TYPES = new Set(['image_url', 'input_audio']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function maskContent(content: unknown, vault: PiiVault, where: string): unknown {
  if (content === null || content === undefined) return content;
  if (typeof content === 'string') return maskPii(content, vault);
  if (!Array.isArray(content)) throw new PiiMaskingError(`${where}.content has an unsupported shape (${typeof content})`);
  return content.map((part: unknown, i) => {
    const at = `${where}.content[${i}]`;
    if (!isRecord(part)) throw new PiiMaskingError(`${at} is not a content part`);
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new PiiMaskingError(`${at}.text is not a string`);
      return { ...part, text: maskPii(part.text, vault) };
    }
    if (part.type === 'refusal') {
      if (typeof part.refusal !== 'string') throw new PiiMaskingError(`${at}.refusal is not a string`);
      return { ...part, refusal: maskPii(part.refusal, vault) };
    }
    if (typeof part.type === 'string' && MEDIA_PART_TYPES.has(part.type)) return part;
    throw new PiiMaskingError(`${at} has an unsupported type (${String(part.type)})`);
  });
}

/** Masks the string values (and numbers) inside JSON text; plain-text masking if it is not JSON. */
function maskJsonText(raw: string, vault: PiiVault): string {
  try {
    JSON.parse(raw);
  } catch {
    return maskPii(raw, vault);
  }
  // Valid JSON: visit string and number tokens, so that escapes (`\n`, `\u0040`) are decoded
  // before detection and placeholders never land inside an escape sequence. The JSON before a
  // token is its context, so `{"phone": "5551234567"}` is recognised by its key. A masked number
  // becomes a JSON string.
  return raw.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?/g, (token: string, offset: number) => {
    const context = raw.slice(Math.max(0, offset - 40), offset);
    const value = token.startsWith('"') ? (JSON.parse(token) as string) : token;
    const masked = maskWithContext(value, vault, context);
    return masked === value ? token : JSON.stringify(masked);
  });
}

/**
 * Masks every text part of OpenAI chat messages (string content and `{type:'text', text}` parts;
 * also tool call arguments), returning new message objects. Throws PiiMaskingError when it cannot
 * process a message (e.g. content of an unknown shape that may contain text), so callers fail closed.
 */
export function maskMessages<M extends { content: unknown; tool_calls?: { function: { arguments: string } }[] }>(messages: M[], vault: PiiVault): M[] {
  stateOf(vault);
  if (!Array.isArray(messages)) throw new PiiMaskingError('messages is not an array');
  return messages.map((message: unknown, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(message)) throw new PiiMaskingError(`${where} is not an object`);
    const out: Record<string, unknown> = { ...message };
    if ('content' in message) out.content = maskContent(message.content, vault, where);
    if (message.tool_calls !== undefined && message.tool_calls !== null) {
      if (!Array.isArray(message.tool_calls)) throw new PiiMaskingError(`${where}.tool_calls is not an array`);
      out.tool_calls = message.tool_calls.map((call: unknown, j) => {
        const at = `${where}.tool_calls[${j}]`;
        if (!isRecord(call) || !isRecord(call.function)) throw new PiiMaskingError(`${at} has no function`);
        if (typeof call.function.arguments !== 'string') throw new PiiMaskingError(`${at}.function.arguments is not a string`);
        return { ...call, function: { ...call.function, arguments: maskJsonText(call.function.arguments, vault) } };
      });
    }
    return out as M;
  });
}
