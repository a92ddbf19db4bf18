import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { SvcError, type Logger, type SsrfGuard } from '@svc/kit';
import { digestPage, LIMITS, parseFieldSelectors, type PageDigest } from '../../extract/page-digest.js';
import type { PageFetcher } from '../../fetch/fetch-page.js';
import type { ChromiumPool } from '../browser/browser-pool.js';
import { renderPage } from '../browser/render-page.js';

/**
 * MCP tool `svccrawl_collect_page`: one web page as an agent wants it — the readable main text,
 * every table as headers plus rows, and the values of caller-given selectors (what is read,
 * and the size caps: extract/page-digest.ts).
 *
 * Decisions:
 * - The page is fetched with the crawler's own fetcher (fetch-page.ts): the SSRF guard on the
 *   URL, every redirect hop and the connection itself, robots.txt respected (as the crawler's
 *   user agent), size and content-type limits, one retry. Its refusals come back as
 *   tool errors carrying the fetcher's message (which names the URL and the reason).
 * - `waitForSelector` renders the page in headless Chromium (browser/render-page.ts), with the
 *   same SSRF guard on everything the browser loads. Without Chromium installed that is a
 *   tool error saying so.
 * - Selectors are checked before anything is fetched.
 */

export const COLLECT_PAGE_TOOL = 'svccrawl_collect_page';

const inputSchema = {
  url: z.string().min(1).max(2048).describe('The page to collect: an absolute http(s) URL.'),
  extractSelectors: z
    .record(z.string().min(1).max(100), z.string().min(1).max(500))
    .optional()
    .describe(
      'Fields to extract: name → selector spec. A CSS selector, optionally ending in ::text (the default: text content) or ::attr(name) (an attribute, as written). Each field gets the values of ALL matching elements, in document order. At most 50.',
    ),
  waitForSelector: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'Render the page in headless Chromium and wait (up to 10 s) for this CSS selector before reading it — for pages that build their content with JavaScript. Needs Chromium on the server; without it the call fails and says so.',
    ),
};

const tableSchema = z.object({
  headers: z.array(z.string()).describe('Header cells: the <thead> row, else the first row.'),
  rows: z.array(z.array(z.string())).describe('The other rows, each an array of cell texts.'),
});

const outputSchema = {
  url: z.string().describe('The URL asked for.'),
  finalUrl: z.string().describe('The URL read, after redirects (and script navigation when rendered).'),
  title: z.string().describe('The document title; empty when there is none.'),
  text: z.string().describe('The readable main text (Readability), whitespace collapsed.'),
  tables: z.array(tableSchema).describe('Every <table>, in document order.'),
  fields: z.record(z.string(), z.array(z.string())).describe('Per extractSelectors entry, the values of all matches.'),
  rendered: z.boolean().describe('Whether the page was rendered in headless Chromium (waitForSelector).'),
  truncated: z.boolean().describe('Whether a size cap cut the text, tables or field values.'),
};

function summary(digest: PageDigest): string {
  const lines = [
    `${digest.title || '(untitled)'} — ${digest.finalUrl}${digest.rendered ? ' (rendered in headless Chromium)' : ''}`,
    `${digest.text.length} characters of main text, ${digest.tables.length} table(s)${digest.tables.length ? ` (${digest.tables.map((t) => `${t.rows.length} row(s)`).join(', ')})` : ''}${digest.truncated ? '; cut to the size caps (truncated)' : ''}.`,
  ];
  const fields = Object.entries(digest.fields);
  if (fields.length) lines.push(`Fields: ${fields.map(([name, values]) => `${name} = ${values.length ? values.slice(0, 3).map((v) => JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)).join(', ') + (values.length > 3 ? `, … (${values.length})` : '') : '(no match)'}`).join('; ')}`);
  if (digest.text) lines.push('', digest.text.length > 1000 ? `${digest.text.slice(0, 1000)}…` : digest.text);
  return lines.join('\n');
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A tool error for a failure: SvcErrors speak for themselves (with a hint for guard refusals). */
function failure(error: unknown, url: string, log: Logger): CallToolResult {
  if (error instanceof SvcError) {
    const slug = error.extensions.slug;
    const hint = slug === 'address-not-allowed'
      ? ' The SSRF guard refuses private, loopback and link-local addresses; an operator can open a host deliberately with SVC_CRAWL_ALLOW_PRIVATE_HOSTS.'
      : slug === 'robots-disallowed'
        ? ' The crawler respects robots.txt; this page cannot be collected.'
        : '';
    return toolError(`${error.message}${hint && !/[.!?]$/.test(error.message) ? '.' : ''}${hint}`);
  }
  log.error({ err: error, url }, 'collect_page failed');
  return toolError(`Collecting ${url} failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
}

export interface CollectPageDeps {
  fetcher: PageFetcher;
  guard: SsrfGuard;
  chromium: ChromiumPool;
  log: Logger;
}

export function registerCollectPageTool(server: McpServer, deps: CollectPageDeps): void {
  server.registerTool(
    COLLECT_PAGE_TOOL,
    {
      title: 'Collect a web page',
      description: [
        'Fetches one web page with the crawler (SSRF guard, robots.txt respected) and returns its readable main text, every <table> as headers plus rows, and the fields named in extractSelectors (all matches per field).',
        'waitForSelector renders the page in headless Chromium first (for JavaScript-built content), waiting up to 10 s for that selector; every request the page makes passes the same SSRF guard.',
        `Caps (truncated: true when hit): ${LIMITS.textChars} characters of text, ${LIMITS.tables} tables, ${LIMITS.rowsPerTable} rows and ${LIMITS.columns} columns per table, ${LIMITS.cellChars} characters per cell or value, ${LIMITS.valuesPerField} values per field.`,
      ].join(' '),
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ url, extractSelectors, waitForSelector }): Promise<CallToolResult> => {
      const started = performance.now();
      try {
        const selectors = parseFieldSelectors(extractSelectors ?? {});
        if (waitForSelector !== undefined && !deps.chromium.installed()) {
          return toolError(
            `waitForSelector needs headless Chromium, which is not installed on this server (looked for ${deps.chromium.executablePath}; on Debian: apt-get install chromium). Call again without waitForSelector to read the page as served.`,
          );
        }
        const page = await deps.fetcher.fetchPage(url);
        let digest: PageDigest;
        if (waitForSelector === undefined) {
          digest = digestPage({ url, finalUrl: page.url, contentType: page.contentType, html: page.html, rendered: false }, selectors);
        } else {
          if (page.contentType === 'text/plain') return toolError(`waitForSelector needs an HTML page, but ${page.url} is text/plain; call again without waitForSelector`);
          const rendered = await renderPage(deps, page, waitForSelector);
          digest = digestPage({ url, finalUrl: rendered.finalUrl, contentType: page.contentType, html: rendered.html, rendered: true }, selectors);
        }
        deps.log.info({ tool: COLLECT_PAGE_TOOL, url: digest.finalUrl, rendered: digest.rendered, tables: digest.tables.length, ms: Math.round(performance.now() - started) }, 'page collected');
        return { structuredContent: { ...digest }, content: [{ type: 'text', text: summary(digest) }] };
      } catch (error) {
        return failure(error, url, deps.log);
      }
    },
  );
}
