import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError, createSsrfGuard } from '@svc/kit';
import { createHostLimiter } from '../domain/host-politeness.js';
import { createPageFetcher, type PageFetcher, type PageFetcherOptions } from './fetch-page.js';

// The page fetcher with block pages: a local site answers each path with a fixture of
// test/fixtures/blocked (status and headers per path), and the fetcher must refuse the blocks,
// pause the host as asked, and return the site's own pages.

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/blocked/${name}`, import.meta.url), 'utf8');
const PAGES: Record<string, { status: number; headers?: Record<string, string>; body: string }> = {
  '/challenge': { status: 403, headers: { server: 'cloudflare', 'cf-mitigated': 'challenge' }, body: fixture('cloudflare-challenge.html') },
  '/captcha-200': { status: 200, body: fixture('datadome-captcha.html') },
  '/limited': { status: 429, headers: { 'retry-after': '1' }, body: fixture('rate-limited.html') },
  '/soft-404': { status: 200, body: fixture('soft-404.html') },
  '/checking-503': { status: 503, body: fixture('checking-browser.html') },
  '/maintenance-503': { status: 503, body: '<html><body><h1>Down for maintenance</h1></body></html>' },
  '/article': { status: 200, body: fixture('article-mentions-captcha.html') },
};

/** Every block kind as a site serves it: path, fixture, status, headers, the kind the fetcher must name. */
const KINDS: { path: string; file: string; status: number; headers?: Record<string, string>; kind: string }[] = [
  { path: '/k/challenge', file: 'cloudflare-challenge.html', status: 403, headers: { 'cf-mitigated': 'challenge' }, kind: 'challenge' },
  { path: '/k/captcha', file: 'recaptcha-wall.html', status: 200, kind: 'captcha' },
  { path: '/k/access-denied', file: 'rate-limited.html', status: 403, kind: 'access-denied' },
  { path: '/k/login-wall', file: 'login-wall.html', status: 200, kind: 'login-wall' },
  { path: '/k/rate-limited', file: 'rate-limited.html', status: 429, kind: 'rate-limited' },
  { path: '/k/javascript-required', file: 'javascript-shell.html', status: 200, kind: 'javascript-required' },
  { path: '/k/soft-404', file: 'soft-404.html', status: 200, kind: 'soft-404' },
  { path: '/k/consent', file: 'consent-interstitial.html', status: 200, kind: 'consent' },
  { path: '/k/refresh-loop', file: 'refresh-loop.html', status: 200, kind: 'refresh-loop' },
];
for (const k of KINDS) PAGES[k.path] = { status: k.status, ...(k.headers ? { headers: k.headers } : {}), body: fixture(k.file) };

let server: Server;
let port: number;
const hits: { path: string; at: number }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push({ path, at: Date.now() });
    const page = PAGES[path];
    res.writeHead(page?.status ?? 404, { 'content-type': 'text/html; charset=utf-8', ...page?.headers });
    res.end(page?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fetchers: PageFetcher[] = [];
afterEach(() => {
  for (const f of fetchers.splice(0)) f.close();
  hits.length = 0;
});

function fetcher(options: Partial<PageFetcherOptions> = {}) {
  const limiter = createHostLimiter({ concurrencyPerHost: 2, delayMs: 0 });
  const created = createPageFetcher({ guard: createSsrfGuard({ allow: ['127.0.0.1'] }), limiter, robots: 'ignore', backoffMs: 10, blockBackoffMs: 200, ...options });
  fetchers.push(created);
  return created;
}
const at = (path: string) => `http://127.0.0.1:${port}${path}`;

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('fetchPage and block pages', () => {
  it('refuses a challenge answered with 403 or 200, naming the kind and the reason', async () => {
    const f = fetcher();
    const challenge = await refusal(f.fetchPage(at('/challenge')));
    expect(challenge).toMatchObject({ code: 'UPSTREAM_ERROR', extensions: { slug: 'blocked-page' } });
    expect(challenge.message).toBe(`${at('/challenge')} answered a block page instead of its content (challenge: Cloudflare challenge (cf-mitigated: challenge))`);
    expect(challenge.extensions.details).toMatchObject({ url: at('/challenge'), status: 403, block: { kind: 'challenge', rule: 'vendor-challenge' } });
    const captcha = await refusal(f.fetchPage(at('/captcha-200')));
    expect(captcha.extensions.details).toMatchObject({ status: 200, block: { kind: 'challenge', reason: expect.stringContaining('DataDome') } });
    const soft = await refusal(f.fetchPage(at('/soft-404')));
    expect(soft.extensions.details).toMatchObject({ status: 200, block: { kind: 'soft-404' } });
  });

  it('pauses the host after a block, doubling per block in a row, and a good page resets it', async () => {
    const f = fetcher();
    await refusal(f.fetchPage(at('/soft-404')));
    const first = f.pausedFor(at('/anything'));
    expect(first).toBeGreaterThan(100);
    expect(first).toBeLessThanOrEqual(200);
    const second = await refusal(f.fetchPage(at('/soft-404')));
    expect(second.extensions.details).toMatchObject({ pausedMs: 400 });
    // The second request waited for the first pause.
    const [a, b] = hits.filter((h) => h.path === '/soft-404');
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(150);
    await new Promise((r) => setTimeout(r, 400));
    expect((await f.fetchPage(at('/article'))).html).toContain('Why CAPTCHAs are getting harder');
    const third = await refusal(f.fetchPage(at('/soft-404')));
    expect(third.extensions.details).toMatchObject({ pausedMs: 200 });
  });

  it('honours Retry-After of a 429 as the pause and passes it on', async () => {
    const f = fetcher({ retries: 0 });
    const limited = await refusal(f.fetchPage(at('/limited')));
    expect(limited.extensions).toMatchObject({ retryAfter: 1, details: { block: { kind: 'rate-limited' }, pausedMs: 1000 } });
    expect(f.pausedFor(at('/article'))).toBeGreaterThan(500);
    const started = Date.now();
    await f.fetchPage(at('/article'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('a 503 is a block only when it is a challenge; maintenance stays an ordinary failure', async () => {
    const f = fetcher({ retries: 0 });
    const checking = await refusal(f.fetchPage(at('/checking-503')));
    expect(checking.extensions.details).toMatchObject({ status: 503, block: { kind: 'challenge', rule: 'challenge-words' } });
    const maintenance = await refusal(fetcher({ retries: 0 }).fetchPage(at('/maintenance-503')));
    expect(maintenance.extensions.slug).toBe('upstream-status');
  });

  it.each(KINDS)('refuses $file served with HTTP $status as $kind', async ({ path, kind, status }) => {
    const error = await refusal(fetcher({ retries: 0 }).fetchPage(at(path)));
    expect(error.extensions).toMatchObject({ slug: 'blocked-page', details: { url: at(path), status, block: { kind } } });
  });

  it('an article about captchas and challenge pages is content', async () => {
    const page = await fetcher().fetchPage(at('/article'));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Checking your browser');
  });
});
