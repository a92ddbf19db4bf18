import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

let platform: TestPlatform;
let editor: string;
const site = { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' };

beforeAll(async () => {
  platform = await startTestPlatform();
  editor = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] });
});
afterAll(() => platform?.close());

const AUTHOR = `
  mutation Create($input: CreateContentInput!) { createContent(input: $input) { id status latestVersion publishedVersion versions { version status title } } }
`;

async function authoring(query: string, variables: Record<string, unknown>, token = editor) {
  const reply = await gql(`${platform.router}`, query, variables, { authorization: `Bearer ${token}` });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data as Record<string, any>;
}

describe('GET /api/v1/contents/{contentSlug}', () => {
  it('serves the latest published content with SEO data in the success envelope', async () => {
    const reply = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: site });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body.success).toBe(true);
    const data = reply.body.data;
    // The spec's record, and what says which locale was served (additive).
    expect(Object.keys(data).sort()).toEqual(['contentId', 'fellBack', 'fields', 'locale', 'publishedAt', 'requestedLocale', 'seo', 'slug', 'status', 'title', 'version']);
    expect(data).toMatchObject({ locale: 'en', requestedLocale: 'en', fellBack: false });
    expect(reply.headers.get('content-language')).toBe('en');
    expect(data).toMatchObject({ slug: 'welcome', title: 'Welcome to Svc Platform', status: 'PUBLISHED', version: 1 });
    expect(new Date(data.publishedAt).toISOString()).toBe(data.publishedAt);
    expect(Object.keys(data.fields).sort()).toEqual(['bannerUrl', 'ctaLink', 'ctaText', 'description', 'headline']);
    expect(data.seo).toEqual({
      metaTitle: 'Svc Platform: welcome',
      metaDescription: data.fields.description,
      ogImage: data.fields.bannerUrl,
      alternates: [{ hreflang: 'en', slug: 'welcome' }, { hreflang: 'x-default', slug: 'welcome' }],
    });
  });

  it('falls back to the title for metaTitle when the content sets none', async () => {
    const reply = await call(`${platform.bridge}/api/v1/contents/pricing`, { headers: site });
    expect(reply.body.data.seo.metaTitle).toBe('Pricing');
    expect(reply.body.data.seo.ogImage).toBe('https://cdn.example.com/banners/pricing.png');
  });

  it('answers an unknown slug with the spec 404 problem, every member present', async () => {
    const before = Date.now();
    const reply = await call(`${platform.bridge}/api/v1/contents/no-such-page`, { headers: site });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const url = new URL(platform.bridge);
    expect(reply.body).toEqual({
      type: `http://${url.host}/errors/content-not-found`,
      title: 'Content Not Found',
      status: 404,
      detail: expect.stringContaining('"no-such-page"'),
      instance: '/api/v1/contents/no-such-page',
      timestamp: expect.any(String),
    });
    expect(Date.parse(reply.body.timestamp)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('refuses an Accept it cannot serve with 406, and accepts wildcards', async () => {
    const refused = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'text/html' } });
    expect(refused.status).toBe(406);
    expect(refused.body).toMatchObject({ status: 406, type: expect.stringMatching(/\/errors\/not-acceptable$/), detail: expect.stringContaining('text/html') });
    const wildcard = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'text/html, */*;q=0.1' } });
    expect(wildcard.status).toBe(200);
  });

  it('needs the site key header, and names an unknown site', async () => {
    const missing = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { Accept: 'application/json' } });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain('X-Svc-Site-Key');
    const unknown = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'nosuchsite', Accept: 'application/json' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ title: 'Site Not Found', detail: expect.stringContaining('"nosuchsite"') });
  });

  it('supports conditional GET with a strong ETag and sends cache and surrogate-key headers', async () => {
    const first = await call(`${platform.bridge}/api/v1/contents/about`, { headers: site });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=300, must-revalidate');
    // The slug asked for, the site, and each locale the answer read (here the site's one locale, en).
    const locale = `svc-locale-demo-${first.body.data.contentId}-en`;
    expect(first.headers.get('xkey')).toBe(`svc-content-demo-about svc-site-demo ${locale}`);
    expect(first.headers.get('surrogate-key')).toBe(`svc-content-demo-about svc-site-demo ${locale}`);
    expect(first.headers.get('cache-tag')).toBe(`svc-content-demo-about,svc-site-demo,${locale}`);
    expect(first.headers.get('vary')).toBe('Accept, Accept-Language, X-Svc-Site-Key');
    const second = await call(`${platform.bridge}/api/v1/contents/about`, { headers: { ...site, 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
    expect(second.text).toBe('');
    const stale = await call(`${platform.bridge}/api/v1/contents/about`, { headers: { ...site, 'If-None-Match': '"other"' } });
    expect(stale.status).toBe(200);
  });
});

describe('authoring and publishing', () => {
  it('never lets a draft leak; publishing serves the new version; unpublishing answers 404', async () => {
    const created = (await authoring(AUTHOR, { input: { siteKey: 'demo', slug: 'launch', title: 'Launch', fields: { headline: 'v1 headline' } } })).createContent;
    expect(created).toMatchObject({ status: 'DRAFT', latestVersion: 1, publishedVersion: null, versions: [{ version: 1, status: 'DRAFT' }] });
    expect((await call(`${platform.bridge}/api/v1/contents/launch`, { headers: site })).status).toBe(404);

    await authoring(`mutation($id: ID!) { publishContent(id: $id) { status publishedVersion } }`, { id: created.id });
    const v1 = await call(`${platform.bridge}/api/v1/contents/launch`, { headers: site });
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({ version: 1, fields: { headline: 'v1 headline' } });

    const edited = (await authoring(`mutation($id: ID!, $input: UpdateDraftInput!) { updateContentDraft(id: $id, input: $input, baseVersion: 1) { latestVersion publishedVersion versions { version status } } }`, {
      id: created.id,
      input: { title: 'Launch v2', fields: { headline: 'v2 headline' } },
    })).updateContentDraft;
    expect(edited).toMatchObject({ latestVersion: 2, publishedVersion: 1, versions: [{ version: 2, status: 'DRAFT' }, { version: 1, status: 'PUBLISHED' }] });
    const stillV1 = await call(`${platform.bridge}/api/v1/contents/launch`, { headers: site });
    expect(stillV1.body.data).toMatchObject({ version: 1, title: 'Launch', fields: { headline: 'v1 headline' } });

    await authoring(`mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }`, { id: created.id });
    const v2 = await call(`${platform.bridge}/api/v1/contents/launch`, { headers: site });
    expect(v2.body.data).toMatchObject({ version: 2, title: 'Launch v2', fields: { headline: 'v2 headline' } });
    expect(v2.headers.get('etag')).not.toBe(v1.headers.get('etag'));

    const restored = (await authoring(`mutation($id: ID!) { restoreContentVersion(id: $id, version: 1) { latestVersion versions { version status title } } }`, { id: created.id })).restoreContentVersion;
    expect(restored.versions.slice(0, 3)).toEqual([
      { version: 3, status: 'DRAFT', title: 'Launch' },
      { version: 2, status: 'PUBLISHED', title: 'Launch v2' },
      { version: 1, status: 'SUPERSEDED', title: 'Launch' },
    ]);

    const down = (await authoring(`mutation($id: ID!) { unpublishContent(id: $id) { status publishedVersion } }`, { id: created.id })).unpublishContent;
    expect(down).toEqual({ status: 'UNPUBLISHED', publishedVersion: null });
    expect((await call(`${platform.bridge}/api/v1/contents/launch`, { headers: site })).status).toBe(404);
  });

  it('refuses a stale baseVersion with CONFLICT and a duplicate slug with CONFLICT', async () => {
    const created = (await authoring(AUTHOR, { input: { siteKey: 'demo', slug: 'conflicts', title: 'C' } })).createContent;
    const stale = await gql(platform.router, `mutation($id: ID!) { updateContentDraft(id: $id, input: { title: "x" }, baseVersion: 7) { id } }`, { id: created.id }, { authorization: `Bearer ${editor}` });
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
    const dup = await gql(platform.router, AUTHOR, { input: { siteKey: 'demo', slug: 'conflicts', title: 'again' } }, { authorization: `Bearer ${editor}` });
    expect(dup.body.errors?.[0]).toMatchObject({ extensions: { code: 'CONFLICT' }, message: expect.stringContaining('"conflicts"') });
  });

  it('validates authoring input and names the bad value', async () => {
    const bad = await gql(platform.router, AUTHOR, { input: { siteKey: 'demo', slug: 'Bad Slug!', title: 'x' } }, { authorization: `Bearer ${editor}` });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/slug', detail: expect.stringContaining('"Bad Slug!"') }] });
    const url = await gql(platform.router, AUTHOR, { input: { siteKey: 'demo', slug: 'bad-url', title: 'x', fields: { bannerUrl: 'javascript:alert(1)' } } }, { authorization: `Bearer ${editor}` });
    expect(url.body.errors?.[0]?.extensions?.errors).toEqual([{ pointer: '/fields/bannerUrl', detail: expect.stringContaining('javascript:alert(1)') }]);
  });

  it('keeps authoring to editors of the site: other sites 403, other roles 403, anonymous 401', async () => {
    const otherSite = await platform.token({ roles: ['editor'], sites: ['elsewhere'] });
    const analyst = await platform.token({ roles: ['analyst'], sites: '*' });
    for (const [token, code] of [[otherSite, 'FORBIDDEN'], [analyst, 'FORBIDDEN']] as const) {
      const reply = await gql(platform.router, AUTHOR, { input: { siteKey: 'demo', slug: 'nope', title: 'x' } }, { authorization: `Bearer ${token}` });
      expect(reply.body.errors?.[0]?.extensions?.code).toBe(code);
    }
    const anonymous = await gql(platform.router, AUTHOR, { input: { siteKey: 'demo', slug: 'nope', title: 'x' } });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
