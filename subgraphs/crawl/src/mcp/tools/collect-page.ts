/// <reference types="jsdom" />
import { existsSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { JSDOM, VirtualConsole } from 'jsdom';
import { chromium, type Browser } from 'playwright-core';
import * as z from 'zod';
import { SvcError, type Logger } from '@svc/kit';
import { SVC_USER_AGENT } from '../../domain/robots.js';
import { extractValue, normaliseText } from '../../extract/extract-items.js';
import { isScopeSelf, parseSelector, type ParsedSelector } from '../../extract/selector.js';
import type { FetchedPage, PageFetcher } from '../../fetch/fetch-page.js';
import type { SsrfGuard } from '../../fetch/ssrf-guard.js';
import { mainText } from '../../service/rag-sync.js';

/**
 * MCP tool `svccrawl_collect_page`: one web page as an agent wants it — the readable main text,
 * every table as headers plus rows, and the values of caller-given selectors.
 *
 * Decisions:
 * - The page is fetched with the crawler's own fetcher (fetch-page.ts): the SSRF guard on the
 *   URL, every redirect hop and the connection itself, robots.txt respected (as the crawler's
 *   user agent), size and content-type limits, one retry. Its refusals come back as
 *   tool errors carrying the fetcher's message (which names the URL and the reason).
 * - `waitForSelector` renders the page in headless Chromium (playwright-core, Debian's
 *   /usr/bin/chromium; never a downloaded browser) and waits up to 10 s for the selector to be
 *   attached to the DOM (hidden elements count). Without Chromium installed that is a tool
 *   error saying so; the launch is lazy and the browser shared by calls, each in a fresh
 *   context (no cookies or storage carried between calls).
 *   The same SSRF guard applies to everything the browser loads, three ways:
 *   1. The page itself is fetched with the crawler's fetcher as above (robots.txt included)
 *      and handed to the browser from memory (`route.fulfill`), so it is requested once.
 *   2. Every other request the page makes is intercepted (`context.route` on every URL) and
 *      aborted when `guard.checkUrl` refuses its URL; WebSockets likewise (`routeWebSocket`).
 *   3. Interception does not see redirect hops (Playwright routes only a request's first URL),
 *      and Chromium resolves names itself (DNS rebinding after the check), so the
 *      browser is also launched behind a loopback HTTP proxy of this module that makes every
 *      connection through `guard.lookup` (connect-time check, no DNS rebinding), IP-literal
 *      hosts checked with `guard.checkUrl`. Playwright makes Chromium proxy loopback too
 *      (`<-loopback>`), so nothing bypasses it.
 * - Text: `mainText` (Readability, as the knowledge base indexes pages), whitespace collapsed.
 * - Tables: every `<table>` in document order, nested ones included (each table lists only
 *   its own rows). Headers are the cells of the first `<thead>` row that has a `<th>` (else
 *   its first row); without a `<thead>`, the first row's cells (`th` or `td`). The other rows
 *   (all `<thead>` rows excluded) are arrays of cell text, whitespace collapsed; `colspan` and
 *   `rowspan` are not expanded. Rows without cells are skipped, and so are tables without any.
 * - Fields: for each `extractSelectors` entry, the values of ALL matches in document order
 *   (an array, possibly empty). The spec syntax is the crawl jobs' (selector.ts): CSS, then
 *   optionally `::text` (default: text, whitespace collapsed) or `::attr(name)` (the attribute
 *   as written, not resolved against the page URL); an empty CSS part or `:scope` means the
 *   root element. Empty values are left out. Selectors are checked before anything is fetched.
 * - Caps, reported as `truncated: true`: 100,000 characters of text, 50 tables, 500 rows and 100
 *   columns per table, 2,000 characters per cell or value, 200 values per field.
 * - A `text/plain` page is its text, without tables, title or field matches.
 */

export const COLLECT_PAGE_TOOL = 'svccrawl_collect_page';

export const LIMITS = {
  textChars: 100_000,
  tables: 50,
  rowsPerTable: 500,
  columns: 100,
  cellChars: 2_000,
  valuesPerField: 200,
  selectors: 50,
} as const;

/** How long a rendered page may take to load, and then to show `waitForSelector`. */
const NAVIGATION_TIMEOUT_MS = 15_000;
const WAIT_TIMEOUT_MS = 10_000;

/** Launch flags as in the e2e browser helper: no background traffic of Chromium's own. */
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

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

type Table = z.infer<typeof tableSchema>;

export interface PageDigest {
  url: string;
  finalUrl: string;
  title: string;
  text: string;
  tables: Table[];
  fields: Record<string, string[]>;
  rendered: boolean;
  truncated: boolean;
}

// ---------------------------------------------------------------------------------------------
// Headless Chromium behind the guarded proxy

export interface ChromiumPool {
  readonly executablePath: string;
  installed(): boolean;
  /** The shared browser, launched (behind its guarded proxy) on first use. */
  browser(): Promise<Browser>;
  close(): Promise<void>;
}

interface GuardedProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An HTTP proxy on 127.0.0.1 for the browser: plain-HTTP requests are forwarded and CONNECT
 * (HTTPS, WebSockets) tunnelled, each connection opened through the SSRF guard.
 */
async function startGuardedProxy(guard: SsrfGuard, log: Logger): Promise<GuardedProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((req, res) => {
    void (async () => {
      let target: URL;
      try {
        target = (await guard.checkUrl(req.url ?? '')).url;
        if (target.protocol !== 'http:') throw new Error(`only http: is proxied here, not ${target.protocol}`);
      } catch (error) {
        log.debug({ url: req.url, reason: reasonOf(error) }, 'browser request refused by the SSRF guard');
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(reasonOf(error));
        return;
      }
      const connectionTokens = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim()));
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_BY_HOP.has(name) && !connectionTokens.has(name) && value !== undefined) headers[name] = value;
      }
      const upstream = httpRequest(
        { hostname: stripBrackets(target.hostname), port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers, lookup: guard.lookup, agent: false },
        (answer: IncomingMessage) => {
          const raw: string[] = [];
          for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
            if (!HOP_BY_HOP.has(answer.rawHeaders[i]!.toLowerCase())) raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
          }
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        log.debug({ url: target.href, reason: reasonOf(error) }, 'browser request failed');
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(reasonOf(error));
      });
      req.pipe(upstream);
    })();
  });

  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    void (async () => {
      const authority = req.url ?? '';
      let target: URL;
      try {
        target = (await guard.checkUrl(`https://${authority}/`)).url;
      } catch (error) {
        log.debug({ authority, reason: reasonOf(error) }, 'browser connection refused by the SSRF guard');
        client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      let connected = false;
      const upstream = netConnect({ host: stripBrackets(target.hostname), port: Number(target.port || 443), lookup: guard.lookup });
      track(upstream);
      upstream.once('connect', () => {
        connected = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (error) => {
        log.debug({ authority, reason: reasonOf(error) }, 'browser connection failed');
        if (connected) client.destroy();
        else client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      });
      client.on('close', () => upstream.destroy());
    })();
  });
  // WebSockets through a proxy use CONNECT; an Upgrade sent to the proxy itself is not served.
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function createChromiumPool(options: { executablePath?: string; guard: SsrfGuard; log: Logger }): ChromiumPool {
  const executablePath = options.executablePath ?? DEFAULT_CHROMIUM_PATH;
  let running: Promise<{ browser: Browser; proxy: GuardedProxy }> | undefined;

  async function launch(): Promise<{ browser: Browser; proxy: GuardedProxy }> {
    const proxy = await startGuardedProxy(options.guard, options.log);
    try {
      const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, proxy: { server: proxy.url }, timeout: 30_000 });
      options.log.info({ executablePath, version: browser.version() }, 'headless Chromium started');
      return { browser, proxy };
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }

  return {
    executablePath,
    installed: () => existsSync(executablePath),
    async browser() {
      if (running) {
        const current = await running.catch(() => undefined);
        if (current?.browser.isConnected()) return current.browser;
        if (current) await current.proxy.close();
        running = undefined;
      }
      const attempt = launch();
      running = attempt;
      attempt.catch(() => {
        if (running === attempt) running = undefined;
      });
      return (await attempt).browser;
    },
    async close() {
      const current = await running?.catch(() => undefined);
      running = undefined;
      if (!current) return;
      await current.browser.close().catch(() => undefined);
      await current.proxy.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading a page

/** Parses every selector spec (and its CSS) up front, so a typo fails before any fetch. */
function parseFieldSelectors(specs: Record<string, string>): Map<string, ParsedSelector> {
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
      throw new SvcError('BAD_USER_INPUT', `extractSelectors.${name}: ${JSON.stringify(spec)} is not a valid selector spec (${reasonOf(error)}); use CSS, optionally followed by ::text or ::attr(name)`);
    }
    parsed.set(name, selector);
  }
  return parsed;
}

