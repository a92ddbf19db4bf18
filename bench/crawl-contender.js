// One crawler under test for bench/crawl-throughput.js, in its own process (fork) so its peak
// memory (maxRSS / VmHWM) is its own. The orchestrator starts one process per contender and round.
//
// Message in:  { type: 'run', contender: 'svc' | 'jsdom' | 'cheerio' | 'jsdom-mem' | 'cheerio-mem'
//               | 'breakdown', origin, warmUrls, urls, concurrency, selectors }
//   ('-mem': the same Crawlee crawler; the orchestrator sets CRAWLEE_PERSIST_STORAGE=false for it.
//    'breakdown': fetch-only and parse-only measurements, see `breakdown` below.)
// Message out: { type: 'result', result } | { type: 'error', message }
//
// Every contender crawls the warm-up URLs first (same number for all, not measured), then the
// measured URLs, and extracts the same fields from every page:
//   svc      the platform's crawler parts: createPageFetcher (SSRF guard allow-listing 127.0.0.1,
//            robots.txt respected, per-host limiter at `concurrency`, delay 0; every page judged
//            by the block-page rules) + parseHtml (one long-lived window's DOMParser) +
//            extractItems, exactly as worker/run-crawl-execution.ts does per page, driven by a pool
//            of `concurrency` workers over the URL list.
//   jsdom    Crawlee JSDOMCrawler (min = max concurrency = `concurrency`), extracting with the
//            platform's extractItems over Crawlee's window.document (same extraction code).
//   cheerio  Crawlee CheerioCrawler (same concurrency), extracting the same fields with cheerio
//            (same rules: whitespace collapsed, rows with neither title nor link dropped, links
//            resolved against the page URL, http(s) only).
// Crawlee runs with its defaults otherwise (got-scraping with generated browser headers, session
// pool, in-memory request queue persisted to CRAWLEE_STORAGE_DIR, which the orchestrator points at
// a fresh temporary directory, with CRAWLEE_PURGE_ON_START=1).
//
// Outbound connections are audited: every net.Socket connect and DNS lookup in this process is
// recorded, so the result says whether anything but the fixture site on 127.0.0.1 was contacted.
import dns from 'node:dns';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadSvcParts } from './crawl-svc-modules.js';

