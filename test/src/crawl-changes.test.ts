import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

// Change tracking through the whole platform: a run reports items new, changed (with the
// sentences added and removed), unchanged and gone; only new and changed items are embedded again.

interface Article { path: string; title: string; sentences: string[]; footer: string }

function listPage(articles: Article[]): string {
  return `<html><body><ul class="news">${articles.map((a) => `<li class="story"><a href="${a.path}">${a.title}</a></li>`).join('')}</ul></body></html>`;
}
function articlePage(a: Article): string {
  return `<html><head><title>${a.title}</title></head><body><nav>Home | Prices | About</nav><article><h1>${a.title}</h1>${a.sentences.map((s) => `<p>${s}</p>`).join('')}<p class="meta">${a.footer}</p></article><footer>© 2026 Example Ltd</footer></body></html>`;
}

const filler = 'Our team reviews these figures every week and publishes them here for customers, partners and the press.';
const pricing: Article = { path: '/p/pricing', title: 'Pricing', sentences: ['The Pro plan costs 39 EUR a month.', 'Teams get five seats.', filler], footer: 'Updated 27 Nov 2026 at 10:15 · 1,234 views' };
const about: Article = { path: '/p/about', title: 'About us', sentences: ['We build tools for shops.', 'The company was founded in Lisbon.', filler], footer: 'Updated 27 Nov 2026 at 09:00 · 310 views' };
const careers: Article = { path: '/p/careers', title: 'Careers', sentences: ['We are hiring two engineers.', 'Apply by e-mail.', filler], footer: 'Updated 20 Nov 2026' };
const press: Article = { path: '/p/press', title: 'Press', sentences: ['Press kits and logos are available on request.', filler], footer: 'Updated 28 Nov 2026' };

let platform: TestPlatform;
let site: FixtureSite;
let token: string;
const headers = () => ({ authorization: `Bearer ${token}` });

function publish(articles: Article[]): void {
  site.serve('/list', { content: { html: listPage(articles) } });
  for (const a of articles) site.serve(a.path, { content: { html: articlePage(a) } });
}

async function run(jobId: string) {
  const triggered = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: headers() });
  expect(triggered.status).toBe(200);
  const executionId = triggered.body.data.executionId as string;
  const result = await eventually(async () => {
    const reply = await call(`${platform.bridge}/api/v1/crawl/results/${executionId}`, { headers: headers() });
    return reply.status === 200 ? reply.body.data : undefined;
  }, 30_000, 'the run to complete');
  return { executionId, result };
}

const byPath = (result: { items: { detailUrl: string }[] }, path: string) => result.items.find((i) => i.detailUrl === site.url(path)) as Record<string, unknown>;

beforeAll(async () => {
  site = await startFixtureSite();
  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_WEBHOOK_SWEEP_MS: '500' });
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
});
afterAll(async () => {
  await platform?.close();
  await site?.close();
});

