/// <reference types="jsdom" />
// Extraction of list items from a parsed page (a `new JSDOM(html, { url })` document; scripts
// never run).
//
// - `listRow` is evaluated against the document (`querySelectorAll`); every other field selector
//   is evaluated WITHIN each row: `row.querySelector(css)`, or the row itself when the CSS part is
//   empty or `:scope` (e.g. `::attr(href)` on rows that are links themselves).
// - Text extraction is the element's `textContent` with whitespace collapsed and trimmed; attribute
//   extraction is `getAttribute(name)`, trimmed. Empty values become null.
// - `publishedAt` is kept raw (parsing dates is someone else's job), except that when the matched
//   element is a `<time>` with a non-empty `datetime` attribute and the spec extracts text, the
//   `datetime` attribute is preferred (it is machine-readable where the text is not).
// - `link` is resolved with `new URL(value, pageUrl)`; only http: and https: URLs are kept
//   (`javascript:`, `mailto:` and unparsable values give null).
// - A row yielding neither a title nor a link is dropped from `items` (ads, separators). `rows`
//   still lists every element the `listRow` selector matched, in document order.
// - Selectors are expected to be valid (job input is validated before it gets here): invalid CSS
//   throws the DOM's SyntaxError, a malformed suffix an Error from parseSelector.

import { isScopeSelf, parseSelector, type ParsedSelector } from './selector.js';

export interface ListSelectors {
  listRow: string;
  title?: string;
  publishedAt?: string;
  link?: string;
}

export type FieldName = 'title' | 'publishedAt' | 'link';
export const FIELD_NAMES: readonly FieldName[] = ['title', 'publishedAt', 'link'];

export interface ExtractedItem {
  title: string | null;
  publishedAtRaw: string | null;
  detailUrl: string | null;
}

export interface Extraction {
  rows: Element[];
  items: ExtractedItem[];
}

/** Collapses runs of whitespace to one space and trims. */
export function normaliseText(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** The element a field's CSS part designates within a row (the row itself for ''/`:scope`). */
export function selectWithin(row: Element, css: string): Element | null {
  return isScopeSelf(css) ? row : row.querySelector(css);
}

/** The raw value a parsed field selector extracts from an element, or null when empty. */
export function extractValue(el: Element, parsed: ParsedSelector, field?: FieldName): string | null {
  let value: string | null;
  if (parsed.extract.kind === 'attr') {
    value = el.getAttribute(parsed.extract.name)?.trim() ?? null;
  } else if (field === 'publishedAt' && el.localName === 'time' && el.getAttribute('datetime')?.trim()) {
    value = el.getAttribute('datetime')!.trim();
  } else {
    value = normaliseText(el.textContent);
  }
  return value ? value : null;
}

/** An absolute http(s) URL for a link value, or null. */
export function resolveLink(value: string | null, pageUrl: string): string | null {
  if (value === null) return null;
  let url: URL;
  try {
    url = new URL(value, pageUrl);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** The value of one field in one row after the field's post-processing (link resolution). */
export function fieldValue(row: Element, parsed: ParsedSelector, field: FieldName, pageUrl: string): string | null {
  const el = selectWithin(row, parsed.css);
  if (!el) return null;
  const value = extractValue(el, parsed, field);
  return field === 'link' ? resolveLink(value, pageUrl) : value;
}

export function extractItems(document: Document, pageUrl: string, selectors: ListSelectors): Extraction {
  const rows = Array.from(document.querySelectorAll(parseSelector(selectors.listRow).css));
  const parsed: Partial<Record<FieldName, ParsedSelector>> = {};
  for (const field of FIELD_NAMES) {
    const spec = selectors[field];
    if (spec !== undefined && spec.trim() !== '') parsed[field] = parseSelector(spec);
  }
  const valueOf = (row: Element, field: FieldName): string | null => {
    const p = parsed[field];
    return p ? fieldValue(row, p, field, pageUrl) : null;
  };
  const items: ExtractedItem[] = [];
  for (const row of rows) {
    const item: ExtractedItem = {
      title: valueOf(row, 'title'),
      publishedAtRaw: valueOf(row, 'publishedAt'),
      detailUrl: valueOf(row, 'link'),
    };
    if (item.title !== null || item.detailUrl !== null) items.push(item);
  }
  return { rows, items };
}
