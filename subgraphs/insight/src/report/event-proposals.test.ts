import { describe, expect, it } from '@jest/globals';
import type { ToolOutcome } from './composed.js';
import type { ContentTarget, CrawlJobTarget, Targets } from '../domain/event-target.js';
import { proposalProblems } from '../domain/proposal-check.js';
import { analyse } from '../engine/analyse.js';
import type { CatalogEntry } from '../engine/catalog.js';
import { addDays } from '../engine/days.js';
import type { EngineEvent } from '../engine/events.js';
import type { SeriesData } from '../engine/series.js';
import { narrate } from '../engine/narrative.js';
import { generateDaily, generateLeaves, totalOf } from '../engine/synthetic-series.js';
import { analysisFindings, analysisProposals } from './analysis-findings.js';
import type { Composed } from './composed.js';

/**
 * The platform's own levers behind a planted fall, on names the demo never had: what an event on
 * the day the fall started points at (a content version, a healed selector, a failed run), or a
 * page a cause names, decides the proposal, with the content or crawl job as it is now.
 */

const now = Date.parse('2026-11-18T10:00:00Z');
const start = addDays('2026-11-17', -399);
const FALL = '2026-11-12';
const fall = (d: string) => (d >= FALL ? 0.72 : 1);
const points = generateDaily({ start, days: 400, level: 3000, seed: 91 }, fall);
const catalog: CatalogEntry[] = [{ name: 'trial_starts' }];

function run(events: EngineEvent[], targets?: Targets, question = 'Why did trial starts drop last week?', series: readonly SeriesData[] = [{ name: 'trial_starts', labels: {}, points }], cat = catalog) {
  const finding = analyse({ question, catalog: cat, series, events, now });
  const c: Composed = { findings: [], evidence: [], charts: [], actions: [] };
  const o: ToolOutcome<'analyse_change'> = { step: 4, tool: 'analyse_change', data: { ...narrate(finding), finding: { ...finding, ...(targets ? { targets } : {}) }, history: [] }, summary: '' };
  analysisFindings(c, o);
  const none = analysisProposals(c, o);
  for (const a of c.actions) expect(proposalProblems(a, c.findings.length)).toEqual([]);
  return { finding, c, none };
}

const at = (day: string, hour = 9) => `${day}T${String(hour).padStart(2, '0')}:30:00Z`;
const version = (v: number, status: string, publishedAt: string | null, fields: Record<string, unknown>, title = 'Plans') => ({ version: v, status, title, fields, seo: { metaTitle: 'Plans and prices' }, publishedAt });
const published: EngineEvent = { at: at(FALL), kind: 'content_published', title: 'Version 7 of "plans" (site shop) published', ref: 'content:shop:c-42:v7' };

function plans(extra: ContentTarget['versions'] = [], live = 7): ContentTarget {
  return {
    kind: 'content', contentId: 'c-42', siteKey: 'shop', slug: 'plans', publishedVersion: live, latestVersion: Math.max(7, ...extra.map((v) => v.version)),
    versions: [
      version(5, 'SUPERSEDED', '2026-09-01T10:00:00Z', { headline: 'Start free', ctaText: 'Try it' }),
      // A draft never published: the version before 7 that was live is 5, not 6.
      version(6, 'SUPERSEDED', null, { headline: 'Start free!', ctaText: 'Try it' }),
      version(7, live === 7 ? 'PUBLISHED' : 'SUPERSEDED', at(FALL), { headline: 'Start free', ctaText: 'Contact sales' }),
      ...extra,
    ],
  };
}

