/**
 * What nothing explains: the total change minus every contribution attributed in one
 * decomposition. Always stated, even when it is 0.
 */

export interface Remainder {
  value: number;
  /** value ÷ change (0 when the change is 0). */
  share: number;
  /** A rest under {@link FOLDED_SHARE} of the change, spread over the causes in proportion to their size (so a cause reads 100 %, not 101 % beside −1 %). */
  folded?: number;
}

/** A rest smaller than this share of the change is within what the attribution can tell apart, and is spread over the causes. */
export const FOLDED_SHARE = 0.02;

/**
 * part ÷ whole, and 0 when the whole is 0: every share in a Finding is a finite number, so it
 * serialises to JSON and GraphQL `Float` (which refuse NaN).
 */
export function shareOf(part: number, whole: number): number {
  return whole !== 0 ? part / whole : 0;
}

export function remainderOf(change: number, contributions: readonly number[]): Remainder {
  const value = change - contributions.reduce((a, b) => a + b, 0);
  return { value, share: shareOf(value, change) };
}