describe('change tracking of crawled pages', () => {
  it('reports new, changed with its diff, unchanged and gone, and embeds only what is new or changed', async () => {
    publish([pricing, about, careers]);
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: headers(),
      json: { jobName: 'competitor', targetUrl: site.url('/list'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' }, enableRagSync: true },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.data.jobId as string;
    const first = (await run(jobId)).result;
    expect(first.changes).toEqual({ new: 3, changed: 0, unchanged: 0, gone: 0 });
    expect(first.items.map((i: { change: string }) => i.change)).toEqual(['new', 'new', 'new']);

    // The price changes and a sentence is added; "About us" only gets a new footer date and view count; "Careers" is gone; "Press" is new.
    const repriced = { ...pricing, sentences: ['The Pro plan costs 49 EUR a month.', 'Teams get five seats.', 'A free trial lasts 14 days.', filler], footer: 'Updated 28 Nov 2026 at 08:00 · 1,301 views' };
    publish([repriced, { ...about, footer: 'Updated 28 Nov 2026 at 09:30 · 355 views' }, press]);
    const { executionId, result: second } = await run(jobId);
    expect(second.changes).toEqual({ new: 1, changed: 1, unchanged: 1, gone: 1 });
    expect(second.goneItems).toEqual([{ itemId: expect.any(String), title: 'Careers', detailUrl: site.url('/p/careers') }]);
    expect(byPath(second, '/p/pricing')).toMatchObject({
      change: 'changed',
      vectorSyncStatus: 'INDEXED',
      diff: { added: ['The Pro plan costs 49 EUR a month.', 'A free trial lasts 14 days.'], removed: ['The Pro plan costs 39 EUR a month.'], more: 0, rewritten: false },
    });
    expect(byPath(second, '/p/about')).toMatchObject({ change: 'unchanged', diff: null, vectorSyncStatus: 'INDEXED' });
    expect(byPath(second, '/p/press')).toMatchObject({ change: 'new', vectorSyncStatus: 'INDEXED' });
    // Re-embedding replaces an item's chunks (a new first chunk id); the unchanged item keeps its own.
    expect(byPath(second, '/p/about').vectorId).toBe(byPath(first, '/p/about').vectorId);
    expect(byPath(second, '/p/pricing').vectorId).not.toBe(byPath(first, '/p/pricing').vectorId);
    const hits = await gql(platform.router, 'query($q: String!) { searchKnowledge(query: $q, topK: 3) { url content } }', { q: 'free trial lasts 14 days' }, headers());
    expect(hits.body.data.searchKnowledge[0]).toMatchObject({ url: site.url('/p/pricing'), content: expect.stringContaining('49 EUR') });

    // The execution record carries the counts and the changed pages, as the analysis reads them.
    const execution = await gql(platform.router, 'query($id: ID!) { crawlExecution(executionId: $id) { changes { new changed unchanged gone } changedItems { title detailUrl diff { added removed } } goneItems { title } } }', { id: executionId }, headers());
    expect(execution.body.data.crawlExecution).toEqual({
      changes: { new: 1, changed: 1, unchanged: 1, gone: 1 },
      changedItems: [{ title: 'Pricing', detailUrl: site.url('/p/pricing'), diff: { added: ['The Pro plan costs 49 EUR a month.', 'A free trial lasts 14 days.'], removed: ['The Pro plan costs 39 EUR a month.'] } }],
      goneItems: [{ title: 'Careers' }],
    });

    // A third run over the same pages: nothing changed, nothing embedded again.
    const third = (await run(jobId)).result;
    expect(third.changes).toEqual({ new: 0, changed: 0, unchanged: 3, gone: 0 });
    for (const path of ['/p/pricing', '/p/about', '/p/press']) expect(byPath(third, path).vectorId).toBe(byPath(second, path).vectorId);
  });

  it('sends no changed webhook for a page whose only changes are a "Dec. 8, 2026" date, counters or a declared volatile element, and one for a real edit', async () => {
    const receiver = await startWebhookReceiver();
    const story = (day: number, views: string, ticker: string, closing: string) => `<html lang="en"><head><title>Harbour</title></head><body><article><h1>Harbour reopens</h1>
      <p class="byline">Posted Dec. ${day}, 2026 · ${views} views · Comments (${day + 4})</p>
      <p>The harbour authority confirmed the plan, and the ferries will run every hour from the new pier.</p>
      <div class="live-ticker"><p>${ticker}</p></div>
      <p>${closing}</p></article></body></html>`;
    const closing = 'Fishermen welcomed the decision, which ends a closure of three months for the northern quay.';
    const serve = (html: string) => {
      site.serve('/harbour/list', { content: { html: `<html><body><ul class="news"><li class="story"><a href="/harbour/story">Harbour reopens</a></li></ul></body></html>` } });
      site.serve('/harbour/story', { content: { html } });
    };
    const runEnded = async (jobId: string) => {
      const { executionId, result } = await run(jobId);
      // The statement that ends a run writes all its deliveries; waiting for the completed one to arrive shows they are written and sent.
      await eventually(() => receiver.received.find((r) => r.body.executionId === executionId && r.body.event === 'crawl.completed'), 15_000, 'the completed delivery');
      const deliveries = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/webhook-deliveries`, { headers: headers() });
      return { executionId, result, events: (deliveries.body.data as { executionId: string; event: string }[]).filter((d) => d.executionId === executionId).map((d) => d.event).sort() };
    };
    try {
      const refused = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
        headers: headers(),
        json: { jobName: 'harbour', targetUrl: site.url('/harbour/list'), selectors: { listRow: 'li.story', link: 'a::attr(href)' }, volatileSelectors: ['.live-ticker', 'div[', '.count::text'] },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/volatileSelectors/1', '/volatileSelectors/2']);

      serve(story(7, '1.2K', 'Ferry 12 boards at gate B', closing));
      const created = await gql(platform.router, 'mutation($input: JSONObject!) { createCrawlJob(input: $input) { jobId volatileSelectors } }', {
        input: {
          jobName: 'harbour', targetUrl: site.url('/harbour/list'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', enableRagSync: true,
          selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' }, volatileSelectors: ['.live-ticker'],
          webhook: { url: receiver.url, secret: 'crawl-webhook-secret-0123456789', events: ['completed', 'changed'] },
        },
      }, headers());
      expect(created.body.errors).toBeUndefined();
      const jobId = created.body.data.createCrawlJob.jobId as string;
      expect(created.body.data.createCrawlJob.volatileSelectors).toEqual(['.live-ticker']);
      expect((await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}`, { headers: headers() })).body.data.volatileSelectors).toEqual(['.live-ticker']);
      const first = await runEnded(jobId);
      expect(first.result.changes).toMatchObject({ new: 1 });

      // A day later: the date is "Dec. 8, 2026", the counters moved and the ticker says something else.
      serve(story(8, '1.3K', 'Ferry 14 delayed by fog', closing));
      const second = await runEnded(jobId);
      expect(second.result.changes).toEqual({ new: 0, changed: 0, unchanged: 1, gone: 0 });
      expect(second.events).toEqual(['completed']);

      // Stored by older volatile rules, the fingerprint differs while the text reads the same: not a change either.
      const db = new pg.Client({ connectionString: platform.databaseUrl });
      await db.connect();
      try {
        const marked = await db.query(`update crawl.crawl_item set content_fingerprint = 'taken-with-older-rules' where job_id = $1`, [jobId]);
        expect(marked.rowCount).toBe(1);
      } finally {
        await db.end();
      }
      const third = await runEnded(jobId);
      expect(third.result.changes).toEqual({ new: 0, changed: 0, unchanged: 1, gone: 0 });
      expect(third.events).toEqual(['completed']);

      // A sentence outside the volatile element changes: that is a change, with its diff, and a changed webhook.
      serve(story(9, '1.4K', 'Ferry 15 boards at gate A', 'Fishermen protested the decision, which keeps the northern quay closed.'));
      const fourth = await runEnded(jobId);
      expect(fourth.result.changes).toEqual({ new: 0, changed: 1, unchanged: 0, gone: 0 });
      expect(fourth.result.items[0].diff).toEqual({ added: ['Fishermen protested the decision, which keeps the northern quay closed.'], removed: [closing], more: 0, rewritten: false });
      expect(fourth.events).toEqual(['changed', 'completed']);
      await eventually(() => receiver.received.find((r) => r.body.executionId === fourth.executionId && r.body.event === 'crawl.changed'), 15_000, 'the changed delivery');
    } finally {
      await receiver.close();
    }
  });
});
