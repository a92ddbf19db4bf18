import { JSDOM } from 'jsdom';
import { SvcError } from '@svc/kit';
import { MAX_SELECTOR } from '../contract.js';
import { parseSelector, type ParsedSelector } from './selector.js';

// The rules a crawl job's selector spec must pass (crawl-job-input.ts lists them): its length,
// its suffix, no other pseudo-elements, no leading combinator, and CSS that parses (jsdom).

const show = (value: unknown) => JSON.stringify(value) ?? String(value);
/** A selector spec for a message, shortened when long. */
export const quote = (spec: string) => show(spec.length > 80 ? `${spec.slice(0, 80)}…` : spec);

let cssDocument: Document | undefined;

/** Null when `css` parses as a CSS selector list, else the parser's complaint. */
function cssSyntaxError(css: string): string | null {
  cssDocument ??= new JSDOM('').window.document;
  try {
    cssDocument.querySelector(css);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Positions of `::` outside quotes, brackets and parentheses (CSS escapes skipped). */
function topLevelPseudoElements(css: string): number[] {
  const found: number[] = [];
  let quote: string | null = null;
  let depth = 0;
  for (let i = 0; i < css.length; i++) {
    const c = css[i]!;
    if (c === '\\') {
      i++;
    } else if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0 && c === ':' && css[i + 1] === ':') {
      found.push(i);
      i++;
    }
  }
  return found;
}

/** Splits a selector spec into CSS part and extraction; the problem with it, if any. */
/**
 * `row`: a list row (plain CSS); `element`: an element matched as a whole (a volatile selector:
 * plain CSS); `field`: CSS with an optional final `::text` or `::attr(name)`.
 */
export function analyseSelector(spec: string, role: 'row' | 'element' | 'field'): { parsed: ParsedSelector } | { problem: string } {
  const trimmed = spec.trim();
  if (trimmed.length > MAX_SELECTOR) return { problem: `must be at most ${MAX_SELECTOR} characters; got ${trimmed.length}` };
  let parsed: ParsedSelector;
  try {
    parsed = parseSelector(trimmed);
  } catch {
    return { problem: `::attr(name) or ::text may only appear once, at the end (e.g. "a::attr(href)")` };
  }
  const { css, extract } = parsed;
  if (/::\s*(attr|text)\b/i.test(css)) {
    return { problem: `::attr(name) or ::text may only appear once, at the end (e.g. "a::attr(href)")` };
  }
  const pseudo = topLevelPseudoElements(css);
  if (pseudo.length > 0) {
    const name = /^::[\w-]*/.exec(css.slice(pseudo[0]!))?.[0] ?? '::';
    return { problem: `${name} is not supported; only a final ::text or ::attr(name) may follow the CSS selector` };
  }
  if (role === 'row') {
    if (css !== trimmed) return { problem: `listRow selects the row elements, so it takes no ::text or ::attr() suffix` };
    if (css === '' || css === ':scope') return { problem: `listRow needs a CSS selector for the row elements` };
  }
  if (role === 'element') {
    if (css !== trimmed) return { problem: `a volatile selector names whole elements, so it takes no ::text or ::attr() suffix` };
    if (css === '' || css === ':scope') return { problem: `a volatile selector needs a CSS selector for the elements` };
  }
  if (css === '' || css === ':scope') return { parsed: { css, extract } };
  if (/^[>+~]/.test(css)) {
    return { problem: `a selector cannot start with a combinator; write ":scope ${css}" for children of the row` };
  }
  const syntax = cssSyntaxError(css);
  if (syntax !== null) return { problem: `${show(css)} is not a valid CSS selector (${syntax})` };
  return { parsed: { css, extract } };
}

/**
 * Splits a selector spec (`CSS`, `CSS::text`, `CSS::attr(name)`) into its CSS part and what to
 * extract, validating both; throws a 422 SvcError naming the spec when it is invalid.
 */
export function checkSelectorSpec(spec: string): ParsedSelector {
  if (typeof spec !== 'string') throw new SvcError('BAD_USER_INPUT', `selector must be a string; got ${show(spec)}`);
  const result = analyseSelector(spec, 'field');
  if ('problem' in result) throw new SvcError('BAD_USER_INPUT', `Invalid selector ${quote(spec)}: ${result.problem}`, { status: 422 });
  return result.parsed;
}
