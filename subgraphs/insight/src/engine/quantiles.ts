/** Small statistics shared by forecasting, backtesting and simulation. */

/** The q-quantile (0..1) of sorted values, by linear interpolation between closest ranks. */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted([...values].sort((a, b) => a - b), q);
}

/** Mean absolute percentage error of `predicted` against `actual` (points with actual 0 are skipped). */
export function mape(actual: readonly number[], predicted: readonly number[]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] === 0) continue;
    sum += Math.abs((actual[i]! - predicted[i]!) / actual[i]!);
    n++;
  }
  return n ? sum / n : Number.NaN;
}

/** Share of `actual` points inside [lower, upper]. */
export function coverage(actual: readonly number[], lower: readonly number[], upper: readonly number[]): number {
  let inside = 0;
  for (let i = 0; i < actual.length; i++) if (actual[i]! >= lower[i]! && actual[i]! <= upper[i]!) inside++;
  return actual.length ? inside / actual.length : Number.NaN;
}

/** A standard normal draw from a uniform source (Box-Muller). */
export function normal(random: () => number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** z of the 90th percentile of the standard normal: p10-p90 is ±Z90 standard deviations. */
export const Z90 = 1.2815515655446004;
