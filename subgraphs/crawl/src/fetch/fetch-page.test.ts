import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SvcError, createSsrfGuard, type ResolvedAddress, type Resolver } from '@svc/kit';
import { createHostLimiter, type HostLimiter } from '../domain/host-politeness.js';
import { SVC_USER_AGENT } from '../domain/robots.js';
import { decodeBody, parseContentType } from './charset.js';
import { createPageFetcher, type PageFetcher, type PageFetcherOptions } from './fetch-page.js';
import { parseRetryAfter } from './retry-policy.js';

// ---------------------------------------------------------------------------------------------
// Fixture website: one node:http server on 127.0.0.1, routes keyed by "<hostname> <path>" (or
// "* <path>" for any host), so several origins (robots.test, plain.test, ...) share it through a
// fake resolver that maps *.test names to 127.0.0.1.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Hit {
  host: string;
  path: string;
  headers: IncomingHttpHeaders;
}

let server: Server;
let port: number;
let connections = 0;
const hits: Hit[] = [];
const routes = new Map<string, Handler>();

function route(key: string, handler: Handler): void {
  routes.set(key.includes(' ') ? key : `* ${key}`, handler);
}

function hitsOf(path: string, host?: string): Hit[] {
  return hits.filter((h) => h.path === path && (host === undefined || h.host === host));
}

const html = (body: string, type = 'text/html; charset=utf-8'): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
};

