import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

// Block and challenge pages through the whole platform: a site where a third of the detail pages
// are bot challenges, a captcha and a soft 404; a site whose pages all answer the same short
// shell; a list page that turns into a 403 challenge.

const blockedFixture = (name: string) => readFileSync(new URL(`../../../subgraphs/crawl/test/fixtures/blocked/${name}`, import.meta.url), 'utf8');

const TOPICS = ['harbour bike lanes', 'storm warning on the coast', 'bakery bread award', 'library opening hours', 'ferry timetable', 'school roof repairs', 'market square fountain', 'tram line extension', 'museum night'];
const stories = TOPICS.map((topic, n) => ({ path: `/d/${n + 1}`, title: `News: ${topic}` }));

function listPage(items: { path: string; title: string }[]): string {
  return `<html><body><ul class="news">${items.map((s) => `<li class="story"><a href="${s.path}">${s.title}</a></li>`).join('')}</ul></body></html>`;
}
function article(title: string): string {
  const body = `The town reports on ${title}. Residents were asked for their views at a meeting on Tuesday, and the council will decide in December.`;
  return `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p><p>${body}</p></article></body></html>`;
}

/** Every third detail page is a block page of another kind. */
const BLOCKS: Record<string, { html: string; status: number; headers?: Record<string, string>; kind: string }> = {
  '/d/3': { html: blockedFixture('cloudflare-challenge.html'), status: 403, headers: { 'cf-mitigated': 'challenge', server: 'cloudflare' }, kind: 'challenge' },
  '/d/6': { html: blockedFixture('recaptcha-wall.html'), status: 200, kind: 'captcha' },
  '/d/9': { html: blockedFixture('soft-404.html'), status: 200, kind: 'soft-404' },
};

let platform: TestPlatform;
let site: FixtureSite;
let token: string;
const headers = () => ({ authorization: `Bearer ${token}` });

async function createJob(jobName: string, path: string) {
  const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
    headers: headers(),
    json: { jobName, targetUrl: site.url(path), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' }, enableRagSync: true },
  });
  expect(created.status).toBe(201);
  return created.body.data.jobId as string;
}

/** Triggers a run and waits for it to end; answers its execution record (GraphQL) and its REST result reply. */
async function run(jobId: string) {
  const triggered = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: headers() });
  expect(triggered.status).toBe(200);
  const executionId = triggered.body.data.executionId as string;
  const execution = await eventually(async () => {
    const reply = await gql(platform.router, 'query($id: ID!) { crawlExecution(executionId: $id) { executionId status error blockedCount blockedPages { url status kind rule reason } } }', { id: executionId }, headers());
    const e = reply.body.data?.crawlExecution;
    return e && ['COMPLETED', 'FAILED', 'BLOCKED'].includes(e.status) ? e : undefined;
  }, 30_000, 'the run to end');
  const result = await call(`${platform.bridge}/api/v1/crawl/results/${executionId}`, { headers: headers() });
  return { execution, result };
}

async function search(query: string) {
  const reply = await gql(platform.router, 'query($q: String!) { searchKnowledge(query: $q, topK: 50) { url content } }', { q: query }, headers());
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.searchKnowledge as { url: string; content: string }[];
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.serve('/list', { content: { html: listPage(stories) } });
  for (const s of stories) {
    const block = BLOCKS[s.path];
    site.serve(s.path, block ? { content: { html: block.html }, status: block.status, ...(block.headers ? { headers: block.headers } : {}) } : { content: { html: article(s.title) } });
  }
  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_BLOCK_BACKOFF_MS: '300' });
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
});
afterAll(async () => {
  await platform?.close();
  await site?.close();
});

