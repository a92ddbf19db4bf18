// Selector specs of a crawl job: a CSS selector optionally followed by an extraction suffix.
//
//   "h3 > a"               text of the first match (default)
//   "h3 > a::text"         the same, explicit
//   "h3 > a::attr(href)"   the value of the `href` attribute of the first match
//   "::attr(href)" / ""    the row element itself (an empty CSS part, or `:scope`, means "the row")
//
// The suffix must be last and appear once; attribute names follow the HTML attribute name rules
// loosely (no whitespace, quotes, `>`, `/`, `=`). The CSS part itself is not validated here (the
// DOM does that when it is evaluated).

export type Extract = { kind: 'text' } | { kind: 'attr'; name: string };

export interface ParsedSelector {
  /** CSS part, trimmed; '' or ':scope' means the element the selector is evaluated within. */
  css: string;
  extract: Extract;
}

const ATTR_SUFFIX = /::attr\(\s*([^\s"'<>/=()]+)\s*\)\s*$/;
const TEXT_SUFFIX = /::text\s*$/;

/** Splits a selector spec into its CSS part and what to extract; throws on a malformed suffix. */
export function parseSelector(spec: string): ParsedSelector {
  const trimmed = spec.trim();
  const attr = ATTR_SUFFIX.exec(trimmed);
  let css: string;
  let extract: Extract;
  if (attr) {
    css = trimmed.slice(0, attr.index).trim();
    extract = { kind: 'attr', name: attr[1]!.toLowerCase() };
  } else if (TEXT_SUFFIX.test(trimmed)) {
    css = trimmed.replace(TEXT_SUFFIX, '').trim();
    extract = { kind: 'text' };
  } else {
    css = trimmed;
    extract = { kind: 'text' };
  }
  if (/::\s*(attr|text)\b/i.test(css)) {
    throw new Error(`selector "${spec}": ::attr(name) or ::text may only appear once, at the end`);
  }
  return { css, extract };
}

/**
 * The suffix a spec was written with, normalised: '' (implicit text), '::text' or '::attr(name)'.
 * Healing keeps it when it replaces the CSS part.
 */
export function specSuffix(spec: string): string {
  const { extract } = parseSelector(spec);
  if (extract.kind === 'attr') return `::attr(${extract.name})`;
  return TEXT_SUFFIX.test(spec.trim()) ? '::text' : '';
}

/** Rebuilds a spec from a CSS part and a suffix as returned by specSuffix. */
export function formatSelector(css: string, suffix: string): string {
  return `${css}${suffix}`;
}

/** Whether the CSS part designates the element the selector is evaluated within. */
export function isScopeSelf(css: string): boolean {
  return css === '' || css === ':scope';
}
