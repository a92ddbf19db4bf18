import { parseEventRef } from '../domain/event-ref.js';
import type { ContentTarget, Targets } from '../domain/event-target.js';
import type { ProposalFinding, ProposedAction } from '../domain/report.js';
import type { Finding as EngineFinding } from '../engine/finding.js';
import { contentLever, publishedWithin, type SuspectVersion } from './content-proposals.js';
import { selectorLever, triggerLever } from './crawl-proposals.js';
import { tenantEventLever } from './tenant-event-proposals.js';
import type { LeverContext } from './lever-context.js';

/**
 * Levers the platform owns behind a bad move, decided from the kinds of the events on the day it
 * started and from the pages its causes name, never from metric names:
 * - `content_published` (a content ref) → the content version is a suspect (content-proposals.ts);
 * - `selector_healed` / `crawl_failed` (a crawl-job ref) → change the selectors back / run again
 *   (crawl-proposals.ts);
 * - a cause whose label value is the slug of a page that went live in the compared weeks → that
 *   version is a suspect too;
 * - a tenant's own event with a ref to act on (a deploy, a price change), when what the platform
 *   measures (formula factors, drivers; a segment only says where) leaves most of the move
 *   unexplained → an EXTERNAL hand-off to review and undo it (tenant-event-proposals.ts).
 * When the declared drivers explain the move (the primary view, with under a third left), an
 * event on its day is a coincidence to name, not a lever to pull.
 */

export interface EventLevers {
  actions: ProposedAction[];
  /** Why a lever in view was not proposed, one sentence each. */
  reasons: string[];
}

export interface EventLeverInput {
  finding: EngineFinding;
  targets?: Targets | undefined;
  ctx: Omit<LeverContext, 'finding' | 'changeDay'>;
  /** The finding an event-linked proposal cites (when the move started), and one naming a cause. */
  cite: (cause?: string) => ProposalFinding | undefined;
}

const pageOf = (value: string) => value.trim().replace(/^\/+|\/+$/g, '').toLowerCase();

export function eventLevers({ finding: f, targets, ctx, cite }: EventLeverInput): EventLevers {
  const out: EventLevers = { actions: [], reasons: [] };
  const cp = f.changePoint;
  if (!cp || !f.premise) return out;
  const aligned = f.events.filter((e) => e.changePoint === cp.day);
  if (f.primaryView === 'driver' && Math.abs(f.remainder.share) < 1 / 3) {
    if (aligned.length) out.reasons.push(`The declared drivers explain the move, so the events on ${cp.day} are named, not acted on.`);
    return out;
  }
  const context: LeverContext = { ...ctx, changeDay: cp.day, finding: cite() };
  // A tenant's own change is suspected only when what the platform measures leaves most of the
  // move unexplained. Segments say where a move happened, not why: a fall concentrated in one
  // depot on the day of a deploy there leaves the deploy a suspect.
  const explained = f.primaryView !== 'segment' && f.causes.length > 0 && Math.abs(f.remainder.share) < 1 / 3;
  const contents = new Map((targets?.contents ?? []).map((t) => [t.contentId, t]));
  const jobs = new Map((targets?.crawlJobs ?? []).map((t) => [t.jobId, t]));
  const suspects = new Map<string, { s: SuspectVersion; ctx: LeverContext }>();
  for (const { event } of aligned) {
    const ref = parseEventRef(event.ref);
    const at = typeof event.at === 'number' ? event.at : Date.parse(event.at);
    if (event.kind === 'content_published' && ref?.kind === 'content') {
      if (!suspects.has(ref.contentId)) suspects.set(ref.contentId, { s: { siteKey: ref.siteKey, contentId: ref.contentId, version: ref.version, how: 'published on the day the move started' }, ctx: context });
    } else if (event.kind === 'selector_healed' && ref?.kind === 'crawl-job') {
      push(out, selectorLever(ref.jobId, at, jobs.get(ref.jobId), context));
    } else if (event.kind === 'crawl_failed' && ref?.kind === 'crawl-job') {
      push(out, triggerLever(ref.jobId, ref.executionId, at, jobs.get(ref.jobId), context));
    } else if (!ref && !explained) {
      const action = tenantEventLever(event, context);
      if (action) out.actions.push(action);
    }
  }
  // A page the causes name, changed in the compared weeks.
  if (f.periods) {
    const bySlug = new Map<string, ContentTarget>();
    for (const t of contents.values()) bySlug.set(pageOf(t.slug), t);
    for (const cause of f.causes.filter((x) => x.labels && Math.sign(x.contribution) === Math.sign(f.premise!.change))) {
      for (const value of Object.values(cause.labels!)) {
        const target = bySlug.get(pageOf(value));
        const live = target && publishedWithin(target, f.periods.comparison.from, f.periods.period.to);
        if (!target || !live || suspects.has(target.contentId)) continue;
        suspects.set(target.contentId, { s: { siteKey: target.siteKey, contentId: target.contentId, version: live.version, how: `published on ${live.publishedAt!.slice(0, 10)} on the page the cause ${cause.name} names` }, ctx: { ...context, finding: cite(cause.name) ?? context.finding } });
      }
    }
  }
  for (const { s, ctx: c } of suspects.values()) push(out, contentLever(s, contents.get(s.contentId), c));
  return out;
}

function push(out: EventLevers, lever: { action?: ProposedAction; reason?: string }): void {
  if (lever.action) out.actions.push(lever.action);
  else if (lever.reason) out.reasons.push(lever.reason);
}
