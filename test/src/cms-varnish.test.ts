import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { freePort, startVarnish, type Varnish } from './support/varnish.js';

let platform: TestPlatform;
let varnish: Varnish;
let editor: string;
let edgeUrl: string;
const site = { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' };

beforeAll(async () => {
  // The platform must know the edge URL before it starts, and Varnish must know the bridge:
  // reserve Varnish's port first, start the platform, then Varnish on the reserved port.
  const varnishPort = await freePort();
  edgeUrl = `http://127.0.0.1:${varnishPort}/`;
  platform = await startTestPlatform({ SVC_EDGE_PURGE_URLS: edgeUrl });
  varnish = await startVarnish(platform.bridge, varnishPort);
  editor = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'] });
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  await platform?.close();
});

const through = (path: string, headers: Record<string, string> = site) => call(`${varnish.url}${path}`, { headers });

async function authoring(query: string, variables: Record<string, unknown>) {
  const reply = await gql(platform.router, query, variables, { authorization: `Bearer ${editor}` });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data as Record<string, any>;
}

function purge(siteKey = 'demo', contentSlug = 'welcome') {
  return call(`${platform.bridge}/api/v1/deploy/purge-cache`, {
    headers: { authorization: `Bearer ${editor}`, accept: 'application/json' },
    json: { siteKey, contentSlug },
  });
}

describe('delivery through Varnish (repo VCL)', () => {
  it('misses first, then hits with the identical body; If-None-Match gets 304 from the cache', async () => {
    const first = await through('/api/v1/contents/welcome');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.body).toMatchObject({ success: true, data: { slug: 'welcome', version: 1 } });

    const second = await through('/api/v1/contents/welcome');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.text).toBe(first.text);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(second.headers.get('etag')).toBe(etag);

    const conditional = await through('/api/v1/contents/welcome', { ...site, 'If-None-Match': etag! });
    expect(conditional.status).toBe(304);
    expect(conditional.text).toBe('');
  });

  it('publishing a new version purges the edge automatically: the next GET serves it', async () => {
    const before = await through('/api/v1/contents/welcome');
    expect(before.status).toBe(200);
    const { contentId, version, title } = before.body.data;
    // Make sure the old version is in the edge cache.
    expect((await through('/api/v1/contents/welcome')).headers.get('x-cache')).toBe('HIT');

    const newTitle = `${title} (edited ${Date.now()})`;
    const edited = (await authoring(`mutation($id: ID!, $input: UpdateDraftInput!) { updateContentDraft(id: $id, input: $input) { latestVersion publishedVersion } }`, {
      id: contentId,
      input: { title: newTitle },
    })).updateContentDraft;
    expect(edited).toEqual({ latestVersion: version + 1, publishedVersion: version });
    // A draft changes nothing at the edge.
    const draft = await through('/api/v1/contents/welcome');
    expect(draft.body.data).toMatchObject({ title, version });

    const published = (await authoring(`mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }`, { id: contentId })).publishContent;
    expect(published.publishedVersion).toBe(version + 1);

    const after = await through('/api/v1/contents/welcome');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(after.body.data).toMatchObject({ contentId, title: newTitle, version: version + 1 });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const again = await through('/api/v1/contents/welcome');
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.body.data).toMatchObject({ title: newTitle, version: version + 1 });
  });

  it('POST /api/v1/deploy/purge-cache purges Redis and Varnish: the next GET is a MISS', async () => {
    await through('/api/v1/contents/welcome');
    const hit = await through('/api/v1/contents/welcome');
    expect(hit.headers.get('x-cache')).toBe('HIT');

    const reply = await purge();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body.success).toBe(true);
    const data = reply.body.data;
    expect(data).toMatchObject({ siteKey: 'demo', contentSlug: 'welcome', surrogateKey: 'svc-content-demo-welcome' });
    expect(data.layers).toHaveLength(2);
    expect(data.layers[0]).toMatchObject({ layer: 'redis', ok: true });
    expect(data.layers[1]).toMatchObject({ layer: 'edge', target: edgeUrl, ok: true, detail: expect.stringMatching(/^HTTP 200/) });
    expect(data.layers[1].detail).toMatch(/[1-9]\d* object\(s\) purged/);

    const after = await through('/api/v1/contents/welcome');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(after.text).toBe(hit.text);
  });

  it('keys the cache by site: another site key is not served demo’s cached entry', async () => {
    expect((await through('/api/v1/contents/welcome')).headers.get('x-cache')).toBe('HIT');
    const other = await through('/api/v1/contents/welcome', { 'X-Svc-Site-Key': 'other', Accept: 'application/json' });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-cache')).toBe('MISS');
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(other.body).toMatchObject({ status: 404, type: expect.stringMatching(/\/errors\/site-not-found$/), detail: expect.stringContaining('"other"') });
  });

  // Last: it stops Varnish.
  it('answers 502 purge-incomplete naming the failed layer when the edge is down', async () => {
    await varnish.stop();
    const reply = await purge();
    expect(reply.status).toBe(502);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body).toMatchObject({
      type: expect.stringMatching(/\/errors\/purge-incomplete$/),
      title: 'Purge Incomplete',
      status: 502,
      detail: expect.stringContaining(edgeUrl),
      instance: '/api/v1/deploy/purge-cache',
    });
    expect(Array.isArray(reply.body.layers)).toBe(true);
    expect(reply.body.layers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ layer: 'redis', ok: true }),
        expect.objectContaining({ layer: 'edge', target: edgeUrl, ok: false }),
      ]),
    );
  });
});
