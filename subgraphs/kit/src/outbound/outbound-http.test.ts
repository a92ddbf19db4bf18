import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../errors.js';
import { createOutboundHttp } from './outbound-http.js';
import type { ResolvedAddress } from './ssrf-guard.js';

/** A local server standing for webhook endpoints: /ok answers 200, /to?l=<url> redirects (307) to l. */
let server: Server;
let base: string;
const hits: { url: string; method: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push({ url: req.url ?? '', method: req.method ?? '', body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/to') {
        res.writeHead(Number(url.searchParams.get('s') ?? 307), { location: url.searchParams.get('l') ?? '/' });
        res.end();
        return;
      }
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function refusedWith(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(SvcError);
  expect((error as SvcError).code).toBe('FORBIDDEN');
  return error as SvcError;
}

describe('refusal: checking a URL when it is set', () => {
  const outbound = createOutboundHttp({ resolve: async (host) => (host === 'public.example' ? [{ address: '93.184.216.34', family: 4 }] : host === 'rebind.example' ? [{ address: '127.0.0.1', family: 4 }] : Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }))) });
  afterAll(() => outbound.close());

  it.each([
    ['http://127.0.0.1:9000/hook', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://[::1]:8080/', 'loopback'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://2130706433/', 'loopback'],
    ['http://rebind.example/', 'loopback'],
  ])('refuses %s (%s)', async (url, range) => {
    expect(await outbound.refusal(url)).toContain(`(${range})`);
  });

  it('refuses what is not an http(s) URL', async () => {
    expect(await outbound.refusal('file:///etc/passwd')).toContain('only http and https');
    expect(await outbound.refusal('not a url')).toContain('Not a valid URL');
  });

  it('accepts public addresses, and names that do not resolve yet (judged again on every call)', async () => {
    expect(await outbound.refusal('https://public.example/hook')).toBeUndefined();
    expect(await outbound.refusal('https://not-yet.example/hook')).toBeUndefined();
  });

  it('accepts what the allow list opens', async () => {
    const allowed = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      expect(await allowed.refusal('http://127.0.0.1:9000/hook')).toBeUndefined();
      expect(await allowed.refusal('http://[::1]:9000/hook')).toContain('(loopback)');
    } finally {
      await allowed.close();
    }
  });
});

describe('fetch: the guard when the URL is called', () => {
  it('refuses a loopback URL without connecting', async () => {
    const outbound = createOutboundHttp();
    const before = hits.length;
    const error = await refusedWith(outbound.fetch(`${base}/ok`, { method: 'POST', body: '{}' }));
    expect(error.message).toContain('127.0.0.1 (loopback) is not allowed');
    expect(hits.length).toBe(before);
    await outbound.close();
  });

  it('checks again at connect time, so DNS rebinding after the check reaches nothing', async () => {
    // The name resolves to a public address for the check, then to 127.0.0.1 when connecting.
    let calls = 0;
    const rebinding = async (): Promise<ResolvedAddress[]> => (calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const outbound = createOutboundHttp({ resolve: rebinding });
    const port = new URL(base).port;
    const before = hits.length;
    const error = await refusedWith(outbound.fetch(`http://rebind.example:${port}/ok`, { method: 'POST', body: '{}' }));
    expect(error.message).toMatch(/^Refusing to connect to rebind\.example: rebind\.example resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(calls).toBe(2);
    expect(hits.length).toBe(before);
    await outbound.close();
  });

  it('posts to an allowed URL and follows redirects, checking each target', async () => {
    const outbound = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      const response = await outbound.fetch(`${base}/to?l=${encodeURIComponent('/ok')}`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(200);
      expect(hits.slice(-2).map((h) => [h.method, h.url, h.body])).toEqual([['POST', `/to?l=${encodeURIComponent('/ok')}`, '{"a":1}'], ['POST', '/ok', '{"a":1}']]);

      for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://[::1]:1/', 'http://0.0.0.0:1/']) {
        const error = await refusedWith(outbound.fetch(`${base}/to?l=${encodeURIComponent(target)}`, { method: 'POST', body: '{}' }));
        expect(error.message).toContain('(redirected from');
      }
    } finally {
      await outbound.close();
    }
  });

  it('turns a 303 into a GET without a body and stops after maxRedirects', async () => {
    const outbound = createOutboundHttp({ allow: ['127.0.0.1'], maxRedirects: 1 });
    try {
      await outbound.fetch(`${base}/to?s=303&l=${encodeURIComponent('/ok')}`, { method: 'POST', body: 'x' });
      expect(hits.at(-1)).toEqual({ url: '/ok', method: 'GET', body: '' });
      const loop = `${base}/to?l=${encodeURIComponent(`/to?l=${encodeURIComponent('/ok')}`)}`;
      const error = await outbound.fetch(loop, { method: 'POST', body: 'x' }).then(() => undefined, (e: unknown) => e as SvcError);
      expect(error?.extensions.slug).toBe('too-many-redirects');
    } finally {
      await outbound.close();
    }
  });
});
