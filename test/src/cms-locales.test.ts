import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { call, graphAs } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { freePort, startVarnish, type Varnish } from './support/varnish.js';

// Content in several languages, through the real Varnish with the repo's VCL: negotiation,
// fallback field by field, slugs per locale, hreflang, and purges that touch one locale only.
let platform: TestPlatform;
let varnish: Varnish;
let admin: string;
let editor: string;
let redis: Redis;
let en: { id: string; groupId: string };
let de: { id: string };
let deAt: { id: string };

const { send: graph, ok } = graphAs(() => platform.router, () => editor);

const SET_LOCALES = 'mutation($siteKey: String!, $input: SiteLocalesInput!) { setSiteLocales(siteKey: $siteKey, input: $input) { defaultLocale locales { tag fallback chain } } }';
const CREATE = 'mutation($input: CreateContentInput!) { createContent(input: $input) { id groupId locale slug } }';
const PUBLISH = 'mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }';
const EDIT = 'mutation($id: ID!, $input: UpdateDraftInput!) { updateContentDraft(id: $id, input: $input) { latestVersion } }';
const LOCALES = {
  defaultLocale: 'en',
  locales: [{ tag: 'en' }, { tag: 'de', fallback: 'en' }, { tag: 'de-at', fallback: 'de' }, { tag: 'fr' }],
};

const through = (path: string, headers: Record<string, string> = {}) => call(`${varnish.url}${path}`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'application/json', ...headers } });

beforeAll(async () => {
  const varnishPort = await freePort();
  platform = await startTestPlatform({ SVC_EDGE_PURGE_URLS: `http://127.0.0.1:${varnishPort}/` });
  varnish = await startVarnish(platform.bridge, varnishPort);
  admin = await platform.token({ subject: 'ada', roles: ['admin'], sites: ['demo'] });
  editor = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] });
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const site = (await ok(SET_LOCALES, { siteKey: 'demo', input: LOCALES }, admin)).setSiteLocales;
  expect(site.locales).toEqual([
    { tag: 'en', fallback: null, chain: ['en'] },
    { tag: 'de', fallback: 'en', chain: ['de', 'en'] },
    { tag: 'de-AT', fallback: 'de', chain: ['de-AT', 'de', 'en'] },
    { tag: 'fr', fallback: null, chain: ['fr', 'en'] },
  ]);
  en = (await ok(CREATE, { input: { siteKey: 'demo', slug: 'plans', title: 'Plans', fields: { headline: 'Our plans', description: 'Three plans.', ctaText: 'Buy now', ctaLink: '/buy' } } })).createContent;
  expect(en).toMatchObject({ locale: 'en', groupId: en.id });
  de = (await ok(CREATE, { input: { siteKey: 'demo', slug: 'tarife', locale: 'de', translationOf: en.id, title: 'Tarife', fields: { headline: 'Unsere Tarife', ctaText: '' } } })).createContent;
  deAt = (await ok(CREATE, { input: { siteKey: 'demo', slug: 'tarife-at', locale: 'de-AT', translationOf: de.id, title: 'Tarife (AT)' } })).createContent;
  await ok(PUBLISH, { id: en.id });
  await ok(PUBLISH, { id: de.id });
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  redis?.disconnect();
  await platform?.close();
});

