import { describe, expect, it } from '@jest/globals';
import { callerOf, routerOf } from './test-support.js';
import { SvcError } from '@svc/kit';
import { platformEvents } from './platform-events.js';

const FROM = Date.UTC(2026, 10, 1);
const TO = Date.UTC(2026, 10, 15);
const caller = callerOf;


const contents = () => ({
  contents: [{
    id: 'c1', siteKey: 'shop', locale: 'en', slug: 'pricing',
    versions: [
      { version: 3, publishedAt: null },
      { version: 2, publishedAt: '2026-11-14T09:30:00.000Z' },
      { version: 1, publishedAt: '2026-10-01T00:00:00.000Z' },
    ],
  }],
});
const runs = () => ({
  crawlExecutions: [
    { executionId: 'e3', status: 'COMPLETED', startedAt: '2026-11-10T00:00:00Z', finishedAt: '2026-11-10T00:01:00Z', selfHealingOccurred: true, error: null },
    { executionId: 'e2', status: 'FAILED', startedAt: '2026-11-09T00:00:00Z', finishedAt: '2026-11-09T00:00:05Z', selfHealingOccurred: false, error: `The page answered 500 ${'x'.repeat(400)}` },
    { executionId: 'e1', status: 'FAILED', startedAt: '2026-10-09T00:00:00Z', finishedAt: '2026-10-09T00:00:05Z', selfHealingOccurred: false, error: 'old' },
    { executionId: 'e0', status: 'COMPLETED', startedAt: '2026-11-08T00:00:00Z', finishedAt: '2026-11-08T00:01:00Z', selfHealingOccurred: false, error: null },
  ],
});
const headers = async () => ({ authorization: 'Bearer t' });

