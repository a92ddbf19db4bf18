import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signPreviewToken } from '@svc/cms/domain/preview-token';
import { Redis } from 'ioredis';
import pg from 'pg';
import { call, gql, graphAs } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { freePort, startVarnish, type Varnish } from './support/varnish.js';

// Preview links through the real Varnish with the repo's VCL, the bridge and the router: a draft
// is shown to whoever holds the token, and never to anyone else, from any cache.
let platform: TestPlatform;
let varnish: Varnish;
let editor: string;
let otherEditor: string;
let db: pg.Client;
let redis: Redis;
const site = { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' };
const LIVE_TITLE = 'Pricing that fits';
const DRAFT_TITLE = 'Pricing that fits (new plans, not yet live)';
let pricing: { id: string };
let about: { id: string };

const { send: authoring, ok: authored } = graphAs(() => platform.router, () => editor);

const CREATE = 'mutation($input: CreateContentInput!) { createContent(input: $input) { id } }';
const PUBLISH = 'mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }';
const EDIT = 'mutation($id: ID!, $input: UpdateDraftInput!) { updateContentDraft(id: $id, input: $input) { latestVersion } }';
const LINK = 'mutation($id: ID!, $version: Int, $ttl: Int) { createPreviewLink(id: $id, version: $version, expiresInSeconds: $ttl) { token contentId siteKey slug version expiresAt path } }';
const ROTATE = 'mutation($siteKey: String!) { rotatePreviewSecret(siteKey: $siteKey) { siteKey rotatedAt } }';

const link = async (id: string, version?: number) => (await authored(LINK, { id, version })).createPreviewLink as { token: string; path: string; version: number; expiresAt: string };
const through = (path: string, headers: Record<string, string> = site) => call(`${varnish.url}${path}`, { headers });
const deliveryKeys = async (slug: string) => redis.keys(`${platform.redisPrefix}cms:delivery:*:${slug}:*`);
/** What the delivery cache holds for `slug` that is a draft (a preview must never put one there). */
const cachedDrafts = async (slug: string) => {
  const keys = await deliveryKeys(slug);
  return (keys.length ? await redis.mget(...keys) : []).filter((value) => value?.includes('"status":"DRAFT"'));
};

beforeAll(async () => {
  const varnishPort = await freePort();
  platform = await startTestPlatform({ SVC_EDGE_PURGE_URLS: `http://127.0.0.1:${varnishPort}/` });
  varnish = await startVarnish(platform.bridge, varnishPort);
  editor = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] });
  otherEditor = await platform.token({ subject: 'olga', roles: ['editor'], sites: ['other'] });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // pricing: version 1 live, version 2 a draft. about: a draft only.
  pricing = (await authored(CREATE, { input: { siteKey: 'demo', slug: 'plans', title: LIVE_TITLE, fields: { headline: 'Plans', description: 'Three plans for every size.' } } })).createContent;
  await authored(PUBLISH, { id: pricing.id });
  await authored(EDIT, { id: pricing.id, input: { title: DRAFT_TITLE, fields: { headline: 'New plans' } } });
  about = (await authored(CREATE, { input: { siteKey: 'demo', slug: 'team-page', title: 'About us (draft)' } })).createContent;
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  redis?.disconnect();
  await db?.end();
  await platform?.close();
});

