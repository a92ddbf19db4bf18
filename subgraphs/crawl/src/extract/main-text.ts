import { Readability } from '@mozilla/readability';
import { parseHtml } from './parse-html.js';

/** Elements that end a line of text: paragraphs, headings, list items, cells, sections. */
const BLOCKS = 'p, div, h1, h2, h3, h4, h5, h6, li, dt, dd, tr, td, th, caption, figcaption, blockquote, pre, section, article, header, footer, aside, nav, ul, ol, dl, table, form, fieldset, address, br, hr';

/**
 * The readable main text of a page (Readability; the whole body's text as a fallback): what the
 * knowledge base indexes, change tracking compares and the MCP tool returns. Every block element
 * ends a line (so "…a month.</p><p>Teams…" does not read "month.Teams"), spaces are collapsed
 * within lines, and empty lines dropped.
 */
export function mainText(html: string): string {
  const document = parseHtml(html);
  for (const block of document.body?.querySelectorAll(BLOCKS) ?? []) block.after('\n');
  const body = document.body?.textContent ?? '';
  const article = new Readability(document, { serializer: (element) => element }).parse();
  const text = (article?.content as Element | null | undefined)?.textContent ?? '';
  return lines(text.trim() ? text : body);
}

function lines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