// ---------------------------------------------------------------- outbound connection audit
const contacted = new Map();
function note(target) {
  contacted.set(target, (contacted.get(target) ?? 0) + 1);
}
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function auditedConnect(...args) {
  const [first, second] = args;
  let target;
  if (Array.isArray(first)) target = 'normalized';
  else if (first && typeof first === 'object') target = first.path ? `unix:${first.path}` : `${first.host ?? 'localhost'}:${first.port}`;
  else if (typeof first === 'string' && Number.isNaN(Number(first))) target = `unix:${first}`;
  else target = `${typeof second === 'string' ? second : 'localhost'}:${first}`;
  if (target !== 'normalized') note(target);
  return connect.apply(this, args);
};
const lookup = dns.lookup;
dns.lookup = function auditedLookup(host, ...rest) {
  note(`dns:${host}`);
  return lookup.call(this, host, ...rest);
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = function auditedPromisesLookup(host, ...rest) {
  note(`dns:${host}`);
  return promisesLookup.call(this, host, ...rest);
};

// ---------------------------------------------------------------- measurement helpers
function vmHwmKiB() {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : undefined;
}
const mib = (kib) => Math.round((kib / 1024) * 10) / 10;

/** V8 heap in use after full collections (needs --expose-gc; the orchestrator forks with it), MiB: what the crawl retains. */
function heapAfterGc() {
  if (typeof globalThis.gc !== 'function') return undefined;
  globalThis.gc();
  globalThis.gc();
  return mib(process.memoryUsage().heapUsed / 1024);
}

/** Order-independent digest of extracted items: sha256 over the sorted `title\tdate\tlink` lines (as in crawl-fixture-site.js). */
function itemsDigest(lines) {
  return createHash('sha256').update([...lines].sort().join('\n')).digest('hex').slice(0, 16);
}

/** Collects what one crawl extracted. */
function collector() {
  const lines = [];
  let pages = 0;
  let rows = 0;
  let lastAt = 0;
  return {
    page(items, rowCount) {
      pages++;
      rows += rowCount;
      for (const item of items) lines.push(`${item.title ?? ''}\t${item.publishedAtRaw ?? ''}\t${item.detailUrl ?? ''}`);
      lastAt = performance.now();
    },
    summary() {
      return { pages, rows, items: lines.length, digest: itemsDigest(lines), lastAt };
    },
  };
}

// ---------------------------------------------------------------- contenders

/** The platform's parts; returns crawl(urls) -> { elapsedMs, errors, firstError, ...summary }. */
async function svcContender(concurrency, selectors) {
  const { createPageFetcher, createSsrfGuard, createHostLimiter, extractItems, parseHtml } = await loadSvcParts();
  const guard = createSsrfGuard({ allow: ['127.0.0.1'] });
  const limiter = createHostLimiter({ concurrencyPerHost: concurrency, delayMs: 0 });
  const fetcher = createPageFetcher({ guard, limiter, robots: 'respect' });
  return {
    async crawl(urls) {
      const out = collector();
      let next = 0;
      let errors = 0;
      let firstError;
      const t0 = performance.now();
      async function worker() {
        while (next < urls.length) {
          const url = urls[next++];
          try {
            const page = await fetcher.fetchPage(url);
            const { rows, items } = extractItems(parseHtml(page.html), page.url, selectors);
            out.page(items, rows.length);
          } catch (error) {
            errors++;
            firstError ??= `${url}: ${error instanceof Error ? error.message : String(error)}`;
          }
        }
      }
      await Promise.all(Array.from({ length: concurrency }, worker));
      const elapsedMs = performance.now() - t0;
      return { elapsedMs, t0, errors, firstError, ...out.summary(), heapAfterGcMiB: heapAfterGc() };
    },
    close: () => fetcher.close(),
  };
}

/** Text of a cheerio selection as extractItems reads textContent: whitespace collapsed, trimmed. */
const collapse = (text) => (text ?? '').replace(/\s+/g, ' ').trim();
function resolveHttp(value, pageUrl) {
  if (!value) return null;
  try {
    const url = new URL(value, pageUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

async function crawleeContender(kind, concurrency, selectors) {
  const crawlee = kind === 'jsdom' ? await import('@crawlee/jsdom') : await import('@crawlee/cheerio');
  const { RequestQueue, log } = crawlee;
  log.setLevel(log.LEVELS.WARNING);
  const { extractItems } = await import('../subgraphs/crawl/dist/src/domain/extract-items.js');
  // The cheerio extraction below hard-codes the bench's selectors; check they are the ones given.
  if (kind === 'cheerio' && JSON.stringify(selectors) !== JSON.stringify({ listRow: 'li.news-item', title: 'h3.title a', publishedAt: '.date', link: 'h3.title a::attr(href)' })) {
    throw new Error('the cheerio contender expects the bench selectors');
  }
  let crawlNo = 0;
  return {
    async crawl(urls) {
      const out = collector();
      let errors = 0;
      let firstError;
      const requestQueue = await RequestQueue.open(`bench-${process.pid}-${crawlNo++}`);
      const common = {
        requestQueue,
        minConcurrency: concurrency,
        maxConcurrency: concurrency,
        failedRequestHandler({ request }, error) {
          errors++;
          firstError ??= `${request.url}: ${error?.message ?? error}`;
        },
      };
      const crawler = kind === 'jsdom'
        ? new crawlee.JSDOMCrawler({
          ...common,
          async requestHandler({ request, window }) {
            const pageUrl = request.loadedUrl ?? request.url;
            const { rows, items } = extractItems(window.document, pageUrl, selectors);
            out.page(items, rows.length);
          },
        })
        : new crawlee.CheerioCrawler({
          ...common,
          async requestHandler({ request, $ }) {
            const pageUrl = request.loadedUrl ?? request.url;
            const rows = $('li.news-item');
            const items = [];
            rows.each((_, row) => {
              const r = $(row);
              const titleEl = r.find('h3.title a').first();
              const title = titleEl.length ? collapse(titleEl.text()) || null : null;
              const dateEl = r.find('.date').first();
              const publishedAtRaw = dateEl.length ? collapse(dateEl.text()) || null : null;
              const detailUrl = titleEl.length ? resolveHttp(titleEl.attr('href')?.trim(), pageUrl) : null;
              if (title !== null || detailUrl !== null) items.push({ title, publishedAtRaw, detailUrl });
            });
            out.page(items, rows.length);
          },
        });
      const t0 = performance.now();
      const stats = await crawler.run(urls);
      const elapsedMs = performance.now() - t0;
      const heapAfterGcMiB = heapAfterGc(); // the crawler is still reachable here
      await requestQueue.drop().catch(() => undefined);
      return { elapsedMs, t0, errors: errors || stats.requestsFailed, firstError, ...out.summary(), heapAfterGcMiB };
    },
    close: () => undefined,
  };
}

// ---------------------------------------------------------------- where the time goes

/** Median and mean per-call milliseconds of `fn` over `items` (after 30 unrecorded calls). */
/**
 * Per-call cost of `fn` over the pages: after a full GC and a pause for the collector's background
 * threads to finish, the pages are run through again and again for at least MIN_MEASURE_MS; the
 * mean is wall time over all calls (the GC pauses their own garbage causes included), the median
 * is one call's wall time.
 */
const MIN_MEASURE_MS = 500;
async function perCallMs(items, fn) {
  for (const item of items.slice(0, 30)) fn(item);
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 250));
  const times = [];
  const t0 = performance.now();
  do {
    for (const item of items) {
      const t = performance.now();
      fn(item);
      times.push(performance.now() - t);
    }
  } while (performance.now() - t0 < MIN_MEASURE_MS);
  const total = performance.now() - t0;
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], mean: total / times.length };
}

