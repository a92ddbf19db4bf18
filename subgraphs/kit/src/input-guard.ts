import { SvcError, type FieldProblem } from './errors.js';

/**
 * The platform's one rule for text and structure a client sends, applied once at every edge
 * (the bridge, the router, every subgraph's HTTP handler): no string may hold a NUL character
 * or an unpaired UTF-16 surrogate (PostgreSQL refuses both, and neither is text), and no JSON
 * document may nest deeper than {@link MAX_JSON_DEPTH} (deeper ones exhaust the stack when
 * they are serialised again).
 */
export const MAX_JSON_DEPTH = 64;

/** What is wrong with a string, or undefined when it is acceptable text. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (!value.isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The first bad string (value or key) in a parsed JSON value, as a JSON pointer below `pointer`. */
export function findBadText(value: unknown, pointer = ''): FieldProblem | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { pointer: pointer || '/', detail: problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], `${pointer}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return { pointer: `${pointer}/${escape(key)}`, detail: `its name ${keyProblem}` };
      const found = findBadText(inner, `${pointer}/${escape(key)}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** A 400 naming the bad field. */
export function badTextError(problem: FieldProblem, where = 'The request'): SvcError {
  return new SvcError('BAD_USER_INPUT', `${where} is not acceptable text at ${problem.pointer}: it ${problem.detail}`, { slug: 'invalid-text', errors: [problem] });
}

/** Throws a 400 naming the first bad string in `value`. */
export function checkText(value: unknown, pointer = '', where?: string): void {
  const problem = findBadText(value, pointer);
  if (problem) throw badTextError(problem, where);
}

/** Whether JSON text nests arrays and objects deeper than `max` (a scan outside strings; no parse). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a client's JSON: refuses nesting deeper than {@link MAX_JSON_DEPTH} before parsing,
 * invalid JSON, and bad text after; each a 400 saying what is wrong.
 */
export function parseClientJson(text: string): unknown {
  if (jsonTooDeep(text)) throw new SvcError('BAD_USER_INPUT', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`, { slug: 'too-deep' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SvcError('BAD_USER_INPUT', `Request body is not valid JSON: ${(error as Error).message}`, { slug: 'malformed-json' });
  }
  // Only an escape (\u0000, \ud800) or text that is not well formed can put a bad string in
  // the parsed value (JSON.parse refuses raw control characters): skip the walk otherwise.
  if (text.includes('\\u') || !text.isWellFormed()) checkText(value, '', 'The JSON body');
  return value;
}

const MIN_YEAR = 1;
const MAX_YEAR = 9999;

/** A date a client gave: refused (400 naming `field`) unless a real date in years 1-9999. */
export function checkDate(value: Date, field: string): Date {
  const year = value.getUTCFullYear();
  if (Number.isNaN(value.getTime()) || year < MIN_YEAR || year > MAX_YEAR) {
    throw new SvcError('BAD_USER_INPUT', `${field} must be a date between the years ${MIN_YEAR} and ${MAX_YEAR}`, { errors: [{ pointer: `/${field}`, detail: 'out of range' }] });
  }
  return value;
}
