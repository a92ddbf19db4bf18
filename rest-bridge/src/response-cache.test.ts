import { beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, loadOperations, type PurgeChannel, type PurgeListener } from '@svc/kit';
import { fileURLToPath } from 'node:url';
import { createBridge, type GraphQLResult, type RestRequest } from './bridge.js';
import { createResponseCache } from './response-cache.js';
import { ROUTES } from './routes/index.js';
import { answerOf } from './testing.js';

const OPERATIONS_DIR = fileURLToPath(new URL('../../../schema/operations/', import.meta.url));
const log = createLogger({ level: 'silent' });
let operations: Map<string, string>;

beforeAll(async () => {
  operations = await loadOperations(OPERATIONS_DIR);
});

/** A purge channel the test drives: `purge` announces, `heard` says whether announcements arrive. */
function testChannel() {
  const listeners = new Set<PurgeListener>();
  const channel: PurgeChannel = {
    publish: async (keys) => listeners.forEach((l) => l.purge(keys)),
    subscribe(listener) {
      listeners.add(listener);
      listener.heard(true);
      return () => listeners.delete(listener);
    },
    close: async () => listeners.clear(),
  };
  return { channel, heard: (now: boolean) => listeners.forEach((l) => l.heard(now)) };
}

/** The delivery's GraphQL answer for `slug`, version `version`. */
function delivered(slug: string, version: number, maxAgeSeconds = 300): GraphQLResult {
  return {
    data: {
      deliveredContent: {
        etag: `"${slug}-v${version}"`,
        maxAgeSeconds,
        surrogateKeys: [`svc-content-demo-${slug}`, 'svc-site-demo'],
        content: { contentId: 'c-1', slug, title: `Title v${version}`, status: 'PUBLISHED', publishedAt: '2026-11-01T00:00:00.000Z', version, fields: {}, seo: { metaTitle: 't', metaDescription: '', ogImage: '' } },
      },
    },
  };
}