function capText(text: string, max: number): { value: string; cut: boolean } {
  return text.length > max ? { value: text.slice(0, max), cut: true } : { value: text, cut: false };
}

function tablesOf(document: Document): { tables: Table[]; truncated: boolean } {
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
  const tables: Table[] = [];
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
  const text = capText(mainText(page.html, page.finalUrl), LIMITS.textChars);
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

function withoutHash(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Loads an already fetched page in Chromium, with every further request guarded, and waits for `selector`. */
async function render(deps: CollectPageDeps, first: FetchedPage, selector: string): Promise<{ html: string; finalUrl: string }> {
  const { guard, log } = deps;
  const browser = await deps.chromium.browser();
  const context = await browser.newContext({ userAgent: SVC_USER_AGENT, serviceWorkers: 'block', acceptDownloads: false });
  try {
    let served = false;
    const refused: string[] = [];
    await context.route('**/*', async (route) => {
      const request = route.request();
      const url = request.url();
      try {
        if (!served && request.isNavigationRequest() && withoutHash(url) === first.url) {
          served = true;
          await route.fulfill({ status: 200, headers: { 'content-type': `${first.contentType}; charset=utf-8` }, body: first.html });
          return;
        }
        try {
          await guard.checkUrl(url);
        } catch (error) {
          refused.push(url);
          log.debug({ url, reason: reasonOf(error) }, 'browser request refused by the SSRF guard');
          await route.abort('blockedbyclient');
          return;
        }
        await route.continue();
      } catch (error) {
        // The page or context went away while the request was pending.
        log.debug({ url, reason: reasonOf(error) }, 'browser request not handled');
      }
    });
    await context.routeWebSocket(/.*/, async (ws) => {
      try {
        await guard.checkUrl(ws.url().replace(/^ws(s?):/i, 'http$1:'));
        ws.connectToServer();
      } catch (error) {
        refused.push(ws.url());
        log.debug({ url: ws.url(), reason: reasonOf(error) }, 'browser WebSocket refused by the SSRF guard');
        await ws.close({ code: 1008, reason: 'refused by the SSRF guard' }).catch(() => undefined);
      }
    });
    const page = await context.newPage();
    await page.goto(first.url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
    try {
      await page.waitForSelector(selector, { state: 'attached', timeout: WAIT_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new SvcError(
          'UPSTREAM_ERROR',
          `waitForSelector ${JSON.stringify(selector)} did not appear on ${page.url()} within ${WAIT_TIMEOUT_MS / 1000} s of loading it in headless Chromium${refused.length ? ` (the SSRF guard refused ${refused.length} request(s) of the page, e.g. ${refused[0]})` : ''}; check the selector, or call without waitForSelector to read the page as served`,
        );
      }
      throw new SvcError('BAD_USER_INPUT', `waitForSelector ${JSON.stringify(selector)} could not be used: ${reasonOf(error).split('\n')[0]}`);
    }
    if (refused.length) log.info({ url: first.url, refused: refused.length }, 'the SSRF guard refused requests of a rendered page');
    return { html: await page.content(), finalUrl: page.url() };
  } finally {
    await context.close().catch(() => undefined);
  }
}

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
  return toolError(`Collecting ${url} failed: ${reasonOf(error).split('\n')[0]}`);
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
          const rendered = await render(deps, page, waitForSelector);
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