/**
 * The parts of a page's cost, measured separately in this one process: fetching only (the
 * platform's fetcher, and a bare node:http keep-alive client as the floor) at the bench's
 * concurrency, and parsing + extraction only, sequentially on already-fetched pages, with the
 * platform's jsdom, Crawlee's own (older) jsdom copy and cheerio.
 */
async function breakdown(warmUrls, urls, concurrency, selectors) {
  const { Agent, get } = await import('node:http');
  const { createRequire } = await import('node:module');
  const { JSDOM } = await import('jsdom');
  const { createPageFetcher, createSsrfGuard, createHostLimiter, extractItems, parseHtml, detectBlock, mainText, contentFingerprint } = await loadSvcParts();
  const crawleeRequire = createRequire(createRequire(import.meta.url).resolve('@crawlee/jsdom'));
  const { JSDOM: CrawleeJSDOM } = crawleeRequire('jsdom');
  const crawleeJsdomVersion = crawleeRequire('jsdom/package.json').version;
  const cheerio = await import('cheerio');

  const fetcher = createPageFetcher({ guard: createSsrfGuard({ allow: ['127.0.0.1'] }), limiter: createHostLimiter({ concurrencyPerHost: concurrency, delayMs: 0 }), robots: 'respect' });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const rawGet = (url) => new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    }).on('error', reject);
  });
  async function pool(list, task) {
    let next = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < list.length) await task(list[next++]);
    }));
    const cpu = process.cpuUsage(cpu0);
    const elapsedMs = performance.now() - t0;
    return { pagesPerSecond: list.length / (elapsedMs / 1000), cpuMsPerPage: (cpu.user + cpu.system) / 1000 / list.length };
  }
  await pool(warmUrls, (url) => fetcher.fetchPage(url));
  await pool(warmUrls, rawGet);
  const fetchOnly = await pool(urls, (url) => fetcher.fetchPage(url));
  const rawOnly = await pool(urls, rawGet);
  fetcher.close();
  agent.destroy();

  const sample = await Promise.all(urls.slice(0, 150).map(async (url) => ({ url, html: await rawGet(url) })));
  // The platform's way: one long-lived window's DOMParser (extract/parse-html.ts).
  const svcParse = await perCallMs(sample, ({ url, html }) => extractItems(parseHtml(html), url, selectors));
  const svcParseOnly = await perCallMs(sample, ({ html }) => parseHtml(html));
  // The way until issue #34: a new jsdom window per page.
  const svcWindowParse = await perCallMs(sample, ({ url, html }) => extractItems(new JSDOM(html, { url }).window.document, url, selectors));
  const svcEmptyWindow = await perCallMs(sample, ({ url }) => new JSDOM('', { url }).window.document);
  // The block-page rules the fetcher applies to every page (fetch/block-page.ts).
  const detect = await perCallMs(sample, ({ url, html }) => detectBlock({ url, status: 200, headers: { 'content-type': 'text/html' }, html }));
  // Change tracking's fingerprint of a page's main text (what a knowledge-sync run adds per detail page).
  const texts = sample.map(({ html }) => ({ text: mainText(html) }));
  const fingerprint = await perCallMs(texts, ({ text }) => contentFingerprint(text));
  const detectedNone = sample.every(({ url, html }) => detectBlock({ url, status: 200, headers: {}, html }) === null);
  const crawleeJsdomParse = await perCallMs(sample, ({ url, html }) => {
    // As Crawlee's JSDOMCrawler._parseHTML builds it (a Buffer body, pretendToBeVisual), then closed as it does.
    const { window } = new CrawleeJSDOM(Buffer.from(html), { url, contentType: 'text/html', pretendToBeVisual: true });
    extractItems(window.document, url, selectors);
    window.close();
  });
  const cheerioParse = await perCallMs(sample, ({ html }) => {
    const $ = cheerio.load(html);
    $('li.news-item').each((_, row) => {
      const r = $(row);
      r.find('h3.title a').first().text();
      r.find('.date').first().text();
    });
  });
  // The platform's parse must extract the same items as a window per page did.
  const same = sample.every(({ url, html }) => JSON.stringify(extractItems(parseHtml(html), url, selectors).items)
    === JSON.stringify(extractItems(new JSDOM(html, { url }).window.document, url, selectors).items));
  return { fetchOnly, rawOnly, svcParse, svcParseOnly, svcWindowParse, svcEmptyWindow, svcSameAsWindow: same, detect, detectedNone, fingerprint, crawleeJsdomParse, crawleeJsdomVersion, cheerioParse };
}

