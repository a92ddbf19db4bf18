import { hasRole, SvcError, type Logger } from '@svc/kit';
import { contentRef, crawlJobRef } from '../../domain/event-ref.js';
import { contentPage } from '../../domain/event-target.js';
import type { TimelineEvent } from '../../domain/timeline-event.js';
import type { GraphCall } from '../graph-call.js';
import type { Caller } from './metric-source.js';

/** Where one kind of the platform's events comes from. */
export type PlatformEventFamily = 'content' | 'crawl';

interface ContentRow {
  id: string;
  siteKey: string;
  locale?: string;
  slug: string;
  versions: { version: number; publishedAt: string | null }[];
}

interface RunRow {
  executionId: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  selfHealingOccurred: boolean;
  error: string | null;
  blockedCount: number;
  changes: { changed: number };
  changedItems: { title: string; detailUrl: string; diff: { added: string[]; removed: string[]; more: number; rewritten: boolean } | null }[];
}

/** A changed page in a title: its title and the first sentence added and removed. */
function changeNote(item: RunRow['changedItems'][number]): string {
  const limit = PLATFORM_EVENT_LIMITS.errorText / 2;
  const short = (text: string) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
  const d = item.diff;
  if (!d) return `"${short(item.title)}"`;
  if (d.rewritten) return `"${short(item.title)}" (rewritten)`;
  const parts = [d.added[0] ? `added "${short(d.added[0])}"` : '', d.removed[0] ? `removed "${short(d.removed[0])}"` : ''].filter(Boolean);
  return `"${short(item.title)}"${parts.length ? ` (${parts.join('; ')})` : ''}`;
}

/** Run statuses that are events, and how they read: a streak of either is one event, at its first run. */
const RUN_TROUBLE: Record<string, { kind: string; one: string; streak: string }> = {
  FAILED: { kind: 'crawl_failed', one: 'run failed', streak: 'runs started failing' },
  BLOCKED: { kind: 'crawl_blocked', one: 'run was blocked by the site', streak: 'runs started being blocked by the site' },
};

/** Sites and crawl jobs read per call, at most: an analysis window is read in a few router calls. */
export const PLATFORM_EVENT_LIMITS = { sites: 20, crawlJobs: 100, runsPerJob: 200, errorText: 160 } as const;

/** Answers that mean "not yours to read": that family is skipped, the others still answer. */
const REFUSED = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'NOT_FOUND']);

const timeOf = (text: string | null | undefined) => (text ? Date.parse(text) : Number.NaN);

/**
 * The platform's own events, read through the router with the caller's authority when asked
 * (the analysis service reads no other schema): content versions published on the tenant's
 * sites (`sitesOf`: the token's named sites, or for an all-sites token the site named like the tenant; cms `contents`, each version's `publishedAt`; `ref` = `content:<siteKey>:<id>:v<version>`), and
 * for the tenant's crawl jobs the runs that FAILED (`crawl_failed`, `ref` =
 * `crawl-job:<jobId>:execution:<executionId>`; failures in a row are one event, at the first), the
 * runs BLOCKED by the site (a bot challenge, login wall or rate limit on the list page:
 * `crawl_blocked`, a streak likewise one event), the completed runs that found pages changed
 * (`page_changed`, with the first changed page and what changed in it) and the runs whose selectors healed
 * (`selector_healed`, `ref` = `crawl-job:<jobId>`). Budget changes are not recorded by the
 * model gateway, so they are not among them. A family the caller may not read (contents need
 * role editor) is skipped; any other failure is thrown.
 */
