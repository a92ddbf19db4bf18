import { demoStory } from '@svc/kit/demo-story';
import type { CrawlSelectors } from './crawl-job-input.js';

/**
 * The embedded demo's crawl job (kit's demo-story.ts): tenant `demo` crawls a competitor's
 * catalogue every morning at 06:00 UTC and collects about 480 products a run, until the run of
 * the Saturday before the story's week heals its selectors onto the catalogue's featured rows
 * only; from then on it collects about 40. The site is fictional (`competitor.example`, a name
 * reserved for examples), so the job is seeded paused: its history is the demo's data, and a
 * person who resumes it sees the fetch fail as it would for any unreachable site.
 */
export interface DemoCrawl {
  tenantId: string;
  jobName: string;
  targetUrl: string;
  cronExpression: string;
  createdAt: Date;
  /** Selector versions in order: as created, then as healed. */
  versions: { selectors: CrawlSelectors; reason: string; at: Date }[];
  /** Daily runs, oldest first; `healed` marks the one that adopted version 2. */
  runs: { startedAt: Date; finishedAt: Date; totalCount: number; healed: boolean }[];
}

export const DEMO_CRAWL_TENANT = 'demo';
export const DEMO_CRAWL_ORIGINAL: CrawlSelectors = { listRow: 'ul.catalogue > li.product', title: 'h2.product-name', link: 'a.product-link::attr(href)' };
export const DEMO_CRAWL_HEALED: CrawlSelectors = { listRow: 'ul.catalogue > li.product.featured', title: 'h2', link: 'a::attr(href)' };

const DAY = 86_400_000;
/** Days of daily runs before the healing. */
const HISTORY_DAYS = 63;

/** The job and its history as seeded at `now`, with run sizes drawn from `random`. */
export function demoCrawl(now: Date, random: () => number): DemoCrawl {
  const healing = demoStory(now).crawlHealing;
  const first = healing.getTime() - HISTORY_DAYS * DAY;
  const runs: DemoCrawl['runs'] = [];
  // Every morning's run that has finished by now (a run takes under a minute).
  for (let at = first; at + 60_000 <= now.getTime(); at += DAY) {
    const healed = at === healing.getTime();
    const before = at < healing.getTime();
    // A catalogue that grows slowly, a few products in or out from one day to the next.
    const totalCount = before ? Math.round(470 + ((at - first) / DAY) * 0.2 + random() * 12) : Math.round(38 + random() * 6);
    const elapsed = (before ? 40 : 12) * 1000 + Math.floor(random() * 8000);
    runs.push({ startedAt: new Date(at), finishedAt: new Date(at + elapsed), totalCount, healed });
  }
  const healedRun = runs.find((r) => r.healed);
  return {
    tenantId: DEMO_CRAWL_TENANT,
    jobName: 'Competitor prices',
    targetUrl: 'https://competitor.example/catalogue',
    cronExpression: '0 6 * * *',
    createdAt: new Date(first - DAY),
    versions: [
      { selectors: DEMO_CRAWL_ORIGINAL, reason: 'created', at: new Date(first - DAY) },
      ...(healedRun ? [{ selectors: DEMO_CRAWL_HEALED, reason: 'healed', at: healedRun.finishedAt }] : []),
    ],
    runs,
  };
}
