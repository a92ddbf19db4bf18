import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

const STORIES = [
  { path: '/d/1', title: 'Harbour Road gets bike lanes', body: 'The city council voted to build protected bicycle lanes along Harbour Road. Cyclists and shop owners welcomed the decision; construction starts in spring.' },
  { path: '/d/2', title: 'Storm warning for the coast', body: 'Meteorologists issued a severe storm warning for the northern coast. Gale force winds and heavy rain are expected; ferries are cancelled until Sunday.' },
  { path: '/d/3', title: 'Bakery wins bread award', body: 'A family bakery won the national sourdough bread award. The judges praised its crust, its long fermentation and the rye flour from local mills.' },
];

function listPage(stories: typeof STORIES): string {
  return `<html><body><ul class="news">${stories.map((s) => `<li class="story"><a href="${s.path}">${s.title}</a><time datetime="2026-11-21">21 Nov</time></li>`).join('')}</ul></body></html>`;
}

function detailPage(title: string, body: string): string {
  const filler = 'Readers can find more local news on our site every morning.';
  return `<html><head><title>${title}</title></head><body><nav>Home | Sport | About</nav><article><h1>${title}</h1><p>${body}</p><p>${body}</p><p>${filler}</p></article><footer>Contact</footer></body></html>`;
}

let platform: TestPlatform;
let site: FixtureSite;
let token: string;
const headers = () => ({ authorization: `Bearer ${token}` });

async function runJob(jobId: string) {
  const run = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: headers() });
  expect(run.status).toBe(200);
  return eventually(async () => {
    const reply = await call(`${platform.bridge}/api/v1/crawl/results/${run.body.data.executionId}`, { headers: headers() });
    return reply.status === 200 ? reply.body.data : undefined;
  }, 30_000, 'the run to complete');
}

async function search(query: string, extra = '') {
  const reply = await gql(platform.router, `query($q: String!) { searchKnowledge(query: $q${extra}) { itemId title url category content score } }`, { q: query }, headers());
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.searchKnowledge as { itemId: string; title: string; url: string; category: string; content: string; score: number }[];
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.serve('/list', { content: { html: listPage(STORIES) } });
  for (const s of STORIES) site.serve(s.path, { content: { html: detailPage(s.title, s.body) } });
  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
});
afterAll(async () => {
  await platform?.close();
  await site?.close();
});

describe('knowledge base sync and search', () => {
  let jobId: string;

  it('indexes every new item through the gateway and finds it by meaning', async () => {
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: headers(),
      json: {
        jobName: 'city-news',
        targetUrl: site.url('/list'),
        robotsTxt: 'ignore',
        cronExpression: '0 0 0 1 1 ?',
        selectors: { listRow: 'ul.news > li.story', title: 'a', publishedAt: 'time', link: 'a::attr(href)' },
        enableRagSync: true,
        ragConfig: { targetVectorDb: 'pgvector', embeddingModel: 'svc-local-embedding', chunkSize: 64, chunkOverlap: 8 },
      },
    });
    expect(created.status).toBe(201);
    jobId = created.body.data.jobId;
    const result = await runJob(jobId);
    expect(result.items).toHaveLength(3);
    for (const item of result.items) {
      expect(item).toMatchObject({ vectorSyncStatus: 'INDEXED', vectorId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    }
    const storm = await search('severe storm with gale force winds and rain');
    expect(storm[0]).toMatchObject({ title: 'Storm warning for the coast', url: site.url('/d/2'), category: 'city-news' });
    expect(storm[0]!.content).toContain('storm');
    expect(storm[0]!.score).toBeGreaterThan(storm.find((h) => h.url !== site.url('/d/2'))?.score ?? -1);
    const bread = await search('sourdough bread award', ', topK: 1');
    expect(bread).toHaveLength(1);
    expect(bread[0]!.url).toBe(site.url('/d/3'));
    expect(await search('sourdough bread award', ', category: "elsewhere"')).toEqual([]);
  });

  it('charges the embeddings to the crawl service\'s own agent', async () => {
    const usage = await call(`${platform.bridge}/admin/v1/usage?agentCode=crawl`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` } });
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toEqual(expect.arrayContaining([expect.objectContaining({ agentCode: 'crawl', model: 'svc-local-embedding', requests: expect.any(Number) })]));
    expect(usage.body.usage.reduce((n: number, r: { requests: number }) => n + r.requests, 0)).toBeGreaterThanOrEqual(4);
  });

  it('replaces the chunks of a changed item, and keeps other tenants out', async () => {
    const changed = [{ ...STORIES[0]!, title: 'Harbour Road bike lanes delayed', body: 'Construction of the Harbour Road cycle lanes is delayed by a shortage of asphalt until autumn.' }, ...STORIES.slice(1)];
    site.serve('/list', { content: { html: listPage(changed) } });
    site.serve('/d/1', { content: { html: detailPage(changed[0]!.title, changed[0]!.body) } });
    const result = await runJob(jobId);
    expect(result.items.find((i: { detailUrl: string }) => i.detailUrl === site.url('/d/1'))).toMatchObject({ title: 'Harbour Road bike lanes delayed', vectorSyncStatus: 'INDEXED' });
    const hits = await search('asphalt shortage delays cycle lanes', ', topK: 10');
    const harbour = hits.filter((h) => h.url === site.url('/d/1'));
    expect(harbour.length).toBeGreaterThan(0);
    expect(harbour.every((h) => !h.content.includes('voted to build protected'))).toBe(true);
    expect(hits[0]!.url).toBe(site.url('/d/1'));

    const stranger = await platform.token({ roles: ['crawler'], tenants: ['other'] });
    const theirs = await gql(platform.router, '{ searchKnowledge(query: "storm") { url } }', {}, { authorization: `Bearer ${stranger}` });
    expect(theirs.body.data.searchKnowledge).toEqual([]);
  });

  it('refuses an embedding model the gateway does not serve when the job is created (400 naming the field and the available models)', async () => {
    const before = (await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: headers() })).body.data.length;
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: headers(),
      json: {
        jobName: 'wrong-model',
        targetUrl: site.url('/list'),
        selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' },
        enableRagSync: true,
        ragConfig: { embeddingModel: 'text-embedding-nope' },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual([{ pointer: '/ragConfig/embeddingModel', detail: 'embeddingModel "text-embedding-nope" is not served by the model gateway; available: svc-local-embedding' }]);
    expect((await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: headers() })).body.data).toHaveLength(before);
  });

  it('shows why an item failed to sync in the results', async () => {
    site.serve('/list-empty', { content: { html: listPage([{ path: '/d/empty', title: 'A page without text', body: '' }]) } });
    site.serve('/d/empty', { content: { html: '<html><body></body></html>' } });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: headers(),
      json: { jobName: 'empty-pages', targetUrl: site.url('/list-empty'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' }, enableRagSync: true },
    });
    expect(created.status).toBe(201);
    const result = await runJob(created.body.data.jobId);
    expect(result.items).toEqual([expect.objectContaining({ vectorSyncStatus: 'FAILED', vectorId: null, vectorSyncError: `The detail page ${site.url('/d/empty')} has no readable text` })]);
  });
});