function setup(options: { maxAgeSeconds?: number } = {}) {
  const { channel, heard } = testChannel();
  const versions = new Map<string, number>([['welcome', 1], ['about', 1]]);
  const calls: { slug: string; site: string | undefined }[] = [];
  let hold: Promise<void> | undefined;
  const cache = createResponseCache({ channel, log });
  const bridge = createBridge({
    routes: ROUTES,
    operations,
    log,
    responseCache: cache,
    execute: async (request, headers) => {
      const slug = String(request.variables.slug);
      calls.push({ slug, site: headers['x-svc-site-key'] });
      const answer = delivered(slug, versions.get(slug) ?? 1, options.maxAgeSeconds);
      await hold;
      return answerOf(answer);
    },
  });
  return {
    bridge, cache, calls, versions, heard,
    purge: (slug: string) => channel.publish([`svc-content-demo-${slug}`]),
    holdNext: () => {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

const get = (slug: string, headers: Record<string, string> = {}): RestRequest => ({
  method: 'GET', path: `/api/v1/contents/${slug}`, query: new URLSearchParams(), headers: { 'x-svc-site-key': 'demo', accept: 'application/json', ...headers },
});

describe('the bridge\'s response cache (content delivery)', () => {
  it('answers a repeated delivery from memory, the same status, headers and body, and a conditional one with 304', async () => {
    const { bridge, calls } = setup();
    const first = await bridge.handle(get('welcome'));
    const again = await bridge.handle(get('welcome', { 'x-request-id': 'another-request' }));
    expect(calls).toHaveLength(1);
    expect(again).toEqual(first);
    expect(first.headers.etag).toBe('"welcome-v1"');
    const notModified = await bridge.handle(get('welcome', { 'if-none-match': '"welcome-v1"' }));
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeUndefined();
    expect(notModified.headers['content-type']).toBeUndefined();
    expect(notModified.headers.etag).toBe('"welcome-v1"');
    expect(calls).toHaveLength(1);
  });

  it('drops a response when its content is purged, and only that one', async () => {
    const { bridge, calls, versions, purge } = setup();
    await bridge.handle(get('welcome'));
    await bridge.handle(get('about'));
    versions.set('welcome', 2);
    await purge('welcome');
    const after = await bridge.handle(get('welcome'));
    expect(JSON.parse(after.body!).data.version).toBe(2);
    await bridge.handle(get('about'));
    expect(calls.map((c) => c.slug)).toEqual(['welcome', 'about', 'welcome']);
  });

  it('never answers a preview link from memory nor keeps it; its answer is private and needs no site key', async () => {
    const { bridge, calls } = setup();
    const live = await bridge.handle(get('welcome'));
    expect(live.headers['cache-control']).toMatch(/^public, /);
    const preview = (headers: Record<string, string> = {}): RestRequest => ({ ...get('welcome', headers), query: new URLSearchParams({ preview: 'a-token' }) });
    const { 'x-svc-site-key': _site, ...withoutSite } = preview().headers;
    for (const request of [preview(), preview(), { ...preview(), headers: withoutSite }]) {
      const answer = await bridge.handle(request);
      expect(answer.status).toBe(200);
      expect(answer.headers['cache-control']).toBe('private, no-store');
      expect(answer.headers['x-robots-tag']).toBe('noindex');
      expect(answer.headers.etag).toBeUndefined();
      expect(answer.headers.xkey).toBeUndefined();
    }
    expect(calls).toHaveLength(4);
    // The live entry is still the one kept: a preview did not replace it.
    expect(await bridge.handle(get('welcome'))).toEqual(live);
    expect(calls).toHaveLength(4);
  });

  it('keeps callers apart: another site is another entry, and a request with a credential is never kept or served from memory', async () => {
    const { bridge, calls } = setup();
    await bridge.handle(get('welcome'));
    await bridge.handle(get('welcome', { 'x-svc-site-key': 'shop' }));
    await bridge.handle(get('welcome', { authorization: 'Bearer author' }));
    await bridge.handle(get('welcome', { authorization: 'Bearer author' }));
    expect(calls.map((c) => c.site)).toEqual(['demo', 'shop', 'demo', 'demo']);
  });

  it('does not keep a response whose call began before a purge, nor one with no shared lifetime', async () => {
    const { bridge, calls, purge, holdNext } = setup();
    const release = holdNext();
    const pending = bridge.handle(get('welcome'));
    await new Promise((resolve) => setImmediate(resolve));
    await purge('welcome');
    release();
    await pending;
    await bridge.handle(get('welcome'));
    expect(calls).toHaveLength(2);

    const zero = setup({ maxAgeSeconds: 0 });
    await zero.bridge.handle(get('welcome'));
    await zero.bridge.handle(get('welcome'));
    expect(zero.calls).toHaveLength(2);
  });

  it('keeps and serves nothing while purges may be missed, and starts again once they are heard', async () => {
    const { bridge, cache, calls, heard } = setup();
    await bridge.handle(get('welcome'));
    expect(cache.size).toBe(1);
    heard(false);
    expect(cache.size).toBe(0);
    await bridge.handle(get('welcome'));
    await bridge.handle(get('welcome'));
    expect(calls).toHaveLength(3);
    heard(true);
    await bridge.handle(get('welcome'));
    await bridge.handle(get('welcome'));
    expect(calls).toHaveLength(4);
  });

  it('forgets a response after its shared lifetime, and bounds what it keeps', async () => {
    const { channel } = testChannel();
    const cache = createResponseCache({ channel, log, maxEntries: 2 });
    const response = { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    const meta = { tags: ['t'], maxAgeSeconds: 10 };
    expect(cache.put('a', cache.generation(), response, meta, 0)).toBe(true);
    expect(cache.get('a', 9_999)).toBeDefined();
    expect(cache.get('a', 10_000)).toBeUndefined();
    for (const key of ['a', 'b', 'c']) cache.put(key, cache.generation(), response, meta, 0);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.put('d', cache.generation(), { ...response, status: 404 }, meta, 0)).toBe(false);
    expect(cache.put('e', cache.generation(), response, { tags: [], maxAgeSeconds: 10 }, 0)).toBe(false);
  });
});
