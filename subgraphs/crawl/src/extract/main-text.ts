import { Readability } from '@mozilla/readability';
import { pageLanguage, type VolatileLanguage } from './page-language.js';
import { parseHtml } from './parse-html.js';

/** Elements that end a line of text: paragraphs, headings, list items, cells, sections. */
const BLOCKS = 'p, div, h1, h2, h3, h4, h5, h6, li, dt, dd, tr, td, th, caption, figcaption, blockquote, pre, section, article, header, footer, aside, nav, ul, ol, dl, table, form, fieldset, address, br, hr';

export interface MainContent {
  /** The readable main text (see {@link mainText}). */
  text: string;
  /** The language its dates are read in: the page's `<html lang>` or Content-Language when supported, else guessed from the text. */
  language: VolatileLanguage;
}

/**
 * A page's main content as the knowledge sync indexes and change tracking compares it: the text
 * of {@link mainText} without the elements `volatileSelectors` match (a job's volatile selectors,
 * validated when the job was created), and the language of the page. Those elements are left out
 * before Readability picks the article, so their text is neither compared nor indexed: an index
 * that kept it would keep it stale, since a page whose only change is there is not embedded again.
 */
export function mainContent(html: string, volatileSelectors: readonly string[] = []): MainContent {
  const document = parseHtml(html);
  const declared = document.documentElement?.getAttribute('lang') || document.querySelector('meta[http-equiv="content-language" i]')?.getAttribute('content');
  for (const selector of volatileSelectors) {
    for (const element of document.querySelectorAll(selector)) element.remove();
  }
  for (const block of document.body?.querySelectorAll(BLOCKS) ?? []) block.after('\n');
  const body = document.body?.textContent ?? '';
  const article = new Readability(document, { serializer: (element) => element }).parse();
  const articleText = (article?.content as Element | null | undefined)?.textContent ?? '';
  const text = lines(articleText.trim() ? articleText : body);
  return { text, language: pageLanguage(declared, text) };
}

/**
 * The readable main text of a page (Readability; the whole body's text as a fallback): what the
 * knowledge base indexes, change tracking compares and the MCP tool returns. Every block element
 * ends a line (so "…a month.</p><p>Teams…" does not read "month.Teams"), spaces are collapsed
 * within lines, and empty lines dropped.
 */
export function mainText(html: string): string {
  return mainContent(html).text;
}

function lines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
