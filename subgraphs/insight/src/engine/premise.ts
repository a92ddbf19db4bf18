/**
 * Did the metric move the way the question says, and is the move unusual? The actual value is
 * compared with the comparison period (the direction) and with the expected band fitted on the
 * data before the period (how unusual).
 *
 * - `false-premise`: the question claims a direction and the metric moved the other way, or
 *   did not move at all (less than 0.5 %).
 * - `within-normal`: the actual value lies inside the p10–p90 band, or outside it only on the
 *   side opposite to the claim.
 * - `confirmed`: otherwise (outside the band on the claimed side, or no band to judge by).
 */
import type { Band } from './band.js';
import type { Direction } from './intent.js';

export type Verdict = 'confirmed' | 'false-premise' | 'within-normal';

export interface Premise {
  actual: number;
  comparison: number;
  /** actual − comparison. */
  change: number;
  /** change ÷ |comparison|; null when the comparison is 0. */
  relativeChange: number | null;
  observed: Direction | 'flat';
  claimed?: Direction;
  band?: Band;
  /** Where the actual value lies against the band. */
  position?: 'below' | 'inside' | 'above';
  verdict: Verdict;
  /** The same period a year before, when it could be computed. */
  yearBefore?: number;
}

/** Moves smaller than this share of the comparison count as no move. */
export const FLAT = 0.005;

export function judgePremise(input: { actual: number; comparison: number; claimed?: Direction; band?: Band; yearBefore?: number }): Premise {
  const { actual, comparison, claimed, band } = input;
  const change = actual - comparison;
  const relativeChange = comparison !== 0 ? change / Math.abs(comparison) : null;
  const observed: Premise['observed'] = Math.abs(change) <= FLAT * Math.abs(comparison) ? 'flat' : change > 0 ? 'up' : 'down';
  const position = band ? (actual < band.p10 ? 'below' : actual > band.p90 ? 'above' : 'inside') : undefined;
  const unusual = position === 'below' ? 'down' : position === 'above' ? 'up' : undefined;
  let verdict: Verdict;
  if (claimed && observed !== claimed) verdict = 'false-premise';
  else if (band && (!unusual || (claimed && unusual !== claimed))) verdict = 'within-normal';
  else verdict = 'confirmed';
  return {
    actual,
    comparison,
    change,
    relativeChange,
    observed,
    ...(claimed ? { claimed } : {}),
    ...(band ? { band, position } : {}),
    verdict,
    ...(input.yearBefore !== undefined ? { yearBefore: input.yearBefore } : {}),
  };
}