const redirect = (location: string, status = 302): Handler => (_req, res) => {
  res.writeHead(status, { location });
  res.end();
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    hits.push({ host, path, headers: req.headers });
    const handler = routes.get(`${host} ${path}`) ?? routes.get(`* ${path}`);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A resolver mapping every *.test name to 127.0.0.1, except metadata.test (169.254.169.254). */
const resolver: Resolver = async (host: string): Promise<ResolvedAddress[]> => {
  if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
  if (host.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const fetchers: PageFetcher[] = [];
afterEach(() => {
  for (const fetcher of fetchers.splice(0)) fetcher.close();
});

/** A fetcher allowed to reach the fixture (127.0.0.1), fast retries, short timeout. */
function fetcher(options: Partial<PageFetcherOptions> = {}): PageFetcher {
  const created = createPageFetcher({
    guard: createSsrfGuard({ allow: ['127.0.0.1'], resolve: resolver }),
    timeoutMs: 2000,
    backoffMs: 20,
    ...options,
  });
  fetchers.push(created);
  return created;
}

const at = (path: string, host = '127.0.0.1') => `http://${host}:${port}${path}`;
const originOf = (host: string) => `http://${host}:${port}`;

async function failure(promise: Promise<unknown>, code: string, slug?: string): Promise<SvcError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SvcError);
  const error = caught as SvcError;
  expect({ code: error.code, slug: error.extensions.slug }).toEqual({ code, slug: slug ?? error.extensions.slug });
  return error;
}

// ---------------------------------------------------------------------------------------------

describe('fetchPage: pages, compression, charsets', () => {
  it('fetches a plain UTF-8 page', async () => {
    const body = '<!doctype html><title>Café ☕</title><p>Grüße 😀</p>';
    route('/plain', html(body));
    const page = await fetcher().fetchPage(at('/plain'));
    expect(page).toMatchObject({
      url: at('/plain'),
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      html: body,
      bytes: Buffer.byteLength(body),
      redirects: [],
    });
    expect(page.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('identifies itself: User-Agent and Accept on the page and on robots.txt, compression offered', async () => {
    route('ua.test /who', html('<p>hi</p>'));
    await fetcher().fetchPage(at('/who', 'ua.test'));
    const [robots] = hitsOf('/robots.txt', 'ua.test');
    const [page] = hitsOf('/who', 'ua.test');
    expect(robots?.headers['user-agent']).toBe(SVC_USER_AGENT);
    expect(page?.headers['user-agent']).toBe(SVC_USER_AGENT);
    expect(page?.headers.accept).toBe('text/html,application/xhtml+xml;q=0.9,*/*;q=0.1');
    expect(page?.headers['accept-encoding']).toMatch(/gzip/);
    expect(page?.headers['accept-encoding']).toMatch(/br/);
  });

  it('sends a custom User-Agent when configured', async () => {
    route('custom-ua.test /x', html('<p>x</p>'));
    await fetcher({ userAgent: 'OtherBot/2.0' }).fetchPage(at('/x', 'custom-ua.test'));
    expect(hitsOf('/x', 'custom-ua.test')[0]?.headers['user-agent']).toBe('OtherBot/2.0');
  });

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
    ['deflate', deflateSync],
  ] as const)('decompresses a %s page', async (encoding, compress) => {
    const body = `<p>${'compressed text '.repeat(500)}</p>`;
    route(`/${encoding}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding });
      res.end(compress(Buffer.from(body)));
    });
    const page = await fetcher().fetchPage(at(`/${encoding}`));
    expect(page.html).toBe(body);
    expect(page.bytes).toBe(body.length);
  });

  it('decodes ISO-8859-1 declared in the Content-Type header', async () => {
    route('/latin1-header', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
      res.end(Buffer.from('<p>café naïve</p>', 'latin1'));
    });
    const page = await fetcher().fetchPage(at('/latin1-header'));
    expect(page.html).toBe('<p>café naïve</p>');
    expect(page.charset).toBe('windows-1252');
  });

  it.each([
    ['<meta charset>', '<meta charset="iso-8859-1">'],
    ['<meta http-equiv>', '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'],
  ])('decodes ISO-8859-1 declared only in %s', async (_name, meta) => {
    const path = `/latin1-meta-${meta.length}`;
    route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(Buffer.from(`<html><head>${meta}<title>Crème brûlée</title></head></html>`, 'latin1'));
    });
    const page = await fetcher().fetchPage(at(path));
    expect(page.html).toContain('<title>Crème brûlée</title>');
    expect(page.charset).toBe('windows-1252');
  });

  it('falls back to UTF-8 for an unknown charset label', async () => {
    route('/unknown-charset', html('<p>é</p>', 'text/html; charset=klingon-8'));
    const page = await fetcher().fetchPage(at('/unknown-charset'));
    expect(page).toMatchObject({ html: '<p>é</p>', charset: 'utf-8' });
  });

  it('accepts text/plain and application/xhtml+xml', async () => {
    route('/text', html('just text', 'text/plain'));
    route('/xhtml', html('<html xmlns="http://www.w3.org/1999/xhtml"/>', 'application/xhtml+xml'));
    const f = fetcher();
    expect((await f.fetchPage(at('/text'))).contentType).toBe('text/plain');
    expect((await f.fetchPage(at('/xhtml'))).contentType).toBe('application/xhtml+xml');
  });

  it('refuses other content types, naming the type', async () => {
    route('/pdf', html('%PDF-1.7', 'application/pdf'));
    route('/untyped', (_req, res) => {
      res.writeHead(200);
      res.end('?');
    });
    const f = fetcher();
    const error = await failure(f.fetchPage(at('/pdf')), 'UPSTREAM_ERROR', 'unsupported-content-type');
    expect(error.message).toBe(`${at('/pdf')} is of type application/pdf; only text/html, application/xhtml+xml and text/plain pages are fetched`);
    await failure(f.fetchPage(at('/untyped')), 'UPSTREAM_ERROR', 'unsupported-content-type');
  });
});

describe('fetchPage: retries and timeouts', () => {
  it('retries a 503 and honours Retry-After: 1', async () => {
    let calls = 0;
    route('/flaky', (_req, res) => {
      if (++calls === 1) {
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' });
        res.end('busy');
        return;
      }
      html('<p>back</p>')(_req, res);
    });
    const started = Date.now();
    const page = await fetcher({ backoffMs: 10 }).fetchPage(at('/flaky'));
    expect(page.html).toBe('<p>back</p>');
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(page.elapsedMs).toBeGreaterThanOrEqual(950);
  });

  it('gives up on a 500 after the retries with UPSTREAM_ERROR naming URL and status', async () => {
    route('/broken', (_req, res) => {
      res.writeHead(500);
      res.end();
    });
    const error = await failure(fetcher({ retries: 2 }).fetchPage(at('/broken')), 'UPSTREAM_ERROR', 'upstream-status');
    expect(error.message).toBe(`Fetching ${at('/broken')} failed: HTTP 500 Internal Server Error (after 3 attempts)`);
    expect(error.extensions.details).toEqual({ url: at('/broken'), status: 500 });
    expect(hitsOf('/broken')).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond the cap, and passes it on (a 429 is a rate-limit block)', async () => {
    route('/later', (_req, res) => {
      res.writeHead(429, { 'retry-after': '120' });
      res.end();
    });
    const started = Date.now();
    const error = await failure(fetcher().fetchPage(at('/later')), 'UPSTREAM_ERROR', 'blocked-page');
    expect(error.extensions.details).toMatchObject({ status: 429, block: { kind: 'rate-limited' }, pausedMs: 120_000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.extensions.retryAfter).toBe(120);
    expect(hitsOf('/later')).toHaveLength(1);
  });

  it('does not retry a 404', async () => {
    const error = await failure(fetcher().fetchPage(at('/missing')), 'UPSTREAM_ERROR', 'upstream-status');
    expect(error.message).toBe(`Fetching ${at('/missing')} failed: HTTP 404 Not Found`);
    expect(hitsOf('/missing')).toHaveLength(1);
  });

  it('times out a slow page (and retries the timeout)', async () => {
    route('/slow', (_req, res) => {
      const timer = setTimeout(() => html('<p>too late</p>')(_req, res), 3000);
      res.on('close', () => clearTimeout(timer));
    });
    const started = Date.now();
    const error = await failure(fetcher({ timeoutMs: 250, retries: 1 }).fetchPage(at('/slow')), 'UPSTREAM_ERROR', 'upstream-timeout');
    expect(error.message).toBe(`Fetching ${at('/slow')} timed out after 250 ms (after 2 attempts)`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(hitsOf('/slow')).toHaveLength(2);
  });

  it('times out a page whose body stalls', async () => {
    route('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<p>start');
    });
    await failure(fetcher({ timeoutMs: 250, retries: 0 }).fetchPage(at('/stall')), 'UPSTREAM_ERROR', 'upstream-timeout');
  });

  it('retries a refused connection, then reports it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(
      fetcher({ retries: 1, robots: 'ignore' }).fetchPage(`http://127.0.0.1:${deadPort}/`),
      'UPSTREAM_ERROR',
      'upstream-unreachable',
    );
    expect(error.message).toMatch(new RegExp(`^Fetching http://127\\.0\\.0\\.1:${deadPort}/ failed: ECONNREFUSED .*\\(after 2 attempts\\)$`));
  });
});

describe('fetchPage: size cap', () => {
  it('aborts a chunked page (no Content-Length) as soon as it passes maxBytes', async () => {
    let sent = 0;
    let finished = false;
    const total = 50 * 1024 * 1024;
    const closed = new Promise<void>((resolve) => {
      route('/huge', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(16 * 1024, 'a');
        const pump = () => {
          while (sent < total && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) {
            finished = true;
            res.end();
          }
        };
        res.on('close', () => resolve());
        pump();
      });
    });
    const error = await failure(fetcher({ maxBytes: 64 * 1024 }).fetchPage(at('/huge')), 'UPSTREAM_ERROR', 'page-too-large');
    expect(error.message).toBe(`${at('/huge')} is larger than the 65536-byte limit`);
    await closed;
    expect(finished).toBe(false);
    expect(sent).toBeLessThan(10 * 1024 * 1024);
  });

  it('refuses a declared Content-Length over maxBytes before reading', async () => {
    route('/declared', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(1024 * 1024) });
      res.write(Buffer.alloc(1024, 'a'));
    });
    await failure(fetcher({ maxBytes: 64 * 1024 }).fetchPage(at('/declared')), 'UPSTREAM_ERROR', 'page-too-large');
  });

  it('counts decompressed bytes (a gzip bomb stops at the limit)', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, ' '));
    route('/bomb', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    expect(bomb.length).toBeLessThan(64 * 1024);
    await failure(fetcher({ maxBytes: 64 * 1024 }).fetchPage(at('/bomb')), 'UPSTREAM_ERROR', 'page-too-large');
  });
});

