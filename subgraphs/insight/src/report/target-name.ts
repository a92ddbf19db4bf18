import { contentPage } from '../domain/event-target.js';
import type { ProposedAction } from '../domain/report.js';
import { segmentName } from '../engine/causes.js';
import type { ToolOutcome } from './composed.js';

/** What the analysis read about the targets it may propose changes to, by id. */
export interface KnownTargets {
  /** Content id → the page as the report names it, with its live title (else its latest). */
  contents: ReadonlyMap<string, { title: string; slug: string; locale?: string | undefined; siteKey: string }>;
  /** Crawl job id → its name. */
  crawlJobs: ReadonlyMap<string, string>;
}

/**
 * A proposal's target in the words the report uses for it, for a person to read where the
 * target id is for machines: an external lever as the analysis names it (`ad_spend (channel=search)`,
 * which the catalog's words then turn into "Ad spend (search ads)", compose-report.ts), a change
 * the tenant made by its event's title, a content page by its title and the page (`contentPage`),
 * a crawl job by its name, an agent by its code. Undefined when the analysis read nothing that
 * names it (a page or job it did not read): the id is all there is then.
 */
export function targetNameOf(action: Pick<ProposedAction, 'targetType' | 'targetId' | 'params'>, known: KnownTargets): string | undefined {
  switch (action.targetType) {
    case 'External': {
      const change = action.params.change as { metric?: unknown; labels?: unknown; revert?: { title?: unknown; ref?: unknown } } | undefined;
      if (typeof change?.revert?.title === 'string') return `“${change.revert.title}” (${String(change.revert.ref ?? action.targetId)})`;
      if (typeof change?.metric !== 'string') return undefined;
      const labels = change.labels && typeof change.labels === 'object' ? (change.labels as Record<string, string>) : {};
      return Object.keys(labels).length ? `${change.metric} (${segmentName(labels)})` : change.metric;
    }
    case 'Content': {
      const page = known.contents.get(action.targetId);
      return page ? `“${page.title}”, page ${contentPage(page)}` : undefined;
    }
    case 'CrawlJob': {
      const name = known.crawlJobs.get(action.targetId);
      return name === undefined ? undefined : `crawl job "${name}"`;
    }
    case 'Agent':
      return `agent ${action.targetId}`;
  }
}

/** The pages and crawl jobs the tools read, by id, so each proposal can name its target. */
export function knownTargets(outcomes: readonly ToolOutcome[]): KnownTargets {
  const contents = new Map<string, { title: string; slug: string; locale?: string | undefined; siteKey: string }>();
  const crawlJobs = new Map<string, string>();
  for (const o of outcomes) {
    if (o.tool === 'analyse_change') {
      for (const t of o.data.finding.targets?.contents ?? []) {
        const shown = t.versions.find((v) => v.version === (t.publishedVersion ?? t.latestVersion)) ?? t.versions.find((v) => v.version === t.latestVersion);
        if (shown) contents.set(t.contentId, { title: shown.title, slug: t.slug, locale: t.locale, siteKey: t.siteKey });
      }
      for (const j of o.data.finding.targets?.crawlJobs ?? []) crawlJobs.set(j.jobId, j.jobName);
    } else if (o.tool === 'read_content') {
      for (const item of o.data.contents) if (!contents.has(item.contentId)) contents.set(item.contentId, { title: item.title, slug: item.slug, locale: item.locale, siteKey: item.siteKey });
    } else if (o.tool === 'search_knowledge') {
      for (const j of o.data.crawlJobs ?? []) crawlJobs.set(j.jobId, j.jobName);
    }
  }
  return { contents, crawlJobs };
}
