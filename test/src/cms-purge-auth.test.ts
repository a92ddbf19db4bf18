import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { issueToken } from '@svc/kit';
import { call } from './support/http.js';
import { startTestPlatform, TEST_JWT_SECRET, type TestPlatform } from './support/platform.js';

let platform: TestPlatform;
let editor: string;
let errorsBase: string;
const PATH = '/api/v1/deploy/purge-cache';

beforeAll(async () => {
  platform = await startTestPlatform();
  editor = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] });
  errorsBase = `http://${new URL(platform.bridge).host}/errors`;
});
afterAll(() => platform?.close());

function purge(body: unknown, authorization?: string) {
  return call(`${platform.bridge}${PATH}`, {
    method: 'POST',
    headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    json: body,
  });
}

/** Every RFC 9457 member the cms envelope documents. */
function expectProblem(reply: Awaited<ReturnType<typeof purge>>, status: number, slug: string, since: number) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({
    type: `${errorsBase}/${slug}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: PATH,
    timestamp: expect.any(String),
  });
  expect(reply.body.title.length).toBeGreaterThan(0);
  expect(new Date(reply.body.timestamp).toISOString()).toBe(reply.body.timestamp);
  expect(Date.parse(reply.body.timestamp)).toBeGreaterThanOrEqual(since - 1000);
  expect(Date.parse(reply.body.timestamp)).toBeLessThanOrEqual(Date.now() + 1000);
}

const target = { siteKey: 'demo', contentSlug: 'welcome' };

describe('POST /api/v1/deploy/purge-cache: authentication', () => {
  it('answers 401 without an Authorization header, with every problem member and WWW-Authenticate', async () => {
    const since = Date.now();
    const reply = await purge(target);
    expectProblem(reply, 401, 'unauthenticated', since);
    expect(reply.body).toEqual({
      type: `${errorsBase}/unauthenticated`,
      title: 'Unauthorized',
      status: 401,
      detail: expect.stringContaining('Bearer'),
      instance: PATH,
      timestamp: expect.any(String),
    });
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 401 for a non-Bearer scheme', async () => {
    const since = Date.now();
    const reply = await purge(target, 'Basic x');
    expectProblem(reply, 401, 'unauthenticated', since);
    expect(reply.body.detail).toMatch(/Bearer/);
  });

  it('answers 401 for an expired token, saying it expired', async () => {
    const expired = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] }, -60);
    const since = Date.now();
    const reply = await purge(target, `Bearer ${expired}`);
    expectProblem(reply, 401, 'token-expired', since);
    expect(reply.body.detail).toMatch(/expired/i);
  });

  it('answers 401 for a token signed with another secret', async () => {
    const forged = (await issueToken(`${TEST_JWT_SECRET}-but-not-really`, { subject: 'mallory', roles: ['admin'], tenants: '*', sites: '*' }, 600)).accessToken;
    const since = Date.now();
    const reply = await purge(target, `Bearer ${forged}`);
    expectProblem(reply, 401, 'invalid-token', since);
    expect(reply.body.detail).toMatch(/invalid/i);
  });
});

describe('POST /api/v1/deploy/purge-cache: authorization', () => {
  it('answers 403 to an editor of another site', async () => {
    const otherEditor = await platform.token({ roles: ['editor'], sites: ['other'] });
    const since = Date.now();
    const reply = await purge(target, `Bearer ${otherEditor}`);
    expectProblem(reply, 403, 'forbidden', since);
    expect(reply.body.title).toBe('Forbidden');
    expect(reply.body.detail).toContain('"demo"');
  });

  it('answers 403 to a role that may not author (analyst)', async () => {
    const analyst = await platform.token({ roles: ['analyst'], sites: '*' });
    const since = Date.now();
    const reply = await purge(target, `Bearer ${analyst}`);
    expectProblem(reply, 403, 'forbidden', since);
    expect(reply.body.detail).toMatch(/editor/);
  });

  it('purges for an editor of the site, with the documented body', async () => {
    const before = Date.now();
    // Put something in the delivery cache first.
    expect((await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' } })).status).toBe(200);
    const reply = await purge(target, `Bearer ${editor}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      success: true,
      data: {
        siteKey: 'demo',
        contentSlug: 'welcome',
        surrogateKey: 'svc-content-demo-welcome',
        purgedAt: expect.any(String),
        layers: [
          {
            layer: 'redis',
            target: expect.stringContaining('demo'),
            ok: true,
            detail: '1 cached entry deleted',
            durationMs: expect.any(Number),
          },
        ],
      },
    });
    const { purgedAt } = reply.body.data;
    expect(new Date(purgedAt).toISOString()).toBe(purgedAt);
    expect(Date.parse(purgedAt)).toBeGreaterThanOrEqual(before - 1000);

    const again = await purge(target, `Bearer ${editor}`);
    expect(again.body.data.layers[0]).toMatchObject({ layer: 'redis', ok: true, detail: 'nothing cached' });
  });
});

describe('POST /api/v1/deploy/purge-cache: validation', () => {
  it('answers 400 naming siteKey when it is missing', async () => {
    const since = Date.now();
    const reply = await purge({ contentSlug: 'welcome' }, `Bearer ${editor}`);
    expectProblem(reply, 400, 'bad-user-input', since);
    expect(reply.body.title).toBe('Bad Request');
    expect(reply.body.detail).toContain('siteKey');
    expect(reply.body.errors).toEqual([{ pointer: '/siteKey', detail: expect.stringContaining('siteKey') }]);
  });

  it('answers 400 naming contentSlug when it is missing', async () => {
    const since = Date.now();
    const reply = await purge({ siteKey: 'demo' }, `Bearer ${editor}`);
    expectProblem(reply, 400, 'bad-user-input', since);
    expect(reply.body.detail).toContain('contentSlug');
    expect(reply.body.errors).toEqual([{ pointer: '/contentSlug', detail: expect.stringContaining('contentSlug') }]);
  });

  it('answers 404 site-not-found for an unknown site key (admin token)', async () => {
    const admin = await platform.token({ roles: ['admin'], sites: '*' });
    const since = Date.now();
    const reply = await purge({ siteKey: 'nosuchsite', contentSlug: 'welcome' }, `Bearer ${admin}`);
    expectProblem(reply, 404, 'site-not-found', since);
    expect(reply.body).toMatchObject({ title: 'Site Not Found', detail: expect.stringContaining('"nosuchsite"') });
  });

  it('answers 422 naming a slug with bad characters', async () => {
    const since = Date.now();
    const reply = await purge({ siteKey: 'demo', contentSlug: 'Bad Slug!' }, `Bearer ${editor}`);
    expectProblem(reply, 422, 'validation-failed', since);
    expect(reply.body.title).toBe('Validation Failed');
    expect(reply.body.detail).toContain('"Bad Slug!"');
    expect(reply.body.errors).toEqual([{ pointer: '/contentSlug', detail: expect.stringContaining('"Bad Slug!"') }]);
  });
});