process.on('message', async (message) => {
  if (message?.type !== 'run') return;
  try {
    const { contender, warmUrls, urls, concurrency, selectors } = message;
    if (contender === 'breakdown') {
      process.send({ type: 'result', result: await breakdown(warmUrls, urls, concurrency, selectors) });
      return;
    }
    // 'jsdom-mem' / 'cheerio-mem': the same crawlers; the orchestrator sets CRAWLEE_PERSIST_STORAGE=false for them.
    const make = contender === 'svc' ? svcContender(concurrency, selectors) : crawleeContender(contender.replace(/-mem$/, ''), concurrency, selectors);
    const crawler = await make;
    const rssAfterLoadMiB = mib(process.memoryUsage().rss / 1024);
    const warm = await crawler.crawl(warmUrls);
    const cpu0 = process.cpuUsage();
    const measured = await crawler.crawl(urls);
    const cpu = process.cpuUsage(cpu0);
    crawler.close();
    const usage = process.resourceUsage();
    process.send({
      type: 'result',
      result: {
        contender,
        warm: { pages: warm.pages, items: warm.items, digest: warm.digest, errors: warm.errors, elapsedMs: warm.elapsedMs },
        pages: measured.pages,
        rows: measured.rows,
        items: measured.items,
        digest: measured.digest,
        errors: measured.errors,
        firstError: measured.firstError ?? warm.firstError,
        elapsedMs: measured.elapsedMs,
        // Until the last page was handled (excludes the crawler's own shutdown after it).
        toLastPageMs: measured.lastAt - measured.t0,
        heapAfterGcMiB: measured.heapAfterGcMiB,
        warmHeapAfterGcMiB: warm.heapAfterGcMiB,
        cpuMs: (cpu.user + cpu.system) / 1000,
        totalCpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
        rssAfterLoadMiB,
        peakRssMiB: mib(usage.maxRSS),
        vmHwmMiB: mib(vmHwmKiB() ?? 0),
        contacted: Object.fromEntries(contacted),
      },
    });
  } catch (error) {
    process.send({ type: 'error', message: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
