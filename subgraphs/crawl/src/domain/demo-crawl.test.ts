import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { demoStory } from '@svc/kit/demo-story';
import { DEMO_CRAWL_HEALED, DEMO_CRAWL_ORIGINAL, DEMO_SUPPLIER_ERROR, demoCrawls } from './demo-crawl.js';

describe('the demo crawl jobs\' histories', () => {
  const now = new Date('2026-11-25T15:00:00Z');
  const [demo, supplier] = demoCrawls(now, seededRandom(11)) as [ReturnType<typeof demoCrawls>[number], ReturnType<typeof demoCrawls>[number]];
  const healing = demoStory(now).crawlHealing;

  it('heals on the Saturday before the story\'s week, three days before the pricing change', () => {
    expect(healing.toISOString()).toBe('2026-11-14T06:00:00.000Z');
    expect((demoStory(now).pricingChange.getTime() - healing.getTime()) / 86_400_000).toBeGreaterThan(3);
    const healed = demo.runs.filter((r) => r.healed);
    expect(healed).toHaveLength(1);
    expect(healed[0]!.startedAt).toEqual(healing);
    expect(demo.versions).toEqual([
      { selectors: DEMO_CRAWL_ORIGINAL, reason: 'created', at: demo.createdAt },
      { selectors: DEMO_CRAWL_HEALED, reason: 'healed', at: healed[0]!.finishedAt },
    ]);
  });

  it('runs daily up to this morning, collecting about a tenth of its items after the healing', () => {
    const before = demo.runs.filter((r) => r.startedAt < healing);
    const after = demo.runs.filter((r) => r.startedAt >= healing);
    expect(before.length).toBeGreaterThanOrEqual(60);
    expect(Math.min(...before.map((r) => r.totalCount))).toBeGreaterThan(450);
    expect(Math.max(...after.map((r) => r.totalCount))).toBeLessThan(50);
    const last = demo.runs[demo.runs.length - 1]!;
    expect(last.startedAt.toISOString()).toBe('2026-11-25T06:00:00.000Z');
    for (let i = 1; i < demo.runs.length; i++) expect(demo.runs[i]!.startedAt.getTime() - demo.runs[i - 1]!.startedAt.getTime()).toBe(86_400_000);
    expect(demo.runs.every((r) => r.finishedAt > r.startedAt)).toBe(true);
  });

  it('fails every run of the supplier\'s stock from the Wednesday before the story\'s week, three days before the healing', () => {
    const outage = demoStory(now).crawlOutage;
    expect(outage.toISOString()).toBe('2026-11-11T06:00:00.000Z');
    expect((healing.getTime() - outage.getTime()) / 86_400_000).toBe(3);
    expect(supplier.jobName).toBe('Supplier stock');
    const before = supplier.runs.filter((r) => r.startedAt < outage);
    const after = supplier.runs.filter((r) => r.startedAt >= outage);
    expect(before.length).toBeGreaterThanOrEqual(60);
    expect(before.every((r) => r.error === undefined && r.totalCount > 140)).toBe(true);
    expect(after.length).toBe(15);
    expect(after.every((r) => r.error === DEMO_SUPPLIER_ERROR && r.totalCount === 0)).toBe(true);
    expect(supplier.versions).toHaveLength(1);
  });
});
