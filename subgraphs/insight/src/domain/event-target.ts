/**
 * What an analysis's events and pages point at, as it is now: read through the router with the
 * caller's rights after the engine has lined the events up (service/sources/event-targets.ts),
 * so a proposal names a version, a draft or selectors that exist, not guesses.
 */

/** One version of a content: its text as the cms keeps it, and when it went live (null: never). */
export interface ContentVersionState {
  version: number;
  /** DRAFT, PUBLISHED, SUPERSEDED or UNPUBLISHED. */
  status: string;
  title: string;
  fields: Record<string, unknown>;
  seo: Record<string, unknown>;
  /** ISO 8601; null for a version never live. */
  publishedAt: string | null;
}

export interface ContentTarget {
  kind: 'content';
  contentId: string;
  siteKey: string;
  /** The locale of this content (each locale is its own content, published and restored on its own). */
  locale?: string;
  slug: string;
  publishedVersion: number | null;
  latestVersion: number;
  versions: ContentVersionState[];
}

/** One selector set a crawl job has used; `reason` says whether a run healed it or a person changed it. */
export interface SelectorVersionState {
  version: number;
  selectors: Record<string, string>;
  reason: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface CrawlJobTarget {
  kind: 'crawl-job';
  jobId: string;
  jobName: string;
  /** SCHEDULED, PAUSED, COMPLETED or DELETED. */
  status: string;
  selectorVersion: number;
  /** Newest first. */
  selectorHistory: SelectorVersionState[];
  /** The job's newest run, if any. */
  lastRun: { status: string; finishedAt: string | null } | null;
}

export type EventTarget = ContentTarget | CrawlJobTarget;

/** Targets an analysis carries beside the engine's finding (absent when nothing could be read). */
export interface Targets {
  contents: ContentTarget[];
  crawlJobs: CrawlJobTarget[];
}

/** How reports name a content page: its slug, its locale when known, and its site. */
export const contentPage = (c: { slug: string; locale?: string | undefined; siteKey: string }) => `"${c.slug}" (${c.locale ? `${c.locale}, ` : ''}site ${c.siteKey})`;
