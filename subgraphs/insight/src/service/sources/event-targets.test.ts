import { describe, expect, it } from '@jest/globals';
import { callerOf, routerOf } from './test-support.js';
import { SvcError } from '@svc/kit';
import type { Finding } from '../../engine/finding.js';
import { eventTargets } from './event-targets.js';

const caller = callerOf;
const headers = async () => ({ authorization: 'Bearer t' });


const fall = (events: Finding['events'], causes: Finding['causes'] = []): Finding => ({
  question: 'q', status: 'analysed', covers: { asks: 'move', move: 'unusual' }, intents: ['why'], drivers: [], causes, events, candidates: [], notes: [], locale: 'en-US',
  subject: { name: 'trial_starts', how: 'exact', others: [], unit: { kind: 'count' }, aggregation: 'sum', upIsGood: true, defaulted: [] },
  premise: { actual: 700, comparison: 1000, change: -300, verdict: 'confirmed' } as Finding['premise'],
  changePoint: { day: '2026-11-12', shift: -0.3, strength: 9 },
  remainder: { value: 0, share: 0 } as Finding['remainder'],
});
const on = (ref: string, kind: string) => ({ event: { at: '2026-11-12T09:00:00Z', kind, title: kind, ref }, changePoint: '2026-11-12', offsetDays: 0 });

const content = (id: string, slug: string) => ({
  content: {
    id, siteKey: 'shop', slug, publishedVersion: 3, latestVersion: 4,
    versions: [
      { version: 4, status: 'DRAFT', title: 't', publishedAt: null, fields: { headline: 'd' }, seo: null },
      { version: 3, status: 'PUBLISHED', title: 't', publishedAt: '2026-11-12T09:00:00Z', fields: { headline: 'c' }, seo: {} },
      { version: 2, status: 'SUPERSEDED', title: 't', publishedAt: null, fields: { headline: 'b' }, seo: {} },
      { version: 1, status: 'SUPERSEDED', title: 't', publishedAt: '2026-01-01T00:00:00Z', fields: { headline: 'a' }, seo: {} },
    ],
  },
});

describe('what a bad move\'s events point at', () => {
  it('reads the contents and crawl jobs the events on its day name, and the pages its causes name', async () => {
    const { call, calls } = routerOf({
      InsightContentTarget: (v) => content(String(v.id), v.id === 'c1' ? 'plans' : 'home'),
      InsightContents: () => ({ contents: [{ id: 'c1', slug: 'plans' }, { id: 'c2', slug: 'home' }] }),
      InsightCrawlJobTarget: () => ({
        crawlJob: { jobId: 'j1', jobName: 'offers', status: 'SCHEDULED', selectorVersion: 2 },
        crawlSelectorVersions: [{ version: 2, selectors: { listRow: 'div' }, reason: 'healed during execution e1', createdAt: '2026-11-12T04:00:00Z' }],
        crawlExecutions: [{ status: 'FAILED', finishedAt: '2026-11-12T05:00:00Z' }],
      }),
    });
    const f = fall([on('content:shop:c1:v3', 'content_published'), on('crawl-job:j1', 'selector_healed')], [{ view: 'segment', name: 'page=/home', labels: { page: '/home' }, contribution: -200, share: 0.66 }]);
    const targets = (await eventTargets({ call, headers }).read(caller(), f))!;
    expect(targets.contents.map((c) => c.contentId).sort()).toEqual(['c1', 'c2']);
    // Drafts never published are left out, but the newest version is kept.
    expect(targets.contents[0]!.versions.map((v) => v.version)).toEqual([4, 3, 1]);
    expect(targets.contents[0]!.versions[0]!.seo).toEqual({});
    expect(targets.crawlJobs).toEqual([{ kind: 'crawl-job', jobId: 'j1', jobName: 'offers', status: 'SCHEDULED', selectorVersion: 2, selectorHistory: [expect.objectContaining({ version: 2 })], lastRun: { status: 'FAILED', finishedAt: '2026-11-12T05:00:00Z' } }]);
    expect(calls.filter((c) => c.startsWith('InsightContents'))).toEqual(['InsightContents {"siteKey":"shop"}']);
  });

  it('reads nothing for a move within normal or a good one, and leaves out what the caller may not read', async () => {
    const { call, calls } = routerOf({ InsightContentTarget: () => { throw new SvcError('FORBIDDEN', 'not your site'); }, InsightCrawlJobTarget: () => { throw new SvcError('NOT_FOUND', 'no job'); } });
    const read = eventTargets({ call, headers }).read;
    const f = fall([on('content:shop:c1:v3', 'content_published'), on('crawl-job:j1:execution:e2', 'crawl_failed')]);
    expect(await read(caller(), { ...f, premise: { ...f.premise!, verdict: 'within-normal' } })).toBeUndefined();
    expect(await read(caller(), { ...f, premise: { ...f.premise!, change: 300 } })).toBeUndefined();
    expect(calls).toEqual([]);
    expect(await read(caller(), f)).toEqual({ contents: [], crawlJobs: [] });
    // Any other failure is the caller's to note.
    const down = routerOf({ InsightContentTarget: () => { throw new SvcError('UNAVAILABLE', 'cms is down'); } });
    await expect(eventTargets({ call: down.call, headers }).read(caller(), fall([on('content:shop:c1:v3', 'content_published')]))).rejects.toThrow('cms is down');
  });
});