describe('block and challenge pages in crawl runs', () => {
  let newsJob: string;

  it('reports the third of the pages that are challenges as blocked, with the reason, and stores none of them', async () => {
    newsJob = await createJob('town-news', '/list');
    const { execution, result } = await run(newsJob);
    expect(execution.status).toBe('COMPLETED');
    expect(result.status).toBe(200);
    const data = result.body.data;
    expect(data.totalCount).toBe(9);
    expect(data.blockedCount).toBe(3);
    expect(data.blockedPages.map((b: { url: string; kind: string }) => [b.url, b.kind]).sort()).toEqual(Object.entries(BLOCKS).map(([path, b]) => [site.url(path), b.kind]).sort());
    expect(data.blockedPages.find((b: { url: string }) => b.url === site.url('/d/3'))).toMatchObject({ status: 403, reason: expect.stringContaining('Cloudflare') });
    for (const item of data.items) {
      const block = BLOCKS[new URL(item.detailUrl).pathname];
      if (block) expect(item).toMatchObject({ vectorSyncStatus: 'BLOCKED', vectorId: null, vectorSyncError: expect.stringMatching(new RegExp(`^${block.kind}: `)) });
      else expect(item).toMatchObject({ vectorSyncStatus: 'INDEXED', vectorSyncError: null });
    }
    expect(execution).toMatchObject({ blockedCount: 3 });
    // Nothing of the block pages reached the knowledge base.
    const blockedUrls = new Set(Object.keys(BLOCKS).map((p) => site.url(p)));
    for (const query of ['Enable JavaScript and cookies to continue', 'confirm that you are not a robot', 'page you were looking for does not exist']) {
      const hits = await search(query);
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.filter((h) => blockedUrls.has(h.url))).toEqual([]);
    }
    expect((await search('ferry timetable')).some((h) => h.url === site.url('/d/5'))).toBe(true);
  });

  it('backs off the site after each block page', async () => {
    // Each block paused the host for SVC_CRAWL_BLOCK_BACKOFF_MS (300 ms; the streak resets on a good page).
    const detailHits = site.requests.filter((r) => r.path.startsWith('/d/'));
    for (const path of ['/d/3', '/d/6']) {
      const at = detailHits.findIndex((r) => r.path === path);
      expect(detailHits[at + 1]!.at - detailHits[at]!.at).toBeGreaterThanOrEqual(250);
    }
  });

  it('finds a shell that many pages answer alike, and still indexes a short page of its own', async () => {
    const shellStories = [1, 2, 3, 4].map((n) => ({ path: `/s/${n}`, title: `Shell story ${n}` }));
    site.serve('/list-shell', { content: { html: listPage(shellStories) } });
    for (const n of [1, 2, 3]) site.serve(`/s/${n}`, { content: { html: '<html><body><p>Our site is busy right now. Please come back later.</p></body></html>' } });
    site.serve('/s/4', { content: { html: article('Shell story 4: the fountain is repaired') } });
    const { result } = await run(await createJob('shell-site', '/list-shell'));
    expect(result.body.data.blockedPages.map((b: { kind: string }) => b.kind)).toEqual(['repeated-shell', 'repeated-shell', 'repeated-shell']);
    expect(result.body.data.items.map((i: { vectorSyncStatus: string }) => i.vectorSyncStatus)).toEqual(['BLOCKED', 'BLOCKED', 'BLOCKED', 'INDEXED']);
  });

  it('a list page that turns into a 403 challenge makes a BLOCKED run that keeps the job\'s items', async () => {
    site.serve('/list', { content: { html: blockedFixture('cloudflare-challenge.html') }, status: 403, headers: { 'cf-mitigated': 'challenge', 'retry-after': '1' } });
    const { execution, result } = await run(newsJob);
    expect(execution).toMatchObject({ status: 'BLOCKED', blockedCount: 1, blockedPages: [{ url: site.url('/list'), status: 403, kind: 'challenge', rule: 'vendor-challenge' }] });
    expect(execution.error).toBe(`${site.url('/list')} answered a block page instead of its content (challenge: Cloudflare challenge (cf-mitigated: challenge))`);
    expect(result.status).toBe(409);
    expect(result.body.message).toContain('is BLOCKED');
    // The items of the last good run are still the job's, and still indexed.
    expect((await search('ferry timetable')).some((h) => h.url === site.url('/d/5'))).toBe(true);
    const day = new Date().toISOString().slice(0, 10);
    const counts = await gql(platform.router, 'query($from: DateTimeISO!, $to: DateTimeISO!, $job: ID) { crawlItemCounts(from: $from, to: $to, jobId: $job) { day executions failedRuns blockedRuns blockedPages } }', { from: `${day}T00:00:00Z`, to: new Date(Date.now() + 86_400_000).toISOString(), job: newsJob }, headers());
    expect(counts.body.data.crawlItemCounts).toEqual([{ day, executions: 1, failedRuns: 1, blockedRuns: 1, blockedPages: 4 }]);
  });
});