describe('preview links through Varnish', () => {
  it('shows the draft as delivery renders it, privately, and the same URL without the token still gets the live version', async () => {
    const preview = await link(pricing.id);
    expect(preview).toMatchObject({ version: 2, path: `/api/v1/contents/plans?preview=${preview.token}` });
    expect(Date.parse(preview.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    expect(Date.parse(preview.expiresAt) - Date.now()).toBeLessThanOrEqual(3600_000);

    // The token is the credential: no site key header needed (a browser opening the link sends none).
    for (let i = 0; i < 2; i++) {
      const reply = await through(preview.path, { Accept: 'application/json' });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ contentId: pricing.id, slug: 'plans', title: DRAFT_TITLE, status: 'DRAFT', version: 2, publishedAt: null });
      expect(reply.body.data.fields).toMatchObject({ headline: 'New plans', description: 'Three plans for every size.' });
      // SEO falls back as on delivery.
      expect(reply.body.data.seo).toEqual({
        metaTitle: DRAFT_TITLE, metaDescription: 'Three plans for every size.', ogImage: '',
        alternates: [{ hreflang: 'en', slug: 'plans' }, { hreflang: 'x-default', slug: 'plans' }],
      });
      expect(reply.body.data).toMatchObject({ locale: 'en', requestedLocale: 'en', fellBack: false });
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.headers.get('x-robots-tag')).toBe('noindex');
      expect(reply.headers.get('x-svc-preview-expires')).toBe(new Date(preview.expiresAt).toISOString());
      expect(reply.headers.get('x-cache')).toBe('MISS');
      expect(reply.headers.get('etag')).toBeNull();
      expect(reply.headers.get('xkey')).toBeNull();
    }
    // Nothing of the preview reached the delivery cache.
    expect(await deliveryKeys('plans')).toEqual([]);

    const live = await through('/api/v1/contents/plans');
    const again = await through('/api/v1/contents/plans');
    for (const reply of [live, again]) {
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ title: LIVE_TITLE, status: 'PUBLISHED', version: 1 });
      expect(reply.text).not.toContain(DRAFT_TITLE);
      expect(reply.headers.get('cache-control')).toMatch(/^public, /);
      expect(reply.headers.get('x-robots-tag')).toBeNull();
    }
    expect(again.headers.get('x-cache')).toBe('HIT');
    // With the live version cached at the edge, the preview still gets the draft, not the cached object.
    const afterCached = await through(preview.path);
    expect(afterCached.body.data).toMatchObject({ title: DRAFT_TITLE, version: 2 });
    expect(afterCached.headers.get('x-cache')).toBe('MISS');
  });

  it('is not stored by Varnish even when the parameter is spelled so that the VCL does not see it', async () => {
    const preview = await link(pricing.id);
    const encoded = `/api/v1/contents/plans?%70review=${preview.token}`;
    for (let i = 0; i < 2; i++) {
      const reply = await through(encoded);
      expect(reply.body.data).toMatchObject({ title: DRAFT_TITLE });
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.headers.get('x-cache')).toBe('MISS');
    }
  });

  it('refuses forged, altered and expired tokens with 401 problem+json, never the draft', async () => {
    const preview = await link(pricing.id);
    const [claims, signature] = preview.token.split('.') as [string, string];
    const { rows } = await db.query<{ id: string; preview_secret: string }>("select id, preview_secret from cms.site where site_key = 'demo'");
    const expired = signPreviewToken({ siteId: rows[0]!.id, contentId: pricing.id, version: 2, expiresAt: new Date(Date.now() - 1000) }, rows[0]!.preview_secret);
    const flipped = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const cases: [string, string][] = [
      [`${flipped(claims, 5)}.${signature}`, 'preview-token-invalid'],
      [`${claims}.${flipped(signature, 10)}`, 'preview-token-invalid'],
      [signPreviewToken({ siteId: rows[0]!.id, contentId: pricing.id, version: 2, expiresAt: new Date(Date.now() + 60_000) }, 'a guessed secret'), 'preview-token-invalid'],
      ['not-a-token', 'preview-token-invalid'],
      ['', 'preview-token-invalid'],
      [expired, 'preview-token-expired'],
    ];
    for (const [token, slug] of cases) {
      const reply = await through(`/api/v1/contents/plans?preview=${encodeURIComponent(token)}`);
      expect({ token, status: reply.status, type: reply.body.type }).toEqual({ token, status: 401, type: expect.stringMatching(new RegExp(`/errors/${slug}$`)) });
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.text).not.toContain(DRAFT_TITLE);
    }
  });

  it('reads only the content it was made for: another slug is 403, whatever the site key says', async () => {
    const preview = await link(pricing.id);
    const other = await through(`/api/v1/contents/welcome?preview=${preview.token}`);
    expect(other.status).toBe(403);
    expect(other.body.type).toMatch(/\/errors\/preview-scope$/);
    expect(other.text).not.toContain(DRAFT_TITLE);
    const wrongSite = await through(preview.path, { 'X-Svc-Site-Key': 'other', Accept: 'application/json' });
    expect(wrongSite.status).toBe(403);
    // A never-published content has a preview too; its link does not open pricing.
    const aboutPreview = await link(about.id);
    expect((await through(aboutPreview.path)).body.data).toMatchObject({ slug: 'team-page', status: 'DRAFT', version: 1, publishedAt: null });
    expect((await through(`/api/v1/contents/plans?preview=${aboutPreview.token}`)).status).toBe(403);
  });

  it('is made only by an author of the site, for a draft, with a lifetime within bounds', async () => {
    const notDraft = await authoring(LINK, { id: pricing.id, version: 1 });
    expect(notDraft.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', slug: 'version-not-draft' });
    expect(notDraft.errors?.[0]?.message).toContain('PUBLISHED');
    const missing = await authoring(LINK, { id: pricing.id, version: 9 });
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    for (const ttl of [59, 604_801]) {
      const bad = await authoring(LINK, { id: pricing.id, ttl });
      expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(JSON.stringify(bad.errors?.[0]?.extensions.errors)).toContain('/expiresInSeconds');
    }
    const short = (await authored(LINK, { id: pricing.id, ttl: 60 })).createPreviewLink;
    expect(Date.parse(short.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
    const foreign = await authoring(LINK, { id: pricing.id }, otherEditor);
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    const anonymous = await gql(platform.router, LINK, { id: pricing.id });
    expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    // The site's secret never leaves the service.
    const { rows } = await db.query<{ preview_secret: string }>("select preview_secret from cms.site where site_key = 'demo'");
    expect(JSON.stringify(await authored('{ sites { siteKey name } }', {}))).not.toContain(rows[0]!.preview_secret);
  });

  it('works over GraphQL too: deliveredContent(slug, preview) through the router', async () => {
    const preview = await link(pricing.id);
    const reply = await gql(platform.router, 'query($slug: String!, $preview: String) { deliveredContent(slug: $slug, preview: $preview) { maxAgeSeconds surrogateKeys preview { version expiresAt } content { title status version publishedAt } } }', { slug: 'plans', preview: preview.token });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.deliveredContent).toEqual({
      maxAgeSeconds: 0,
      surrogateKeys: [],
      preview: { version: 2, expiresAt: new Date(preview.expiresAt).toISOString() },
      content: { title: DRAFT_TITLE, status: 'DRAFT', version: 2, publishedAt: null },
    });
  });

  it('rotating the site secret revokes every earlier link; a new link works', async () => {
    const before = await link(pricing.id);
    expect((await through(before.path)).status).toBe(200);
    const foreign = await authoring(ROTATE, { siteKey: 'demo' }, otherEditor);
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
    const rotated = (await authored(ROTATE, { siteKey: 'demo' })).rotatePreviewSecret;
    expect(rotated.siteKey).toBe('demo');
    const revoked = await through(before.path);
    expect(revoked.status).toBe(401);
    expect(revoked.body.type).toMatch(/\/errors\/preview-token-invalid$/);
    const after = await link(pricing.id);
    expect((await through(after.path)).body.data).toMatchObject({ title: DRAFT_TITLE });
  });

  it('says so when the content or its version is gone (removed in the database: the API deletes neither)', async () => {
    const doomed = (await authored(CREATE, { input: { siteKey: 'demo', slug: 'doomed-page', title: 'Soon gone' } })).createContent;
    const second = (await authored(EDIT, { id: doomed.id, input: { title: 'Soon gone, v1 edited' } })).updateContentDraft;
    expect(second.latestVersion).toBe(1);
    const preview = await link(doomed.id);
    await db.query('delete from cms.content_version where content_id = $1 and version = 1', [doomed.id]);
    const versionGone = await through(preview.path);
    expect(versionGone.status).toBe(404);
    expect(versionGone.body.type).toMatch(/\/errors\/preview-version-gone$/);
    await db.query('delete from cms.content where id = $1', [doomed.id]);
    const contentGone = await through(preview.path);
    expect(contentGone.status).toBe(404);
    expect(contentGone.body.type).toMatch(/\/errors\/preview-content-gone$/);
  });

  describe('spellings of the parameter', () => {
    const encodeAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const expectDraft = (reply: Awaited<ReturnType<typeof through>>) => {
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ title: DRAFT_TITLE, status: 'DRAFT', version: 2 });
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.headers.get('x-robots-tag')).toBe('noindex');
      expect(reply.headers.get('x-cache')).toBe('MISS');
    };

    it('percent-encoded, in the name or the value, is the same parameter (RFC 3986 percent-decoding): the draft, never stored', async () => {
      const preview = await link(pricing.id);
      for (const query of [`${encodeAll('preview')}=${preview.token}`, `preview=${encodeAll(preview.token)}`, `%70review=${encodeAll(preview.token)}`]) {
        for (let i = 0; i < 2; i++) expectDraft(await through(`/api/v1/contents/plans?${query}`, { Accept: 'application/json' }));
      }
      expect(await cachedDrafts('plans')).toEqual([]);
    });

    it('names are case-sensitive: PREVIEW= and Preview= are no preview, so the live version (site key required), never the draft', async () => {
      const preview = await link(pricing.id);
      for (const name of ['PREVIEW', 'Preview']) {
        const withoutSite = await through(`/api/v1/contents/plans?${name}=${preview.token}`, { Accept: 'application/json' });
        expect(withoutSite.status).toBe(400);
        expect(withoutSite.body.type).toMatch(/\/errors\/missing-header$/);
        for (let i = 0; i < 2; i++) {
          const reply = await through(`/api/v1/contents/plans?${name}=${preview.token}`);
          expect(reply.status).toBe(200);
          expect(reply.body.data).toMatchObject({ title: LIVE_TITLE, status: 'PUBLISHED', version: 1 });
          expect(reply.text).not.toContain(DRAFT_TITLE);
          expect(reply.headers.get('cache-control')).toMatch(/^public, /);
        }
      }
    });

    it('the token is case-sensitive: an upper-cased token is 401 preview-token-invalid', async () => {
      const preview = await link(pricing.id);
      const reply = await through(`/api/v1/contents/plans?preview=${preview.token.toUpperCase()}`);
      expect(reply.status).toBe(401);
      expect(reply.body.type).toMatch(/\/errors\/preview-token-invalid$/);
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.text).not.toContain(DRAFT_TITLE);
    });

    it('a repeated preview parameter takes its first value, as every bridge query parameter does, and is private either way', async () => {
      const preview = await link(pricing.id);
      for (const query of [`preview=${preview.token}&preview=${preview.token}`, `preview=${preview.token}&preview=forged`, `preview=${preview.token}&%70review=`]) {
        for (let i = 0; i < 2; i++) expectDraft(await through(`/api/v1/contents/plans?${query}`));
      }
      for (const query of [`preview=forged&preview=${preview.token}`, `preview=&preview=${preview.token}`]) {
        const reply = await through(`/api/v1/contents/plans?${query}`);
        expect({ query, status: reply.status, type: reply.body.type }).toEqual({ query, status: 401, type: expect.stringMatching(/\/errors\/preview-token-invalid$/) });
        expect(reply.headers.get('cache-control')).toBe('private, no-store');
        expect(reply.text).not.toContain(DRAFT_TITLE);
      }
      expect(await cachedDrafts('plans')).toEqual([]);
    });

    it('HEAD with a token answers the preview\'s headers without a body, and nothing is stored', async () => {
      const preview = await link(pricing.id);
      for (let i = 0; i < 2; i++) {
        const reply = await call(`${varnish.url}${preview.path}`, { method: 'HEAD', headers: { Accept: 'application/json' } });
        expect(reply.status).toBe(200);
        expect(reply.text).toBe('');
        expect(reply.headers.get('cache-control')).toBe('private, no-store');
        expect(reply.headers.get('x-robots-tag')).toBe('noindex');
        expect(reply.headers.get('x-svc-preview-expires')).toBe(new Date(preview.expiresAt).toISOString());
        expect(reply.headers.get('x-cache')).toBe('MISS');
        expect(reply.headers.get('etag')).toBeNull();
      }
      const refused = await call(`${varnish.url}/api/v1/contents/plans?preview=forged`, { method: 'HEAD', headers: { Accept: 'application/json' } });
      expect(refused.status).toBe(401);
      expect(refused.text).toBe('');
      expect(refused.headers.get('cache-control')).toBe('private, no-store');
      // The live version is still what GET without the token gets.
      expect(await cachedDrafts('plans')).toEqual([]);
      expect((await through('/api/v1/contents/plans')).body.data).toMatchObject({ title: LIVE_TITLE, version: 1 });
      expect(await deliveryKeys('plans')).toEqual([`${platform.redisPrefix}cms:delivery:demo:plans:en`]);
    });
  });

  // Last: it publishes the draft.
  it('says so when the version was published since, and the live URL serves it', async () => {
    const preview = await link(pricing.id);
    await authored(PUBLISH, { id: pricing.id });
    const reply = await through(preview.path);
    expect(reply.status).toBe(409);
    expect(reply.body.type).toMatch(/\/errors\/preview-version-published$/);
    expect(reply.body.detail).toBe('Version 2 of "plans" was published since and is live: GET it without the preview parameter');
    expect((await through('/api/v1/contents/plans')).body.data).toMatchObject({ title: DRAFT_TITLE, status: 'PUBLISHED', version: 2 });
    // A newer draft supersedes nothing the old link showed: version 2 is live, the link still refuses.
    await authored(EDIT, { id: pricing.id, input: { title: 'Pricing v3' } });
    await authored(PUBLISH, { id: pricing.id });
    const superseded = await through(preview.path);
    expect(superseded.status).toBe(409);
    expect(superseded.body.detail).toContain('SUPERSEDED');
  });
});
