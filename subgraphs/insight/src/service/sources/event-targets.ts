import { hasRole, SvcError, type Logger } from '@svc/kit';
import { parseEventRef } from '../../domain/event-ref.js';
import type { ContentTarget, ContentVersionState, CrawlJobTarget, Targets } from '../../domain/event-target.js';
import type { Finding } from '../../engine/finding.js';
import type { GraphCall } from '../graph-call.js';
import type { Caller } from './metric-source.js';

/**
 * What a bad move's levers point at, as it is now, read through the router with the caller's
 * rights once the engine has lined the events up: the contents named by the events on the day
 * the move started (their versions, with text), the pages its causes name (a label value that is
 * a content's slug on the caller's sites), and the crawl jobs those events name (their selector
 * history and last run). A target the caller may not read is left out; any other failure is
 * thrown for the caller to note.
 */

/** Reads per analysis, at most. */
export const EVENT_TARGET_LIMITS = { contents: 10, crawlJobs: 10, sites: 20, versions: 20 } as const;

const REFUSED = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'NOT_FOUND']);

interface ContentRow {
  id: string;
  siteKey: string;
  locale?: string;
  slug: string;
  publishedVersion: number | null;
  latestVersion: number;
  versions: (Omit<ContentVersionState, 'fields' | 'seo'> & { fields: Record<string, unknown> | null; seo: Record<string, unknown> | null })[];
}

interface JobRows {
  crawlJob: { jobId: string; jobName: string; status: string; selectorVersion: number };
  crawlSelectorVersions: { version: number; selectors: Record<string, string>; reason: string; createdAt: string }[];
  crawlExecutions: { status: string; finishedAt: string | null }[];
}

/** Whether the finding is a move worth acting on: analysed, the wrong way for the metric, and beyond normal. */
export function isBadMove(f: Finding): boolean {
  if (f.status !== 'analysed' || !f.subject || !f.premise || f.premise.verdict === 'within-normal') return false;
  return f.subject.upIsGood ? f.premise.change < 0 : f.premise.change > 0;
}

const slugOf = (value: string) => value.trim().replace(/^\/+|\/+$/g, '').toLowerCase();

export function eventTargets(deps: { call: GraphCall; headers(caller: Caller): Promise<Record<string, string>>; log?: Logger }) {
  async function readable<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof SvcError && REFUSED.has(error.code)) {
        deps.log?.debug({ code: error.code }, 'an event target was left out: the caller may not read it');
        return undefined;
      }
      throw error;
    }
  }

  async function content(id: string, headers: Record<string, string>): Promise<ContentTarget | undefined> {
    const row = (await readable(() => deps.call<{ content: ContentRow }>('InsightContentTarget', { id }, headers)))?.content;
    if (!row) return undefined;
    // The versions a proposal can name: those ever live, and the newest (a waiting draft).
    const versions = row.versions
      .filter((v) => v.publishedAt !== null || v.version === row.latestVersion)
      .sort((a, b) => b.version - a.version)
      .slice(0, EVENT_TARGET_LIMITS.versions)
      .map((v) => ({ ...v, fields: v.fields ?? {}, seo: v.seo ?? {} }));
    return { kind: 'content', contentId: row.id, siteKey: row.siteKey, ...(row.locale ? { locale: row.locale } : {}), slug: row.slug, publishedVersion: row.publishedVersion, latestVersion: row.latestVersion, versions };
  }

  async function crawlJob(jobId: string, headers: Record<string, string>): Promise<CrawlJobTarget | undefined> {
    const rows = await readable(() => deps.call<JobRows>('InsightCrawlJobTarget', { jobId }, headers));
    if (!rows) return undefined;
    const last = rows.crawlExecutions[0];
    return {
      kind: 'crawl-job', ...rows.crawlJob,
      selectorHistory: rows.crawlSelectorVersions,
      lastRun: last ? { status: last.status, finishedAt: last.finishedAt } : null,
    };
  }

  /** Content ids of the caller's sites whose slug is one of `slugs`. */
  async function pages(caller: Caller, slugs: Set<string>, headers: Record<string, string>): Promise<string[]> {
    if (slugs.size === 0 || !hasRole(caller.principal, 'editor')) return [];
    const granted = caller.principal.sites;
    const sites = granted === '*' ? ((await readable(() => deps.call<{ sites: { siteKey: string }[] }>('InsightSites', {}, headers)))?.sites.map((s) => s.siteKey) ?? []) : [...granted];
    const ids: string[] = [];
    for (const siteKey of sites.slice(0, EVENT_TARGET_LIMITS.sites)) {
      const rows = (await readable(() => deps.call<{ contents: { id: string; slug: string }[] }>('InsightContents', { siteKey }, headers)))?.contents ?? [];
      ids.push(...rows.filter((r) => slugs.has(slugOf(r.slug))).map((r) => r.id));
    }
    return ids;
  }

  return {
    /** The targets of a bad move's events and pages; undefined when the move is not one to act on. */
    async read(caller: Caller, f: Finding): Promise<Targets | undefined> {
      if (!isBadMove(f)) return undefined;
      const aligned = f.changePoint ? f.events.filter((e) => e.changePoint === f.changePoint!.day) : [];
      const contentIds = new Set<string>();
      const jobIds = new Set<string>();
      for (const { event } of aligned) {
        const ref = parseEventRef(event.ref);
        if (ref?.kind === 'content') contentIds.add(ref.contentId);
        if (ref?.kind === 'crawl-job') jobIds.add(ref.jobId);
      }
      const slugs = new Set(f.causes.filter((c) => c.labels && Math.sign(c.contribution) === Math.sign(f.premise!.change)).flatMap((c) => Object.values(c.labels!).map(slugOf)).filter(Boolean));
      if (contentIds.size === 0 && jobIds.size === 0 && slugs.size === 0) return undefined;
      const headers = await deps.headers(caller);
      for (const id of await pages(caller, slugs, headers)) contentIds.add(id);
      const contents = (await Promise.all([...contentIds].slice(0, EVENT_TARGET_LIMITS.contents).map((id) => content(id, headers)))).filter((t): t is ContentTarget => !!t);
      const crawlJobs = (await Promise.all([...jobIds].slice(0, EVENT_TARGET_LIMITS.crawlJobs).map((id) => crawlJob(id, headers)))).filter((t): t is CrawlJobTarget => !!t);
      return { contents, crawlJobs };
    },
  };
}

export type EventTargets = ReturnType<typeof eventTargets>;