describe('site locales', () => {
  it('refuses loops, unknown fallbacks and bad tags with 422 naming each, and removing a locale that has contents with 409', async () => {
    const loop = await graph(SET_LOCALES, { siteKey: 'demo', input: { defaultLocale: 'en', locales: [{ tag: 'en' }, { tag: 'de', fallback: 'de-AT' }, { tag: 'de-AT', fallback: 'de' }] } }, admin);
    expect(loop.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ pointer: '/locales/1/fallback', detail: 'the fallbacks loop: de → de-AT → de' }] });
    const bad = await graph(SET_LOCALES, { siteKey: 'demo', input: { defaultLocale: 'it', locales: [{ tag: 'en_GB' }, { tag: 'en', fallback: 'nl' }] } }, admin);
    expect(bad.errors?.[0]?.extensions.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/defaultLocale', '/locales/0/tag', '/locales/1/fallback']);
    const inUse = await graph(SET_LOCALES, { siteKey: 'demo', input: { defaultLocale: 'en', locales: [{ tag: 'en' }, { tag: 'fr' }] } }, admin);
    expect(inUse.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', slug: 'locale-in-use' });
    expect(inUse.errors?.[0]?.message).toContain('de (1 content)');
    const byEditor = await graph(SET_LOCALES, { siteKey: 'demo', input: LOCALES }, editor);
    expect(byEditor.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('keeps slugs unique per site and locale, one content per locale, and lists a content\'s translations', async () => {
    const taken = await graph(CREATE, { input: { siteKey: 'demo', slug: 'tarife', locale: 'de', title: 'Other' } });
    expect(taken.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', slug: 'slug-taken' });
    const twice = await graph(CREATE, { input: { siteKey: 'demo', slug: 'tarife-2', locale: 'de', translationOf: en.id, title: 'Again' } });
    expect(twice.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', slug: 'locale-taken' });
    const unknown = await graph(CREATE, { input: { siteKey: 'demo', slug: 'plans-it', locale: 'it', translationOf: en.id, title: 'Piani' } });
    expect(unknown.errors?.[0]?.extensions.errors).toEqual([expect.objectContaining({ pointer: '/locale' })]);
    const german = await ok('{ contents(siteKey: "demo", locale: "de") { slug locale } }', {});
    expect(german.contents).toEqual([{ slug: 'tarife', locale: 'de' }]);
    const data = await ok('query($id: ID!) { content(id: $id) { locale translations { locale slug publishedVersion } } }', { id: de.id });
    expect(data.content).toEqual({
      locale: 'de',
      translations: [
        { locale: 'de', slug: 'tarife', publishedVersion: 1 },
        { locale: 'de-AT', slug: 'tarife-at', publishedVersion: null },
        { locale: 'en', slug: 'plans', publishedVersion: 1 },
      ],
    });
  });
});

describe('delivery by locale', () => {
  it('negotiates Accept-Language and falls back field by field, never to an empty string', async () => {
    const reply = await through('/api/v1/contents/plans', { 'Accept-Language': 'de-DE, de;q=0.9, en;q=0.5' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ contentId: de.id, slug: 'tarife', title: 'Tarife', locale: 'de', requestedLocale: 'de', fellBack: true });
    expect(reply.body.data.fields).toEqual({ headline: 'Unsere Tarife', description: 'Three plans.', bannerUrl: null, ctaText: 'Buy now', ctaLink: '/buy' });
    expect(reply.body.data.seo).toEqual({
      metaTitle: 'Tarife', metaDescription: 'Three plans.', ogImage: '',
      alternates: [{ hreflang: 'en', slug: 'plans' }, { hreflang: 'de', slug: 'tarife' }, { hreflang: 'x-default', slug: 'plans' }],
    });
    expect(reply.headers.get('content-language')).toBe('de');
    expect(reply.headers.get('vary')).toBe('Accept, Accept-Language, X-Svc-Site-Key');
  });

  it('reaches the content by any locale\'s slug; ?locale= wins over Accept-Language; a chain ends at the default', async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ['/api/v1/contents/tarife', {}, 'en', 'en'],
      ['/api/v1/contents/tarife', { 'Accept-Language': 'de' }, 'de', 'de'],
      ['/api/v1/contents/plans', { 'Accept-Language': 'de-AT' }, 'de-AT', 'de'],
      ['/api/v1/contents/plans?locale=de-at', { 'Accept-Language': 'en' }, 'de-AT', 'de'],
      ['/api/v1/contents/plans?locale=fr', {}, 'fr', 'en'],
      ['/api/v1/contents/plans?locale=pt-BR', {}, 'en', 'en'],
      ['/api/v1/contents/plans', { 'Accept-Language': '*' }, 'en', 'en'],
      // Language tags are case-insensitive (BCP 47), and a percent-encoded query value is the same value.
      ['/api/v1/contents/plans', { 'Accept-Language': 'DE-at' }, 'de-AT', 'de'],
      ['/api/v1/contents/plans?locale=DE-AT', {}, 'de-AT', 'de'],
      ['/api/v1/contents/plans?locale=%64%65%2D%41%54', {}, 'de-AT', 'de'],
    ];
    for (const [path, headers, requested, served] of cases) {
      const reply = await through(path, headers);
      expect({ path, headers, status: reply.status, requested: reply.body.data?.requestedLocale, served: reply.body.data?.locale, language: reply.headers.get('content-language') })
        .toEqual({ path, headers, status: 200, requested, served, language: served });
    }
    // The de-AT draft is never delivered.
    expect((await through('/api/v1/contents/tarife-at', { 'Accept-Language': 'de-AT' })).status).toBe(404);
  });

  it('refuses a ?locale= that is no language tag with 422 naming it', async () => {
    const reply = await through('/api/v1/contents/plans?locale=de_AT!');
    expect(reply.status).toBe(422);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body.errors).toEqual([expect.objectContaining({ pointer: '/locale', detail: expect.stringContaining('de_AT!') })]);
  });

  it('never answers a 5xx, and always one of the site\'s locales, whatever Accept-Language holds', async () => {
    const piece = fc.oneof(fc.constantFrom('de', 'de-AT', 'EN', 'fr-CA', '*', ';q=0.5', ';q=0', ';q=9', ',', ' ', '-', ';', 'q=', 'x-klingon'), fc.string({ maxLength: 10 }));
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 20 }), async (parts) => {
        const header = parts.join('').replace(/[^\t\x20-\x7e]/g, '');
        const reply = await call(`${platform.bridge}/api/v1/contents/plans`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'application/json', 'Accept-Language': header } });
        expect({ header, status: reply.status }).toEqual({ header, status: 200 });
        expect(['en', 'de', 'de-AT', 'fr']).toContain(reply.body.data.requestedLocale);
      }),
      { numRuns: 150 },
    );
  });
});

