import type { ItemDiff } from './crawl-item.js';
import type { CrawlSelectors, RagConfig, WebhookEvent } from './crawl-job-input.js';
import type { StoredFingerprints } from './fingerprint.js';

// A crawl job and its executions as stored (store/job-store.ts returns them).

export type JobStatus = 'SCHEDULED' | 'PAUSED' | 'DELETED' | 'COMPLETED';
/** BLOCKED: the list page answered a block page; nothing was extracted and the job's items stay as they were. */
export type ExecutionStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'BLOCKED';

/** A page an execution found blocked (fetch/block-page.ts), as its execution keeps it. */
export interface BlockedPage {
  url: string;
  status: number;
  /** challenge, captcha, access-denied, login-wall, rate-limited, javascript-required, soft-404, consent, refresh-loop or repeated-shell */
  kind: string;
  rule: string;
  reason: string;
}

/** A changed item as its execution keeps it (the first MAX_CHANGED_KEPT). */
export interface ChangedItem {
  itemId: string;
  title: string;
  detailUrl: string;
  diff: ItemDiff | null;
}

/** An item the job's previous completed run listed and this one did not. */
export interface GoneItem {
  itemId: string;
  title: string;
  detailUrl: string;
}

export interface ChangeCounts {
  new: number;
  changed: number;
  unchanged: number;
  gone: number;
}

export const MAX_CHANGED_KEPT = 20;
export const MAX_GONE_KEPT = 50;

/** An execution keeps at most this many blocked pages (its count goes on). */
export const MAX_BLOCKED_PAGES_KEPT = 50;

export interface JobRow {
  id: string;
  tenantId: string;
  jobName: string;
  targetUrl: string;
  cronExpression: string | null;
  runAt: Date | null;
  selectors: CrawlSelectors;
  selectorVersion: number;
  fingerprints: StoredFingerprints | null;
  enableRagSync: boolean;
  ragConfig: RagConfig | null;
  robotsTxt: 'respect' | 'ignore';
  dayFirst: boolean;
  /** Per-execution events and where they go (the signing secret is never read into a row). */
  webhook: { url: string; events: WebhookEvent[] } | null;
  /** Detail-page elements change tracking ignores (left out of the main text). */
  volatileSelectors: string[];
  status: JobStatus;
  nextRunAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What one job's runs collected on one UTC day. */
export interface ItemDay {
  tenantId: string;
  jobId: string;
  jobName: string;
  /** YYYY-MM-DD, UTC */
  day: string;
  /** Items the day's completed runs collected (each run counts its whole list); 0 when all failed. */
  items: number;
  /** Items seen for the first time that day. */
  newItems: number;
  /** Completed runs that day. */
  executions: number;
  /** Failed runs that day, blocked ones included. */
  failedRuns: number;
  /** Runs that day whose list page was a block page. */
  blockedRuns: number;
  /** Pages the day's runs found blocked (list and detail pages). */
  blockedPages: number;
}

/** One selector set a job has used: version 1 as created, then each healing or change. */
export interface SelectorVersionRow {
  version: number;
  selectors: Record<string, string>;
  /** `created`, `changed`, or `healed during execution <id>`. */
  reason: string;
  createdAt: Date;
}

export interface ExecutionRow {
  id: string;
  tenantId: string;
  jobId: string;
  status: ExecutionStatus;
  allocatedAgent: string | null;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  elapsedMs: number | null;
  totalCount: number;
  selfHealingOccurred: boolean;
  error: string | null;
  /** Pages this execution found blocked (list and detail pages). */
  blockedCount: number;
  /** The first MAX_BLOCKED_PAGES_KEPT of them. */
  blockedPages: BlockedPage[];
  /** Items new, changed and unchanged in this run, and gone since the job's previous completed run (all 0 before change tracking). */
  changes: ChangeCounts;
  /** The first MAX_CHANGED_KEPT changed items with their diffs. */
  changedItems: ChangedItem[];
  /** The first MAX_GONE_KEPT gone items. */
  goneItems: GoneItem[];
}
