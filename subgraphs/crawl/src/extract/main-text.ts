import { Readability } from '@mozilla/readability';
import { parseHtml } from './parse-html.js';

/**
 * The readable main text of a page (Readability; the whole body's text as a fallback),
 * whitespace collapsed: what the knowledge base indexes and what the MCP tool returns.
 */
export function mainText(html: string): string {
  const document = parseHtml(html);
  const body = document.body?.textContent?.trim();
  const article = new Readability(document).parse();
  const text = article?.textContent?.trim() || body || '';
  return text.replace(/\s+/g, ' ').trim();
}
