import type { CrawlJobTarget } from '../domain/event-target.js';
import type { ProposedAction } from '../domain/report.js';
import { recoveryImpact, type LeverContext } from './lever-context.js';

/**
 * A crawl job's events on the day a move started: a run that healed its selectors → change them
 * back to the ones before the healing (CRAWL_SELECTOR_CHANGE), when the healed set is still the
 * job's; a run that failed → run the job again (CRAWL_TRIGGER), unless a later run completed.
 * Each answers an action, or why there is none.
 */
export interface CrawlLever {
  action?: ProposedAction;
  reason?: string;
}

/** A healed selector set is adopted when its run ends: within this of the event. */
const HEAL_MATCH_MS = 36 * 3_600_000;

export function selectorLever(jobId: string, eventAt: number, target: CrawlJobTarget | undefined, ctx: LeverContext): CrawlLever {
  if (!target) return { reason: `The selectors of crawl job ${jobId} could not be read, so changing them back is not proposed.` };
  const job = `crawl job "${target.jobName}"`;
  if (target.status === 'DELETED') return { reason: `The ${job} is deleted; there are no selectors to change back.` };
  const healed = target.selectorHistory
    .filter((v) => v.reason.startsWith('healed') && Math.abs(Date.parse(v.createdAt) - eventAt) <= HEAL_MATCH_MS)
    .sort((a, b) => Math.abs(Date.parse(a.createdAt) - eventAt) - Math.abs(Date.parse(b.createdAt) - eventAt))[0];
  if (!healed) return { reason: `No healed selector version of the ${job} matches the healing on ${ctx.changeDay}.` };
  const before = target.selectorHistory.find((v) => v.version === healed.version - 1);
  if (!before) return { reason: `The ${job} keeps no selectors from before its healing to change back to.` };
  if (target.selectorVersion !== healed.version) return { reason: `The ${job}'s selectors changed again since the healing (version ${target.selectorVersion} now), so changing them back is not proposed.` };
  const names = Object.keys(before.selectors).filter((k) => before.selectors[k] !== healed.selectors[k]);
  return {
    action: {
      kind: 'CRAWL_SELECTOR_CHANGE',
      title: `Change the selectors of ${job} back to version ${before.version} (${names.join(', ') || 'as before'})`,
      rationale: `A run of the ${job} healed its selectors on the day ${ctx.subject} started to move (${ctx.changeDay}); if the healed selectors match the wrong elements, the selectors before the healing bring the items back.`,
      targetType: 'CrawlJob',
      targetId: target.jobId,
      params: { selectors: before.selectors, restores: before.version, replaces: healed.version, healedSelectors: healed.selectors },
      expectedImpact: recoveryImpact(ctx, 'the healing', 'changing the selectors back'),
      undoable: true,
      undo: `Change the selectors to the healed ones again (params.healedSelectors) with another CRAWL_SELECTOR_CHANGE.`,
      ...(ctx.finding ? { finding: ctx.finding } : {}),
    },
  };
}

export function triggerLever(jobId: string, executionId: string | undefined, eventAt: number, target: CrawlJobTarget | undefined, ctx: LeverContext): CrawlLever {
  const job = target ? `crawl job "${target.jobName}"` : `crawl job ${jobId}`;
  if (target?.status === 'DELETED') return { reason: `The ${job} is deleted; there is nothing to run again.` };
  const last = target?.lastRun;
  if (last?.status === 'COMPLETED' && last.finishedAt && Date.parse(last.finishedAt) > eventAt) {
    return { reason: `A later run of the ${job} completed (${last.finishedAt.slice(0, 10)}), so running it again is not proposed.` };
  }
  return {
    action: {
      kind: 'CRAWL_TRIGGER',
      title: `Run ${job} again`,
      rationale: `A run of the ${job} failed on the day ${ctx.subject} started to move (${ctx.changeDay}) and no run has completed since; running it now brings in what the failed run missed.`,
      targetType: 'CrawlJob',
      targetId: jobId,
      params: executionId ? { failedExecution: executionId } : {},
      expectedImpact: recoveryImpact(ctx, 'the failed run', 'a run that completes'),
      ...(ctx.finding ? { finding: ctx.finding } : {}),
    },
  };
}
