/// <reference types="jsdom" />
import { JSDOM, VirtualConsole } from 'jsdom';
import { SvcError } from '@svc/kit';
import { extractValue, normaliseText } from '../domain/extract-items.js';
import { mainText } from './main-text.js';
import { isScopeSelf, parseSelector, type ParsedSelector } from '../domain/selector.js';

/**
 * One page as an agent wants it (the MCP tool `svccrawl_collect_page`): the readable main text,
 * every table as headers plus rows, and the values of caller-given selectors.
 *
 * - Text: `mainText` (Readability, as the knowledge base indexes pages), whitespace collapsed.
 * - Tables: every `<table>` in document order, nested ones included (each table lists only
 *   its own rows). Headers are the cells of the first `<thead>` row that has a `<th>` (else
 *   its first row); without a `<thead>`, the first row's cells (`th` or `td`). The other rows
 *   (all `<thead>` rows excluded) are arrays of cell text, whitespace collapsed; `colspan` and
 *   `rowspan` are not expanded. Rows without cells are skipped, and so are tables without any.
 * - Fields: for each selector, the values of ALL matches in document order (an array,
 *   possibly empty). The spec syntax is the crawl jobs' (selector.ts): CSS, then optionally
 *   `::text` (default: text, whitespace collapsed) or `::attr(name)` (the attribute as
 *   written, not resolved against the page URL); an empty CSS part or `:scope` means the root
 *   element. Empty values are left out. `parseFieldSelectors` checks them before any fetch.
 * - Caps (LIMITS), reported as `truncated: true`: text, tables, rows and columns per table,
 *   characters per cell or value, values per field.
 * - A `text/plain` page is its text, without tables, title or field matches.
 */

export const LIMITS = {
  textChars: 100_000,
  tables: 50,
  rowsPerTable: 500,
  columns: 100,
  cellChars: 2_000,
  valuesPerField: 200,
  selectors: 50,
} as const;

export interface PageTable {
  headers: string[];
  rows: string[][];
}

export interface PageDigest {
  url: string;
  finalUrl: string;
  title: string;
  text: string;
  tables: PageTable[];
  fields: Record<string, string[]>;
  rendered: boolean;
  truncated: boolean;
}

/** Parses every selector spec (and its CSS) up front, so a typo fails before any fetch. */
export function parseFieldSelectors(specs: Record<string, string>): Map<string, ParsedSelector> {
  const entries = Object.entries(specs);
  if (entries.length > LIMITS.selectors) throw new SvcError('BAD_USER_INPUT', `extractSelectors has ${entries.length} entries; at most ${LIMITS.selectors} are allowed`);
  const probe = new JSDOM('', { virtualConsole: new VirtualConsole() }).window.document;
  const parsed = new Map<string, ParsedSelector>();
  for (const [name, spec] of entries) {
    let selector: ParsedSelector;
    try {
      selector = parseSelector(spec);
      if (!isScopeSelf(selector.css)) probe.querySelector(selector.css);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SvcError('BAD_USER_INPUT', `extractSelectors.${name}: ${JSON.stringify(spec)} is not a valid selector spec (${reason}); use CSS, optionally followed by ::text or ::attr(name)`);
    }
    parsed.set(name, selector);
  }
  return parsed;
}

function capText(text: string, max: number): { value: string; cut: boolean } {
  return text.length > max ? { value: text.slice(0, max), cut: true } : { value: text, cut: false };
}

function tablesOf(document: Document): { tables: PageTable[]; truncated: boolean } {
  const all = Array.from(document.querySelectorAll('table'));
  let truncated = all.length > LIMITS.tables;
  const cellsOf = (row: HTMLTableRowElement): string[] => {
    const cells = Array.from(row.cells);
    if (cells.length > LIMITS.columns) truncated = true;
    return cells.slice(0, LIMITS.columns).map((cell) => {
      const { value, cut } = capText(normaliseText(cell.textContent), LIMITS.cellChars);
      if (cut) truncated = true;
      return value;
    });
  };
  const tables: PageTable[] = [];
  for (const table of all.slice(0, LIMITS.tables)) {
    const rows = Array.from(table.rows).filter((row) => row.cells.length > 0);
    const head = table.tHead;
    const headRows = head ? rows.filter((row) => row.parentElement === head) : [];
    const headerRow = headRows.length ? (headRows.find((row) => row.querySelector(':scope > th')) ?? headRows[0]) : rows[0];
    const bodyRows = rows.filter((row) => row !== headerRow && !headRows.includes(row));
    if (!headerRow && bodyRows.length === 0) continue;
    if (bodyRows.length > LIMITS.rowsPerTable) truncated = true;
    tables.push({ headers: headerRow ? cellsOf(headerRow) : [], rows: bodyRows.slice(0, LIMITS.rowsPerTable).map(cellsOf) });
  }
  return { tables, truncated };
}

function fieldsOf(document: Document, selectors: Map<string, ParsedSelector>): { fields: Record<string, string[]>; truncated: boolean } {
  let truncated = false;
  const fields: Record<string, string[]> = {};
  for (const [name, selector] of selectors) {
    const elements = isScopeSelf(selector.css) ? [document.documentElement] : Array.from(document.querySelectorAll(selector.css));
    const values: string[] = [];
    for (const element of elements) {
      const value = extractValue(element, selector);
      if (value === null) continue;
      if (values.length === LIMITS.valuesPerField) {
        truncated = true;
        break;
      }
      const capped = capText(value, LIMITS.cellChars);
      if (capped.cut) truncated = true;
      values.push(capped.value);
    }
    fields[name] = values;
  }
  return { fields, truncated };
}

/** Text, tables and fields of a page's HTML (or plain text). */
export function digestPage(page: { url: string; finalUrl: string; contentType: string; html: string; rendered: boolean }, selectors: Map<string, ParsedSelector>): PageDigest {
  if (page.contentType === 'text/plain') {
    const text = capText(normaliseText(page.html), LIMITS.textChars);
    return {
      url: page.url,
      finalUrl: page.finalUrl,
      title: '',
      text: text.value,
      tables: [],
      fields: Object.fromEntries([...selectors.keys()].map((name) => [name, []])),
      rendered: page.rendered,
      truncated: text.cut,
    };
  }
  const document = new JSDOM(page.html, { url: page.finalUrl, virtualConsole: new VirtualConsole() }).window.document;
  const tables = tablesOf(document);
  const fields = fieldsOf(document, selectors);
  const text = capText(mainText(page.html), LIMITS.textChars);
  return {
    url: page.url,
    finalUrl: page.finalUrl,
    title: normaliseText(document.title),
    text: text.value,
    tables: tables.tables,
    fields: fields.fields,
    rendered: page.rendered,
    truncated: text.cut || tables.truncated || fields.truncated,
  };
}