describe('the platform\'s events', () => {
  it('names published content versions, failed runs and healed selectors within the window, with refs to act on', async () => {
    const { call } = routerOf({ InsightContentVersions: contents, InsightCrawlRunJobs: () => ({ crawlJobs: [{ jobId: 'j1', jobName: 'news' }] }), InsightCrawlRuns: runs });
    const events = await platformEvents({ call, headers }).between(caller({}), FROM, TO);
    expect(events.map(({ kind, ref, at }) => ({ kind, ref, at: new Date(at).toISOString() }))).toEqual([
      { kind: 'crawl_failed', ref: 'crawl-job:j1:execution:e2', at: '2026-11-09T00:00:05.000Z' },
      { kind: 'selector_healed', ref: 'crawl-job:j1', at: '2026-11-10T00:01:00.000Z' },
      { kind: 'content_published', ref: 'content:shop:c1:v2', at: '2026-11-14T09:30:00.000Z' },
    ]);
    expect(events.every((e) => e.source === 'platform')).toBe(true);
    expect(events[0]!.title).toBe(`Crawl job "news" run failed: The page answered 500 ${'x'.repeat(160 - 'The page answered 500 '.length)}`);
    expect(events[2]!.title).toBe('Version 2 of "pricing" (en, site shop) published');
  });

  it('makes runs that fail one after another one event, when the failing started, and none for a streak that started before the window', async () => {
    const failed = (id: string, day: string) => ({ executionId: id, status: 'FAILED', startedAt: `${day}T06:00:00Z`, finishedAt: `${day}T06:00:01Z`, selfHealingOccurred: false, error: 'GET https://supplier.example/stock answered 403 Forbidden' });
    const completed = (id: string, day: string) => ({ ...failed(id, day), status: 'COMPLETED', error: null });
    const streaks = {
      // Newest first, as the crawl service answers: j1 failed from the 4th on; j2 was failing before the window and recovered.
      j1: [failed('a6', '2026-11-06'), failed('a5', '2026-11-05'), failed('a4', '2026-11-04'), completed('a3', '2026-11-03')],
      j2: [completed('b3', '2026-11-03'), failed('b2', '2026-11-02'), failed('b1', '2026-10-31')],
    };
    const { call } = routerOf({
      InsightContentVersions: () => ({ contents: [] }),
      InsightCrawlRunJobs: () => ({ crawlJobs: [{ jobId: 'j1', jobName: 'Supplier stock' }, { jobId: 'j2', jobName: 'news' }] }),
      InsightCrawlRuns: (v) => ({ crawlExecutions: streaks[v.jobId as 'j1' | 'j2'] }),
    });
    const events = await platformEvents({ call, headers }).between(caller({}), FROM, TO);
    expect(events.map(({ kind, ref, at, title }) => ({ kind, ref, at: new Date(at).toISOString(), title }))).toEqual([
      { kind: 'crawl_failed', ref: 'crawl-job:j1:execution:a4', at: '2026-11-04T06:00:01.000Z', title: 'Crawl job "Supplier stock" runs started failing (3 in a row): GET https://supplier.example/stock answered 403 Forbidden' },
    ]);
  });

  it('makes a streak of runs the site blocked one crawl_blocked event, apart from failures', async () => {
    const run = (id: string, day: string, status: string, error: string | null) => ({ executionId: id, status, startedAt: `${day}T06:00:00Z`, finishedAt: `${day}T06:00:01Z`, selfHealingOccurred: false, error, blockedCount: status === 'BLOCKED' ? 1 : 0 });
    const challenge = 'https://competitor.example/prices answered a block page instead of its content (challenge: Cloudflare challenge (cf-mitigated: challenge))';
    const { call } = routerOf({
      InsightContentVersions: () => ({ contents: [] }),
      InsightCrawlRunJobs: () => ({ crawlJobs: [{ jobId: 'j1', jobName: 'Competitor prices' }] }),
      InsightCrawlRuns: () => ({
        crawlExecutions: [run('r5', '2026-11-07', 'FAILED', 'HTTP 500'), run('r4', '2026-11-06', 'BLOCKED', challenge), run('r3', '2026-11-05', 'BLOCKED', challenge), run('r2', '2026-11-04', 'COMPLETED', null)],
      }),
    });
    const events = await platformEvents({ call, headers }).between(caller({}), FROM, TO);
    expect(events.map(({ kind, ref, title }) => ({ kind, ref, title }))).toEqual([
      { kind: 'crawl_blocked', ref: 'crawl-job:j1:execution:r3', title: `Crawl job "Competitor prices" runs started being blocked by the site (2 in a row): ${challenge.slice(0, 160)}` },
      { kind: 'crawl_failed', ref: 'crawl-job:j1:execution:r5', title: 'Crawl job "Competitor prices" run failed: HTTP 500' },
    ]);
  });

  it('makes a completed run that found pages changed a page_changed event naming the first page and what changed in it', async () => {
    const run = (id: string, day: string, changed: number, changedItems: unknown[]) => ({ executionId: id, status: 'COMPLETED', startedAt: `${day}T06:00:00Z`, finishedAt: `${day}T06:00:01Z`, selfHealingOccurred: false, error: null, blockedCount: 0, changes: { changed }, changedItems });
    const pricing = { title: 'Pricing', detailUrl: 'https://competitor.example/pricing', diff: { added: ['Pro plan: 49 EUR a month.'], removed: ['Pro plan: 39 EUR a month.'], more: 0, rewritten: false } };
    const { call } = routerOf({
      InsightContentVersions: () => ({ contents: [] }),
      InsightCrawlRunJobs: () => ({ crawlJobs: [{ jobId: 'j1', jobName: 'Competitor pages' }] }),
      InsightCrawlRuns: () => ({ crawlExecutions: [run('r3', '2026-11-14', 2, [pricing, { title: 'About', detailUrl: 'https://competitor.example/about', diff: null }]), run('r2', '2026-11-13', 0, [])] }),
    });
    const events = await platformEvents({ call, headers }).between(caller({}), FROM, TO);
    expect(events.map(({ kind, ref, at, title }) => ({ kind, ref, at: new Date(at).toISOString(), title }))).toEqual([
      { kind: 'page_changed', ref: 'crawl-job:j1:execution:r3', at: '2026-11-14T06:00:01.000Z', title: 'Crawl job "Competitor pages": 2 pages changed, "Pricing" (added "Pro plan: 49 EUR a month."; removed "Pro plan: 39 EUR a month.") and more' },
    ]);
  });

  it('reads, for a token that grants every site, only the site named like the tenant', async () => {
    const all = routerOf({
      InsightSites: () => ({ sites: [{ siteKey: 'shop' }, { siteKey: 'acme' }, { siteKey: 'blog' }] }),
      InsightContentVersions: (v) => ({ contents: contents().contents.map((c) => ({ ...c, siteKey: String(v.siteKey) })) }),
      InsightCrawlRunJobs: () => ({ crawlJobs: [] }),
    });
    const events = await platformEvents({ call: all.call, headers }).between(caller({ sites: '*' }), FROM, TO);
    expect(events.map((e) => e.ref)).toEqual(['content:acme:c1:v2']);
    expect([...all.calls].sort()).toEqual(['InsightContentVersions {"siteKey":"acme"}', 'InsightCrawlRunJobs {}', 'InsightSites {}']);
  });

  it('skips what the caller may not read', async () => {
    const some = routerOf({
      InsightContentVersions: (v) => { if (v.siteKey === 'blog') throw new SvcError('FORBIDDEN', 'no'); return contents(); },
      InsightCrawlRunJobs: () => { throw new SvcError('FORBIDDEN', 'This operation needs one of the roles: admin, crawler'); },
    });
    const events = await platformEvents({ call: some.call, headers }).between(caller({ sites: ['shop', 'blog'] }), FROM, TO);
    expect(events.map((e) => e.ref)).toEqual(['content:shop:c1:v2']);
    // The two families are read at the same time: the order between them is not fixed.
    expect([...some.calls].sort()).toEqual(['InsightContentVersions {"siteKey":"blog"}', 'InsightContentVersions {"siteKey":"shop"}', 'InsightCrawlRunJobs {}']);

    const analyst = routerOf({ InsightCrawlRunJobs: () => ({ crawlJobs: [] }) });
    expect(await platformEvents({ call: analyst.call, headers }).between(caller({ roles: ['analyst'] }), FROM, TO)).toEqual([]);
    expect(analyst.calls).toEqual(['InsightCrawlRunJobs {}']);
  });

  it('fails when a service is unreachable rather than answering an incomplete timeline', async () => {
    const down = routerOf({ InsightContentVersions: contents, InsightCrawlRunJobs: () => { throw new SvcError('UNAVAILABLE', 'The GraphQL router is unavailable; retry shortly'); } });
    await expect(platformEvents({ call: down.call, headers }).between(caller({}), FROM, TO)).rejects.toThrow('unavailable');
  });
});
