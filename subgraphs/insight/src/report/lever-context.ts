import type { ExpectedImpact } from '../domain/action.js';
import type { ProposalFinding } from '../domain/report.js';

/** What a proposal for undoing a change needs to know about the move it would undo. */
export interface LeverContext {
  /** The analysed metric. */
  subject: string;
  /** Its change over the period (the bad move), in its unit. */
  change: number;
  /** The day the move started. */
  changeDay: string;
  /** Days the impact is measured over (the analysed period's length). */
  days: number;
  unit?: string | undefined;
  /** The report finding the proposal follows from. */
  finding?: ProposalFinding | undefined;
}

/**
 * The impact of undoing what may have caused a move: if it was the cause, undoing it wins the
 * move back (p90); if it was not, nothing (p10); the midpoint between them is p50. Nothing
 * finer can be said from one coincidence in time, and the method says so.
 */
export function recoveryImpact(ctx: LeverContext, what: string, undoing: string): ExpectedImpact {
  const back = -ctx.change;
  return {
    metric: ctx.subject,
    horizon: ctx.days,
    horizonDays: ctx.days,
    p10: Math.min(0, back),
    p50: back / 2,
    p90: Math.max(0, back),
    method: `if ${what} caused the move, ${undoing} wins the move back (p90); if it did not, nothing (p10); the midpoint in between, over a period like the analysed one`,
    ...(ctx.unit ? { unit: ctx.unit } : {}),
  };
}
