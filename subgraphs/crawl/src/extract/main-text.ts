import { Readability } from '@mozilla/readability';
import { JSDOM } from 'jsdom';

/**
 * The readable main text of a page (Readability; the whole body's text as a fallback),
 * whitespace collapsed: what the knowledge base indexes and what the MCP tool returns.
 */
export function mainText(html: string, url: string): string {
  const document = new JSDOM(html, { url }).window.document;
  const article = new Readability(document.cloneNode(true) as Document).parse();
  const text = article?.textContent?.trim() || document.body?.textContent?.trim() || '';
  return text.replace(/\s+/g, ' ').trim();
}
