/// <reference types="jsdom" />
// Fingerprints of what a job's selectors matched, stored after each good run so that a later run
// can recognise the same elements after the site changed (see heal.ts for how they are used).
//
// An ElementFingerprint is plain JSON. It records what an element LOOKS like, not what it says:
//   tag          local name, lower case
//   classes      class list, in order, duplicates removed
//   attributes   every attribute except `class` and `style`, name → value; the value is null
//                when it is volatile (it changes from item to item or from deploy to deploy), so
//                that only the attribute's presence is compared: values containing a digit,
//                values longer than 40 characters, and the values of href, src, srcset, action,
//                datetime, title, alt, content, value, aria-label, nonce
//   ownText      shape of the element's own text (its direct text nodes)
//   text         shape of its whole textContent
//   path         tags of its ancestors, outermost first (from <html>, or from the `root` given)
//   parent       tag and classes of its parent element (null at the root)
//   siblings     tags of the previous and next element siblings and of all element siblings
//   position     index among the siblings with the same tag, and how many there are
//   children     tag sequence of its element children (first 20)
//   descendants  sorted distinct tags found below it (first 40)
// A text shape never stores the text: only its length, word count and a pattern of character
// classes per token ("21 Nov 2026" → "9 Aa 9": runs of digits → 9, of upper case → A, of lower
// case → a, other characters kept), first 8 tokens.

import {
  extractValue,
  FIELD_NAMES,
  fieldValue,
  normaliseText,
  selectWithin,
  type FieldName,
  type ListSelectors,
} from './extract-items.js';
import { parseSelector } from './selector.js';

export interface TextShape {
  length: number;
  words: number;
  pattern: string;
}

export interface ElementFingerprint {
  tag: string;
  classes: string[];
  attributes: Record<string, string | null>;
  ownText: TextShape;
  text: TextShape;
  path: string[];
  parent: { tag: string; classes: string[] } | null;
  siblings: { prev: string | null; next: string | null; tags: string[] };
  position: { index: number; of: number };
  children: string[];
  descendants: string[];
}

export interface StoredRowFingerprints {
  /** The listRow spec the samples were taken with. */
  selector: string;
  /** Fingerprints of the first rows (up to SAMPLE_ROWS), paths absolute (from <html>). */
  samples: ElementFingerprint[];
  /** How many rows the selector matched. */
  count: number;
}

export interface StoredFieldFingerprints {
  /** The field spec the samples were taken with. */
  selector: string;
  /** Fingerprints of the field's element in the first rows where it matched, paths relative to the row. */
  samples: ElementFingerprint[];
  /** Fraction of the rows in which the field matched an element with a non-empty value. */
  coverage: number;
  /** True when every sampled value contained a digit (dates do): a candidate's value must too. */
  valueHasDigits: boolean;
  /**
   * `coverage` of the last runs, oldest first, this run's last (at most FILL_HISTORY_RUNS).
   * Absent in fingerprints stored before it was kept: read as `[coverage]`.
   */
  fillHistory?: number[];
}

export interface StoredFingerprints {
  version: 1;
  listRow: StoredRowFingerprints;
  fields: Partial<Record<FieldName, StoredFieldFingerprints>>;
}

/** How many rows (and field matches) are sampled per selector. */
export const SAMPLE_ROWS = 5;
/** How many runs' fill rates are kept per field. */
export const FILL_HISTORY_RUNS = 10;

/** The fill rates of a field over the runs recorded, oldest first. */
export function fillHistoryOf(field: StoredFieldFingerprints): number[] {
  return field.fillHistory?.length ? field.fillHistory : [field.coverage];
}

/**
 * This run's fingerprints with each field's fill rate appended to those of the earlier runs
 * (from `previous`, the fingerprints stored before this run), so that a field every earlier run
 * filled is known as such (heal.ts uses it to recognise rows that are not the list).
 */
export function withFillHistory(next: StoredFingerprints, previous: StoredFingerprints | null | undefined): StoredFingerprints {
  const fields: StoredFingerprints['fields'] = {};
  for (const [name, field] of Object.entries(next.fields) as [FieldName, StoredFieldFingerprints][]) {
    const before = previous?.fields[name];
    fields[name] = { ...field, fillHistory: [...(before ? fillHistoryOf(before) : []), field.coverage].slice(-FILL_HISTORY_RUNS) };
  }
  return { ...next, fields };
}

const VOLATILE_ATTRIBUTES = new Set([
  'href',
  'src',
  'srcset',
  'action',
  'datetime',
  'title',
  'alt',
  'content',
  'value',
  'aria-label',
  'nonce',
]);
const MAX_CHILDREN = 20;
const MAX_DESCENDANTS = 40;
const MAX_SIBLINGS = 20;
const MAX_PATTERN_TOKENS = 8;

/** Shape of a text: length, words and the character-class pattern of its first tokens. */
export function textShape(raw: string | null | undefined): TextShape {
  const text = normaliseText(raw);
  if (text === '') return { length: 0, words: 0, pattern: '' };
  const tokens = text.split(' ');
  const pattern = tokens
    .slice(0, MAX_PATTERN_TOKENS)
    .map((token) =>
      token.replace(/\p{Nd}+|\p{Lu}+|\p{Ll}+|\p{L}+/gu, (run) =>
        /\p{Nd}/u.test(run) ? '9' : /\p{Lu}/u.test(run) ? 'A' : 'a',
      ),
    )
    .join(' ');
  return { length: text.length, words: tokens.length, pattern };
}