export function platformEvents(deps: { call: GraphCall; headers(caller: Caller): Promise<Record<string, string>>; log?: Logger }) {
  async function refusedAsEmpty<T>(family: PlatformEventFamily, read: () => Promise<T[]>): Promise<T[]> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof SvcError && REFUSED.has(error.code)) {
        deps.log?.debug({ family, code: error.code }, 'platform events skipped: the caller may not read them');
        return [];
      }
      throw error;
    }
  }

  /**
   * The sites whose content is this tenant's story. Sites and tenants are separate grants, so a
   * token naming its sites gives exactly those; a token for every site (`"*"`, an operator's) does
   * not make every site the tenant's: only the site whose key is the tenant's id (the demo tenant's
   * site `demo`) is read, so another tenant's pages never turn up as causes (or restore proposals)
   * in this tenant's analysis.
   */
  async function sitesOf(caller: Caller, headers: Record<string, string>): Promise<string[]> {
    const granted = caller.principal.sites;
    if (granted !== '*') return [...granted];
    const all = (await deps.call<{ sites: { siteKey: string }[] }>('InsightSites', {}, headers)).sites.map((s) => s.siteKey);
    return all.filter((key) => key === caller.tenantId);
  }

  async function contentEvents(caller: Caller, headers: Record<string, string>, from: number, to: number): Promise<TimelineEvent[]> {
    if (!hasRole(caller.principal, 'editor')) return [];
    const sites = await sitesOf(caller, headers);
    const out: TimelineEvent[] = [];
    for (const siteKey of sites.slice(0, PLATFORM_EVENT_LIMITS.sites)) {
      const rows = await refusedAsEmpty('content', async () => (await deps.call<{ contents: ContentRow[] }>('InsightContentVersions', { siteKey }, headers)).contents);
      for (const c of rows) {
        for (const v of c.versions) {
          const at = timeOf(v.publishedAt);
          if (!(at >= from && at < to)) continue;
          out.push({ id: `content:${c.id}:v${v.version}`, at, kind: 'content_published', title: `Version ${v.version} of ${contentPage(c)} published`, ref: contentRef(c.siteKey, c.id, v.version), source: 'platform' });
        }
      }
    }
    return out;
  }

  async function crawlEvents(headers: Record<string, string>, from: number, to: number): Promise<TimelineEvent[]> {
    const jobs = (await deps.call<{ crawlJobs: { jobId: string; jobName: string }[] }>('InsightCrawlRunJobs', {}, headers)).crawlJobs;
    const out: TimelineEvent[] = [];
    for (const job of jobs.slice(0, PLATFORM_EVENT_LIMITS.crawlJobs)) {
      const runs = await refusedAsEmpty('crawl', async () => (await deps.call<{ crawlExecutions: RunRow[] }>('InsightCrawlRuns', { jobId: job.jobId, limit: PLATFORM_EVENT_LIMITS.runsPerJob }, headers)).crawlExecutions);
      const finished = runs.map((run) => ({ run, at: timeOf(run.finishedAt ?? run.startedAt) })).filter((r) => Number.isFinite(r.at)).sort((a, b) => a.at - b.at);
      for (const [i, { run, at }] of finished.entries()) {
        if (!(at >= from && at < to)) continue;
        const trouble = RUN_TROUBLE[run.status];
        if (trouble) {
          // Runs that fail one after another are one event, when the failing started: each later
          // failure would otherwise line up with whatever else moved on its day.
          if (finished[i - 1]?.run.status === run.status) continue;
          let streak = 1;
          while (finished[i + streak]?.run.status === run.status) streak++;
          const why = run.error ? `: ${run.error.slice(0, PLATFORM_EVENT_LIMITS.errorText)}` : '';
          const title = streak > 1 ? `Crawl job "${job.jobName}" ${trouble.streak} (${streak} in a row)${why}` : `Crawl job "${job.jobName}" ${trouble.one}${why}`;
          out.push({ id: `crawl-run:${run.executionId}`, at, kind: trouble.kind, title, ref: crawlJobRef(job.jobId, run.executionId), source: 'platform' });
        } else if (run.status === 'COMPLETED' && run.changes?.changed > 0) {
          const n = run.changes.changed;
          const first = run.changedItems[0];
          const title = `Crawl job "${job.jobName}": ${n === 1 ? 'a page changed' : `${n} pages changed`}${first ? `, ${changeNote(first)}${n > 1 ? ' and more' : ''}` : ''}`;
          out.push({ id: `crawl-change:${run.executionId}`, at, kind: 'page_changed', title, ref: crawlJobRef(job.jobId, run.executionId), source: 'platform' });
          if (run.selfHealingOccurred) out.push({ id: `crawl-heal:${run.executionId}`, at, kind: 'selector_healed', title: `Crawl job "${job.jobName}" healed its selectors`, ref: crawlJobRef(job.jobId), source: 'platform' });
        } else if (run.selfHealingOccurred) {
          out.push({ id: `crawl-heal:${run.executionId}`, at, kind: 'selector_healed', title: `Crawl job "${job.jobName}" healed its selectors`, ref: crawlJobRef(job.jobId), source: 'platform' });
        }
      }
    }
    return out;
  }

  return {
    /** The platform's events in [from, to) for the caller's tenant and sites, oldest first. */
    async between(caller: Caller, from: number, to: number): Promise<TimelineEvent[]> {
      const headers = await deps.headers(caller);
      const [content, crawl] = await Promise.all([
        refusedAsEmpty('content', () => contentEvents(caller, headers, from, to)),
        refusedAsEmpty('crawl', () => crawlEvents(headers, from, to)),
      ]);
      return [...content, ...crawl].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
    },
  };
}

export type PlatformEvents = ReturnType<typeof platformEvents>;