describe('fetchPage: redirects', () => {
  it('follows a redirect chain within the allowed host, listing it', async () => {
    route('/r1', redirect('/r2', 301));
    route('/r2', redirect(at('/r3'), 307));
    route('/r3', redirect('final?x=1', 308));
    route('/final?x=1', html('<p>arrived</p>'));
    const page = await fetcher().fetchPage(at('/r1'));
    expect(page.url).toBe(at('/final?x=1'));
    expect(page.redirects).toEqual([at('/r1'), at('/r2'), at('/r3')]);
    expect(page.html).toBe('<p>arrived</p>');
  });

  it('follows exactly maxRedirects hops and refuses one more, naming the chain', async () => {
    for (let i = 1; i <= 4; i++) route(`/hop${i}`, redirect(`/hop${i + 1}`));
    route('/hop5', html('<p>end</p>'));
    const f = fetcher({ maxRedirects: 3 });
    expect((await fetcher({ maxRedirects: 4 }).fetchPage(at('/hop1'))).redirects).toHaveLength(4);
    const error = await failure(f.fetchPage(at('/hop1')), 'UPSTREAM_ERROR', 'too-many-redirects');
    expect(error.message).toBe(
      `Too many redirects (more than 3) fetching ${at('/hop1')}: ${[1, 2, 3, 4, 5].map((i) => at(`/hop${i}`)).join(' → ')}`,
    );
  });

  it.each([
    ['http://10.0.0.1/', '10.0.0.1 (private)'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (linkLocal)'],
    ['http://metadata.test/latest/meta-data/', 'metadata.test resolves to 169.254.169.254 (linkLocal)'],
  ])('refuses a redirect to %s with the guard error naming the target', async (target, reason) => {
    const path = `/to-private-${encodeURIComponent(target)}`;
    route(path, redirect(target));
    const error = await failure(fetcher({ timeoutMs: 5000, retries: 0 }).fetchPage(at(path)), 'FORBIDDEN', 'address-not-allowed');
    expect(error.message).toContain(`Refusing to fetch ${target}: `);
    expect(error.message).toContain(reason);
    expect(error.message).toContain(`(redirected from ${at(path)})`);
  });

  it('detects a redirect loop', async () => {
    route('/loop-a', redirect('/loop-b'));
    route('/loop-b', redirect('/loop-a'));
    const error = await failure(fetcher().fetchPage(at('/loop-a')), 'UPSTREAM_ERROR', 'redirect-loop');
    expect(error.message).toBe(`Redirect loop fetching ${at('/loop-a')}: ${at('/loop-a')} → ${at('/loop-b')} → ${at('/loop-a')}`);
    expect(hitsOf('/loop-a')).toHaveLength(1);
  });

  it('reports a redirect without a Location as a failure', async () => {
    route('/no-location', (_req, res) => {
      res.writeHead(302);
      res.end();
    });
    await failure(fetcher().fetchPage(at('/no-location')), 'UPSTREAM_ERROR', 'upstream-status');
  });
});

describe('fetchPage: SSRF guard', () => {
  it('refuses 127.0.0.1 when it is not allow-listed, before any connection', async () => {
    const before = connections;
    const f = createPageFetcher({ guard: createSsrfGuard({ resolve: resolver }) });
    fetchers.push(f);
    const error = await failure(f.fetchPage(at('/plain')), 'FORBIDDEN', 'address-not-allowed');
    expect(error.message).toBe(`Refusing to fetch ${at('/plain')}: 127.0.0.1 (loopback) is not allowed`);
    await failure(f.fetchPage(at('/plain', 'plain.test')), 'FORBIDDEN', 'address-not-allowed');
    expect(connections).toBe(before);
  });

  it('vets the address again at connect time (DNS rebinding)', async () => {
    let queries = 0;
    const rebinding: Resolver = async () => [{ address: ++queries === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    const before = connections;
    const f = createPageFetcher({ guard: createSsrfGuard({ resolve: rebinding }), robots: 'ignore', retries: 0, timeoutMs: 2000 });
    fetchers.push(f);
    const error = await failure(f.fetchPage(at('/plain', 'rebind.test')), 'FORBIDDEN', 'address-not-allowed');
    expect(error.message).toBe('Refusing to connect to rebind.test: rebind.test resolves to 127.0.0.1 (loopback), which is not allowed');
    expect(queries).toBe(2);
    expect(connections).toBe(before);
  });

  it('refuses nonsensical options', () => {
    const guard = createSsrfGuard();
    expect(() => createPageFetcher({ guard, maxBytes: 0 })).toThrow('maxBytes must be an integer of at least 1; got 0');
    expect(() => createPageFetcher({ guard, retries: -1 })).toThrow(SvcError);
    expect(() => createPageFetcher({ guard, timeoutMs: Number.NaN })).toThrow(SvcError);
  });

  it('rejects invalid URLs as BAD_USER_INPUT and other schemes as FORBIDDEN', async () => {
    const f = fetcher();
    await failure(f.fetchPage('not a url'), 'BAD_USER_INPUT', 'invalid-url');
    await failure(f.fetchPage('file:///etc/passwd'), 'FORBIDDEN', 'address-not-allowed');
  });
});

describe('fetchPage: robots.txt', () => {
  const robots = (text: string): Handler => html(text, 'text/plain');

  it('refuses a disallowed path, fetches an allowed one, asks for robots.txt once per origin', async () => {
    route('robots.test /robots.txt', robots('User-agent: *\nDisallow: /\n\nUser-agent: SvcPlatformCrawler\nDisallow: /private\n'));
    route('robots.test /private/page', html('<p>secret</p>'));
    route('robots.test /public', html('<p>open</p>'));
    const f = fetcher();
    const error = await failure(f.fetchPage(at('/private/page', 'robots.test')), 'FORBIDDEN', 'robots-disallowed');
    expect(error.message).toBe(`robots.txt of ${originOf('robots.test')} disallows /private/page for SvcPlatformCrawler`);
    expect((await f.fetchPage(at('/public', 'robots.test'))).html).toBe('<p>open</p>');
    expect(hitsOf('/private/page', 'robots.test')).toHaveLength(0);
    expect(hitsOf('/robots.txt', 'robots.test')).toHaveLength(1);
  });

  it("fetches anyway with robots: 'ignore', without asking for robots.txt", async () => {
    route('ignore.test /robots.txt', robots('User-agent: *\nDisallow: /\n'));
    route('ignore.test /anything', html('<p>fetched</p>'));
    const page = await fetcher({ robots: 'ignore' }).fetchPage(at('/anything', 'ignore.test'));
    expect(page.html).toBe('<p>fetched</p>');
    expect(hitsOf('/robots.txt', 'ignore.test')).toHaveLength(0);
  });

  it('treats a missing robots.txt (404) as allowing everything', async () => {
    route('norobots.test /page', html('<p>ok</p>'));
    expect((await fetcher().fetchPage(at('/page', 'norobots.test'))).html).toBe('<p>ok</p>');
    expect(hitsOf('/robots.txt', 'norobots.test')).toHaveLength(1);
  });

  it('treats a robots.txt answering 503 as disallowing everything, saying why', async () => {
    route('down.test /robots.txt', (_req, res) => {
      res.writeHead(503);
      res.end();
    });
    route('down.test /page', html('<p>ok</p>'));
    const error = await failure(fetcher({ retries: 0 }).fetchPage(at('/page', 'down.test')), 'FORBIDDEN', 'robots-disallowed');
    expect(error.message).toBe(
      `robots.txt of ${originOf('down.test')} could not be fetched (HTTP 503), so it disallows /page for SvcPlatformCrawler until it can be`,
    );
    expect(hitsOf('/page', 'down.test')).toHaveLength(0);
  });

  it('checks robots.txt of every origin a redirect leads to', async () => {
    route('from.test /go', redirect(at('/blocked', 'to.test')));
    route('to.test /robots.txt', robots('User-agent: SvcPlatformCrawler\nDisallow: /blocked\n'));
    const error = await failure(fetcher().fetchPage(at('/go', 'from.test')), 'FORBIDDEN', 'robots-disallowed');
    expect(error.message).toBe(`robots.txt of ${originOf('to.test')} disallows /blocked for SvcPlatformCrawler`);
    expect(hitsOf('/blocked', 'to.test')).toHaveLength(0);
  });

  it('follows a redirected robots.txt', async () => {
    route('moved.test /robots.txt', redirect('/real-robots.txt', 301));
    route('moved.test /real-robots.txt', robots('User-agent: *\nDisallow: /no\n'));
    await failure(fetcher().fetchPage(at('/no', 'moved.test')), 'FORBIDDEN', 'robots-disallowed');
  });

  it('feeds crawl-delay into the limiter and runs every request through it', async () => {
    route('slowpoke.test /robots.txt', robots('User-agent: SvcPlatformCrawler\nCrawl-delay: 2.5\nDisallow:\n'));
    route('slowpoke.test /page', html('<p>polite</p>'));
    const calls: string[] = [];
    const real = createHostLimiter({ concurrencyPerHost: 1, delayMs: 0 });
    const limiter: HostLimiter = {
      ...real,
      run(host, task) {
        calls.push(`run ${host}`);
        return task();
      },
      setDelay(host, ms) {
        calls.push(`setDelay ${host} ${ms}`);
      },
    };
    await fetcher({ limiter }).fetchPage(at('/page', 'slowpoke.test'));
    const host = `slowpoke.test:${port}`;
    expect(calls).toEqual([`run ${host}`, `setDelay ${host} 2500`, `run ${host}`]);
  });

  it('resets the host delay when robots.txt sets none', async () => {
    route('nodelay.test /page', html('<p>x</p>'));
    const delays: Array<[string, number]> = [];
    const limiter: HostLimiter = { ...createHostLimiter({ concurrencyPerHost: 1, delayMs: 0 }), setDelay: (host, ms) => void delays.push([host, ms]) };
    await fetcher({ limiter }).fetchPage(at('/page', 'nodelay.test'));
    expect(delays).toEqual([[`nodelay.test:${port}`, 0]]);
  });
});

describe('fetchPage: per-host politeness', () => {
  it('keeps to the per-host concurrency of a real limiter', async () => {
    let inFlight = 0;
    let most = 0;
    route('busy.test /p', (req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        html('<p>p</p>')(req, res);
      }, 50);
    });
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 0 });
    const f = fetcher({ limiter, robots: 'ignore' });
    await Promise.all([1, 2, 3].map(() => f.fetchPage(at('/p', 'busy.test'))));
    expect(hitsOf('/p', 'busy.test')).toHaveLength(3);
    expect(most).toBe(1);
  });
});