function ownTextOf(el: Element): string {
  let text = '';
  for (const node of Array.from(el.childNodes)) {
    if (node.nodeType === 3 /* TEXT_NODE */) text += ` ${node.nodeValue ?? ''}`;
  }
  return text;
}

function classesOf(el: Element): string[] {
  return [...new Set(Array.from(el.classList))];
}

function isVolatileValue(name: string, value: string): boolean {
  return VOLATILE_ATTRIBUTES.has(name) || /\d/.test(value) || value.length > 40;
}

function elementChildren(el: Element): Element[] {
  return Array.from(el.children);
}

/**
 * Fingerprint of an element. With `root` (an ancestor, e.g. the list row a field lives in) the
 * ancestor path starts at `root` instead of <html>; the root itself has an empty path.
 */
export function fingerprintElement(el: Element, options: { root?: Element } = {}): ElementFingerprint {
  const attributes: Record<string, string | null> = {};
  for (const attr of Array.from(el.attributes)) {
    const name = attr.name.toLowerCase();
    if (name === 'class' || name === 'style') continue;
    attributes[name] = isVolatileValue(name, attr.value) ? null : attr.value;
  }

  const path: string[] = [];
  if (el !== options.root) {
    for (let a = el.parentElement; a; a = a.parentElement) {
      path.unshift(a.localName);
      if (a === options.root) break;
    }
  }

  const parentEl = el.parentElement;
  const siblingEls = parentEl ? elementChildren(parentEl) : [el];
  const sameTag = siblingEls.filter((s) => s.localName === el.localName);

  const descendants = new Set<string>();
  for (const d of Array.from(el.querySelectorAll('*'))) {
    descendants.add(d.localName);
    if (descendants.size >= MAX_DESCENDANTS) break;
  }

  return {
    tag: el.localName,
    classes: classesOf(el),
    attributes,
    ownText: textShape(ownTextOf(el)),
    text: textShape(el.textContent),
    path,
    parent: parentEl ? { tag: parentEl.localName, classes: classesOf(parentEl) } : null,
    siblings: {
      prev: el.previousElementSibling?.localName ?? null,
      next: el.nextElementSibling?.localName ?? null,
      tags: siblingEls
        .filter((s) => s !== el)
        .slice(0, MAX_SIBLINGS)
        .map((s) => s.localName),
    },
    position: { index: sameTag.indexOf(el), of: sameTag.length },
    children: elementChildren(el)
      .slice(0, MAX_CHILDREN)
      .map((c) => c.localName),
    descendants: [...descendants].sort(),
  };
}

/**
 * Fingerprints of what the selectors matched on a good run: the first SAMPLE_ROWS rows that
 * yielded an item (a title or a link; all rows when none did), with absolute paths, and for each
 * field its element in the first SAMPLE_ROWS rows where it matched with a non-empty value (paths
 * relative to the row). Fields whose selector is absent or matched nothing are left out (there is
 * nothing to recognise them by). Links are resolved against `pageUrl` (default `document.URL`;
 * a document parsed by extract/parse-html.ts has none of its own).
 */
export function fingerprintSelectors(
  document: Document,
  rows: readonly Element[],
  selectors: ListSelectors,
  pageUrl: string = document.URL,
): StoredFingerprints {
  if (rows.some((row) => row.ownerDocument !== document)) {
    throw new Error('fingerprintSelectors: the rows must belong to the given document');
  }
  // Rows sampled: the first ones that yielded an item (a title or a link), so that ads and
  // separators sharing the row selector do not become what a row is recognised by.
  const parsedFields = FIELD_NAMES.flatMap((field) => {
    const spec = selectors[field];
    return spec === undefined || spec.trim() === '' ? [] : [{ field, parsed: parseSelector(spec) }];
  });
  const yieldsItem = (row: Element): boolean =>
    parsedFields.some(
      ({ field, parsed }) => (field === 'title' || field === 'link') && fieldValue(row, parsed, field, pageUrl) !== null,
    );
  const itemRows = rows.filter(yieldsItem);
  const sampleRows = (itemRows.length > 0 ? itemRows : rows).slice(0, SAMPLE_ROWS);
  const stored: StoredFingerprints = {
    version: 1,
    listRow: {
      selector: selectors.listRow,
      samples: sampleRows.map((row) => fingerprintElement(row)),
      count: rows.length,
    },
    fields: {},
  };
  for (const { field, parsed } of parsedFields) {
    const spec = selectors[field]!;
    const samples: ElementFingerprint[] = [];
    let matched = 0;
    let allDigits = true;
    for (const row of rows) {
      const el = selectWithin(row, parsed.css);
      const value = el ? extractValue(el, parsed, field) : null;
      if (!el || value === null) continue;
      matched += 1;
      if (samples.length < SAMPLE_ROWS) {
        samples.push(fingerprintElement(el, { root: row }));
        if (!/\d/.test(value)) allDigits = false;
      }
    }
    if (samples.length === 0) continue;
    stored.fields[field] = {
      selector: spec,
      samples,
      coverage: rows.length > 0 ? matched / rows.length : 0,
      valueHasDigits: allDigits && parsed.extract.kind === 'text',
    };
  }
  return stored;
}
