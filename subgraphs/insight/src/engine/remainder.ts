/**
 * What nothing explains: the total change minus every contribution attributed in one
 * decomposition. Always stated, even when it is 0.
 */

export interface Remainder {
  value: number;
  /** value ÷ change (NaN when the change is 0). */
  share: number;
}

export function remainderOf(change: number, contributions: readonly number[]): Remainder {
  const value = change - contributions.reduce((a, b) => a + b, 0);
  return { value, share: change !== 0 ? value / change : Number.NaN };
}