describe('helpers', () => {
  it('parseRetryAfter reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Wednesday, 01-Jan-25 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed Jan  1 00:00:02 2025', now)).toBe(2000);
    expect(parseRetryAfter('2025-01-01', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('parseContentType splits the media type and charset', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ type: 'text/html', charset: 'ISO-8859-1' });
    expect(parseContentType('text/plain;format=flowed')).toEqual({ type: 'text/plain' });
    expect(parseContentType(undefined)).toEqual({ type: '' });
  });

  it('decodeBody reads both meta forms and skips comments', () => {
    const sniffed = (text: string) => decodeBody(Buffer.from(text, 'latin1'), 'text/html').charset;
    expect(sniffed('<head><META CHARSET=windows-1251>')).toBe('windows-1251');
    expect(sniffed(`<meta content='text/html; charset=koi8-r' http-equiv='content-type'>`)).toBe('koi8-r');
    expect(sniffed('<!-- <meta charset="shift_jis"> --><meta charset="utf-8">')).toBe('utf-8');
    expect(sniffed(`${' '.repeat(1100)}<meta charset="koi8-r">`)).toBe('utf-8');
    expect(sniffed('<meta name="description" content="charset=koi8-r">')).toBe('utf-8');
  });

  it('decodeBody: BOM beats header beats meta; meta only for HTML', () => {
    const latin = Buffer.from('<meta charset="iso-8859-1">é', 'latin1');
    expect(decodeBody(latin, 'text/html').text).toBe('<meta charset="iso-8859-1">é');
    expect(decodeBody(latin, 'text/plain').charset).toBe('utf-8');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é')]);
    expect(decodeBody(bom, 'text/html', 'iso-8859-1')).toEqual({ text: 'é', charset: 'utf-8' });
    expect(decodeBody(Buffer.from('<meta charset="utf-16">é'), 'text/html').charset).toBe('utf-8');
    expect(decodeBody(Buffer.from('<?xml version="1.0" encoding="koi8-r"?>é'), 'text/plain').charset).toBe('utf-8');
    expect(decodeBody(Buffer.from('\uFEFFé', 'utf16le'), 'text/plain')).toEqual({ text: 'é', charset: 'utf-16le' });
    expect(decodeBody(Buffer.from('é', 'latin1'), 'text/plain', 'ISO-8859-1')).toEqual({ text: 'é', charset: 'windows-1252' });
  });
});