describe('levers behind a fall, from the events on the day it started', () => {
  it('restores the version live before the one published that day, citing when it started', () => {
    const { finding, c } = run([published], { contents: [plans()], crawlJobs: [] });
    expect(finding.changePoint?.day).toBe(FALL);
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'CONTENT_RESTORE', targetId: 'c-42', params: { siteKey: 'shop', version: 5 } })]);
    const a = c.actions[0]!;
    expect(a.finding).toMatchObject({ title: 'When it started' });
    expect(c.findings[a.finding!.index]!.detail).toContain('Version 7 of "plans"');
    expect(a.expectedImpact).toMatchObject({ metric: 'trial_starts', horizon: 7, horizonDays: 7, p10: 0, method: expect.stringContaining('restoring') });
    expect(a.expectedImpact!.p90).toBeCloseTo(-finding.premise!.change, 6);
  });

  it('names the locale of a localized page, and restores that locale\'s version (its own content id)', () => {
    const german: EngineEvent = { ...published, title: 'Version 7 of "tarife" (de, site shop) published', ref: 'content:shop:c-43:v7' };
    const target = { ...plans(), contentId: 'c-43', locale: 'de', slug: 'tarife' };
    const draft = version(8, 'DRAFT', null, { headline: 'Start free today', ctaText: 'Contact sales' });
    const { c } = run([german], { contents: [{ ...target, latestVersion: 8, versions: [...target.versions, draft] }], crawlJobs: [] });
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'CONTENT_DRAFT_UPDATE', targetId: 'c-43' })]);
    expect(c.actions[0]!.title).toContain('"tarife" (de, site shop)');
  });

  it('updates a newer draft instead, putting back only what the version changed and the draft still carries', () => {
    const draft = version(8, 'DRAFT', null, { headline: 'Start free today', ctaText: 'Contact sales' }, 'Plans and prices');
    const { c } = run([published], { contents: [plans([draft])], crawlJobs: [] });
    expect(c.actions).toHaveLength(1);
    expect(c.actions[0]).toMatchObject({
      kind: 'CONTENT_DRAFT_UPDATE', targetType: 'Content', targetId: 'c-42', undoable: true,
      params: { siteKey: 'shop', baseVersion: 8, input: { fields: { ctaText: 'Try it' } }, previous: { fields: { ctaText: 'Contact sales' } }, reverts: 7, from: 5 },
      expectedImpact: expect.objectContaining({ method: expect.stringContaining('until the draft is published') }),
    });
  });

  it('proposes nothing for a version no longer live, and says why', () => {
    const { c, none } = run([published], { contents: [plans([version(8, 'PUBLISHED', '2026-11-15T08:00:00Z', { headline: 'x', ctaText: 'Try it' })], 8)], crawlJobs: [] });
    expect(c.actions).toEqual([]);
    expect(none).toMatch(/Version 7 of "plans" \(site shop\) is no longer live \(version 8 is, and it no longer carries what version 7 changed\)/);
  });

  it('restores the version before the harmful one when a typo fix published after it, the same day, keeps its change', () => {
    const fix: EngineEvent = { at: at(FALL, 15), kind: 'content_published', title: 'Version 8 of "plans" (site shop) published', ref: 'content:shop:c-42:v8' };
    const typoFix = version(8, 'PUBLISHED', at(FALL, 15), { headline: 'Start free', ctaText: 'Contact sales' }, 'Plans');
    const { c } = run([published, fix], { contents: [plans([{ ...typoFix, seo: { metaTitle: 'Plans and prices (fixed)' } }], 8)], crawlJobs: [] });
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'CONTENT_RESTORE', targetId: 'c-42', params: { siteKey: 'shop', version: 5 } })]);
    expect(c.actions[0]!.rationale).toContain('version 8, live now, still carries its change (fields.ctaText)');
    expect(c.actions[0]!.rationale).toContain('what version 8 changed besides');
  });

  it('changes healed selectors back to the ones before the healing, and runs a failed crawl again', () => {
    const job: CrawlJobTarget = {
      kind: 'crawl-job', jobId: 'j-9', jobName: 'partner offers', status: 'SCHEDULED', selectorVersion: 4,
      selectorHistory: [
        { version: 4, selectors: { listRow: 'div.card', title: 'h3' }, reason: 'healed during execution e-77', createdAt: at(FALL, 4) },
        { version: 3, selectors: { listRow: 'li.offer', title: 'h3' }, reason: 'changed', createdAt: '2026-10-01T00:00:00Z' },
      ],
      lastRun: { status: 'FAILED', finishedAt: at(FALL, 6) },
    };
    const events: EngineEvent[] = [
      { at: at(FALL, 4), kind: 'selector_healed', title: 'Crawl job "partner offers" healed its selectors', ref: 'crawl-job:j-9' },
      { at: at(FALL, 6), kind: 'crawl_failed', title: 'Crawl job "partner offers" run failed', ref: 'crawl-job:j-9:execution:e-78' },
    ];
    const { c } = run(events, { contents: [], crawlJobs: [job] });
    expect(c.actions.map((a) => [a.kind, a.targetType, a.targetId])).toEqual([['CRAWL_SELECTOR_CHANGE', 'CrawlJob', 'j-9'], ['CRAWL_TRIGGER', 'CrawlJob', 'j-9']]);
    expect(c.actions[0]!.params).toMatchObject({ selectors: { listRow: 'li.offer', title: 'h3' }, restores: 3, replaces: 4 });
    expect(c.actions[0]!.title).toContain('listRow');
    expect(c.actions[1]!.params).toEqual({ failedExecution: 'e-78' });

    // Selectors changed again since, and a later run completed: nothing to undo, and the report says why.
    const later: CrawlJobTarget = { ...job, selectorVersion: 5, lastRun: { status: 'COMPLETED', finishedAt: at('2026-11-14') } };
    const { c: d, none } = run(events, { contents: [], crawlJobs: [later] });
    expect(d.actions).toEqual([]);
    expect(none).toMatch(/selectors changed again since the healing \(version 5 now\).*A later run of the crawl job "partner offers" completed/);
  });

  it('finds the page a falling segment names, when a version of it went live in the compared weeks', () => {
    const leaves = generateLeaves('trial_starts', { page: ['/plans', '/home', '/docs'] }, { start, days: 400, level: 9000, seed: 5, noise: 0.02 }, (labels, day) => (labels.page === '/plans' && day >= FALL ? 0.5 : 1));
    const cat: CatalogEntry[] = [{ name: 'trial_starts', labels: ['page'] }];
    // The version went live two days before the fall: not on its day, but on the page the cause names.
    const early = { ...plans(), versions: plans().versions.map((v) => (v.version === 7 ? { ...v, publishedAt: at('2026-11-10') } : v)) };
    const { c, finding } = run([], { contents: [early], crawlJobs: [] }, undefined, [totalOf('trial_starts', leaves), ...leaves], cat);
    expect(finding.causes[0]).toMatchObject({ view: 'segment', labels: { page: '/plans' } });
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'CONTENT_RESTORE', params: { siteKey: 'shop', version: 5 } })]);
    expect(c.actions[0]!.finding).toMatchObject({ title: 'A cause', detail: expect.stringContaining('page=/plans') });
  });

  it('names but does not act on an event when the declared drivers explain the move', () => {
    const spend = generateDaily({ start, days: 400, level: 1000, seed: 7, noise: 0.15 }, fall);
    const signups = spend.map((p, i) => ({ t: p.t, value: 5000 * (p.value / 1000) ** 0.6 * (1 + 0.01 * Math.sin(i)) }));
    const cat: CatalogEntry[] = [{ name: 'trial_starts', drivers: [{ metric: 'partner_fees' }] }, { name: 'partner_fees', unit: { kind: 'currency', code: 'EUR' } }];
    const { c, finding } = run([published], { contents: [plans()], crawlJobs: [] }, undefined, [{ name: 'trial_starts', labels: {}, points: signups }, { name: 'partner_fees', labels: {}, points: spend }], cat);
    expect(finding.primaryView).toBe('driver');
    expect(c.actions.map((a) => a.kind)).toEqual(['EXTERNAL']);
    expect(c.actions[0]!.finding).toMatchObject({ title: 'A cause', detail: expect.stringContaining('partner_fees') });
  });

  it('hands off a change the tenant made on the day of an unexplained fall, for the operator to review and undo', () => {
    const deploy: EngineEvent = { at: at(FALL, 14), kind: 'deploy', title: 'Checkout v2 rolled out', ref: 'release-2.0' };
    const note: EngineEvent = { at: at(FALL, 15), kind: 'note', title: 'All-hands meeting' };
    const { c, finding } = run([deploy, note]);
    expect(finding.changePoint?.day).toBe(FALL);
    expect(c.actions).toEqual([expect.objectContaining({
      kind: 'EXTERNAL', targetType: 'External', targetId: 'release-2.0', undoable: false,
      params: { lever: 'release-2.0', change: { revert: { ref: 'release-2.0', kind: 'deploy', title: 'Checkout v2 rolled out', at: `${FALL}T14:30:00.000Z` } }, summary: expect.stringContaining('undo it if it caused the move') },
      expectedImpact: expect.objectContaining({ metric: 'trial_starts', p10: 0, p90: -finding.premise!.change, method: expect.stringContaining('undoing it') }),
    })]);
    expect(c.actions[0]!.finding).toMatchObject({ title: 'When it started' });
  });

  it('still suspects a tenant\'s change when a segment only says where the fall happened', () => {
    const leaves = generateLeaves('trial_starts', { region: ['north', 'south', 'east'] }, { start, days: 400, level: 9000, seed: 5, noise: 0.02 }, (labels, day) => (labels.region === 'north' && day >= FALL ? 0.4 : 1));
    const deploy: EngineEvent = { at: at(FALL, 14), kind: 'deploy', title: 'Checkout v2 rolled out in the north', ref: 'release-2.0' };
    const { c, finding } = run([deploy], undefined, undefined, [totalOf('trial_starts', leaves), ...leaves], [{ name: 'trial_starts', labels: ['region'] }]);
    expect(finding.causes[0]).toMatchObject({ view: 'segment', labels: { region: 'north' } });
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'EXTERNAL', targetId: 'release-2.0' })]);
  });
});
