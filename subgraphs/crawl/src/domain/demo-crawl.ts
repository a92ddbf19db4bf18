import { demoStory } from '@svc/kit/demo-story';
import type { CrawlSelectors } from './crawl-job-input.js';

/**
 * The embedded demo's crawl jobs (kit's demo-story.ts), both of tenant `demo`, both daily at
 * 06:00 UTC:
 * - "Competitor prices" collects about 480 products a run until the run of the Saturday before
 *   the story's week heals its selectors onto the catalogue's featured rows only; from then on
 *   it collects about 40.
 * - "Supplier stock" collects about 150 stock lines a run until the Wednesday before that week,
 *   when the supplier's site starts refusing it: every run since failed and collected nothing.
 * The sites are fictional (`.example`, names reserved for examples), so the jobs are seeded
 * paused: their history is the demo's data, and a person who resumes or runs one sees the fetch
 * fail as it would for any unreachable site.
 */
export interface DemoCrawl {
  tenantId: string;
  jobName: string;
  targetUrl: string;
  cronExpression: string;
  createdAt: Date;
  /** Selector versions in order: as created, then as healed. */
  versions: { selectors: CrawlSelectors; reason: string; at: Date }[];
  /** Daily runs, oldest first; `healed` marks the one that adopted version 2; a failed run has its error. */
  runs: { startedAt: Date; finishedAt: Date; totalCount: number; healed: boolean; error?: string }[];
}

export const DEMO_CRAWL_TENANT = 'demo';
export const DEMO_CRAWL_ORIGINAL: CrawlSelectors = { listRow: 'ul.catalogue > li.product', title: 'h2.product-name', link: 'a.product-link::attr(href)' };
export const DEMO_CRAWL_HEALED: CrawlSelectors = { listRow: 'ul.catalogue > li.product.featured', title: 'h2', link: 'a::attr(href)' };
export const DEMO_SUPPLIER_SELECTORS: CrawlSelectors = { listRow: 'table.stock > tbody > tr', title: 'td.sku', link: 'td.sku a::attr(href)' };
export const DEMO_SUPPLIER_ERROR = 'GET https://supplier.example/stock answered 403 Forbidden';

const DAY = 86_400_000;
/** Days of daily runs before the story's first change. */
const HISTORY_DAYS = 63;

/** Every morning's run of a job created `HISTORY_DAYS` before `since` that has finished by now (a run takes under a minute). */
function dailyRuns(since: number, now: Date, run: (at: number, day: number) => Omit<DemoCrawl['runs'][number], 'startedAt' | 'finishedAt'> & { elapsedMs: number }): DemoCrawl['runs'] {
  const first = since - HISTORY_DAYS * DAY;
  const runs: DemoCrawl['runs'] = [];
  for (let at = first; at + 60_000 <= now.getTime(); at += DAY) {
    const { elapsedMs, ...rest } = run(at, (at - first) / DAY);
    runs.push({ startedAt: new Date(at), ...rest, finishedAt: new Date(at + elapsedMs) });
  }
  return runs;
}

function competitorPrices(now: Date, random: () => number): DemoCrawl {
  const healing = demoStory(now).crawlHealing.getTime();
  const runs = dailyRuns(healing, now, (at, day) => {
    const before = at < healing;
    // A catalogue that grows slowly, a few products in or out from one day to the next.
    const totalCount = before ? Math.round(470 + day * 0.2 + random() * 12) : Math.round(38 + random() * 6);
    return { totalCount, healed: at === healing, elapsedMs: (before ? 40 : 12) * 1000 + Math.floor(random() * 8000) };
  });
  const healedRun = runs.find((r) => r.healed);
  const created = new Date(runs[0]!.startedAt.getTime() - DAY);
  return {
    tenantId: DEMO_CRAWL_TENANT,
    jobName: 'Competitor prices',
    targetUrl: 'https://competitor.example/catalogue',
    cronExpression: '0 6 * * *',
    createdAt: created,
    versions: [
      { selectors: DEMO_CRAWL_ORIGINAL, reason: 'created', at: created },
      ...(healedRun ? [{ selectors: DEMO_CRAWL_HEALED, reason: 'healed', at: healedRun.finishedAt }] : []),
    ],
    runs,
  };
}

function supplierStock(now: Date, random: () => number): DemoCrawl {
  const outage = demoStory(now).crawlOutage.getTime();
  const runs = dailyRuns(outage, now, (at) =>
    at < outage
      ? { totalCount: Math.round(146 + random() * 10), healed: false, elapsedMs: 15_000 + Math.floor(random() * 5000) }
      : { totalCount: 0, healed: false, error: DEMO_SUPPLIER_ERROR, elapsedMs: 800 + Math.floor(random() * 400) },
  );
  const created = new Date(runs[0]!.startedAt.getTime() - DAY);
  return {
    tenantId: DEMO_CRAWL_TENANT,
    jobName: 'Supplier stock',
    targetUrl: 'https://supplier.example/stock',
    cronExpression: '0 6 * * *',
    createdAt: created,
    versions: [{ selectors: DEMO_SUPPLIER_SELECTORS, reason: 'created', at: created }],
    runs,
  };
}

/** The jobs and their histories as seeded at `now`, with run sizes drawn from `random`. */
export function demoCrawls(now: Date, random: () => number): DemoCrawl[] {
  return [competitorPrices(now, random), supplierStock(now, random)];
}