describe('purges per locale through Varnish', () => {
  const variants: [string, Record<string, string>][] = [
    ['en', { 'Accept-Language': 'en' }],
    ['de', { 'Accept-Language': 'de' }],
    ['de-AT', { 'Accept-Language': 'de-AT' }],
    ['fr', { 'Accept-Language': 'fr' }],
  ];
  async function warm(): Promise<void> {
    for (const [, headers] of variants) {
      await through('/api/v1/contents/plans', headers);
      expect((await through('/api/v1/contents/plans', headers)).headers.get('x-cache')).toBe('HIT');
    }
  }
  type State = Record<string, { cache: string | null; locale: string; title: string; alternates: string }>;
  async function state(): Promise<State> {
    const out: State = {};
    for (const [name, headers] of variants) {
      const reply = await through('/api/v1/contents/plans', headers);
      const alternates = (reply.body.data.seo.alternates as { hreflang: string }[]).map((a) => a.hreflang).join(' ');
      out[name] = { cache: reply.headers.get('x-cache'), locale: reply.body.data.locale, title: reply.body.data.title, alternates };
    }
    return out;
  }
  const redisKeys = async () => (await redis.keys(`${platform.redisPrefix}cms:delivery:demo:plans:*`)).map((k) => k.slice(k.lastIndexOf(':') + 1)).sort();

  it('publishing a new version of de purges what read de (de and de-AT), not en or fr', async () => {
    await warm();
    expect(await redisKeys()).toEqual(['de', 'de-AT', 'en', 'fr']);
    await ok(EDIT, { id: de.id, input: { title: 'Tarife 2027' } });
    await ok(PUBLISH, { id: de.id });
    expect(await redisKeys()).toEqual(['en', 'fr']);
    expect(await state()).toEqual({
      en: { cache: 'HIT', locale: 'en', title: 'Plans', alternates: 'en de x-default' },
      de: { cache: 'MISS', locale: 'de', title: 'Tarife 2027', alternates: 'en de x-default' },
      'de-AT': { cache: 'MISS', locale: 'de', title: 'Tarife 2027', alternates: 'en de x-default' },
      fr: { cache: 'HIT', locale: 'en', title: 'Plans', alternates: 'en de x-default' },
    });
  });

  it('publishing de-AT for the first time purges every answer of the content, whose alternates now list it, and no other content', async () => {
    await warm();
    await through('/api/v1/contents/welcome');
    expect((await through('/api/v1/contents/welcome')).headers.get('x-cache')).toBe('HIT');
    await ok(PUBLISH, { id: deAt.id });
    expect(await redisKeys()).toEqual([]);
    expect(await state()).toEqual({
      en: { cache: 'MISS', locale: 'en', title: 'Plans', alternates: 'en de de-AT x-default' },
      de: { cache: 'MISS', locale: 'de', title: 'Tarife 2027', alternates: 'en de de-AT x-default' },
      'de-AT': { cache: 'MISS', locale: 'de-AT', title: 'Tarife (AT)', alternates: 'en de de-AT x-default' },
      fr: { cache: 'MISS', locale: 'en', title: 'Plans', alternates: 'en de de-AT x-default' },
    });
    expect((await through('/api/v1/contents/welcome')).headers.get('x-cache')).toBe('HIT');
    expect(await redis.exists(`${platform.redisPrefix}cms:delivery:demo:welcome:en`)).toBe(1);
  });

  it('publishing en, which every chain ends with, purges every locale', async () => {
    await warm();
    await ok(EDIT, { id: en.id, input: { fields: { description: 'Four plans.' } } });
    await ok(PUBLISH, { id: en.id });
    const after = await state();
    expect(Object.values(after).map((v) => v.cache)).toEqual(['MISS', 'MISS', 'MISS', 'MISS']);
    // de and de-AT have no description of their own: they show the new English one.
    const deReply = await through('/api/v1/contents/plans', { 'Accept-Language': 'de-AT' });
    expect(deReply.body.data.fields.description).toBe('Four plans.');
  });

  it('restoring a locale\'s version restores that locale only', async () => {
    await ok('mutation($id: ID!) { restoreContentVersion(id: $id, version: 1, publish: true) { publishedVersion } }', { id: de.id });
    const after = await state();
    expect(after.de).toMatchObject({ locale: 'de', title: 'Tarife' });
    expect(after.en).toMatchObject({ locale: 'en', title: 'Plans', cache: 'HIT' });
    expect(after['de-AT']).toMatchObject({ locale: 'de-AT', title: 'Tarife (AT)' });
  });

  it('unpublishing de-AT purges every answer of the content again: its alternates no longer list de-AT', async () => {
    await warm();
    await ok('mutation($id: ID!) { unpublishContent(id: $id) { publishedVersion } }', { id: deAt.id });
    expect(await redisKeys()).toEqual([]);
    const after = await state();
    expect(Object.values(after).map((v) => [v.cache, v.alternates])).toEqual(Array(4).fill(['MISS', 'en de x-default']));
    expect(after['de-AT']).toMatchObject({ locale: 'de', title: 'Tarife' });
  });
});
