import { parseEventRef } from '../domain/event-ref.js';
import type { ProposedAction } from '../domain/report.js';
import type { EngineEvent } from '../engine/events.js';
import { recoveryImpact, type LeverContext } from './lever-context.js';

/**
 * A change the tenant made itself on the day a bad move started (an event it posted with a `ref`
 * to act on: a deploy, a price change, a campaign) is a lever the platform does not own: it is
 * handed off as an EXTERNAL action, for the operator to review and undo. Its impact is the
 * recovery of a suspect (all of the move back if it was the cause, nothing if it was not), as
 * for a content version. Platform refs (content versions, crawl jobs) have levers of their own;
 * an event without a ref names nothing to act on.
 */
export function tenantEventLever(event: EngineEvent, ctx: LeverContext): ProposedAction | undefined {
  const ref = event.ref?.trim();
  if (!ref || parseEventRef(ref)) return undefined;
  const at = new Date(typeof event.at === 'number' ? event.at : Date.parse(event.at)).toISOString();
  return {
    kind: 'EXTERNAL',
    title: `Review and undo “${event.title}” (${ref})`,
    rationale: `“${event.title}” (${event.kind}) happened on the day ${ctx.subject} started to move (${ctx.changeDay}) and nothing the platform measures explains the move; if that change was the cause, undoing it wins the move back.`,
    targetType: 'External',
    targetId: ref,
    params: {
      lever: ref.slice(0, 200),
      change: { revert: { ref, kind: event.kind, title: event.title, at } },
      summary: `Review “${event.title}” (${event.kind}, ${ref}, ${at.slice(0, 10)}): ${ctx.subject} started to move that day; undo it if it caused the move.`,
    },
    expectedImpact: recoveryImpact(ctx, `“${event.title}”`, 'undoing it'),
    undoable: false,
    undo: 'Handed off to the operator: the platform cannot undo what the operator does with it.',
    ...(ctx.finding ? { finding: ctx.finding } : {}),
  };
}
