import type { Point } from '../domain/metric.js';

export interface Elasticity {
  /** % change of the target per 1% change of the driver. */
  value: number;
  /** Standard error of `value`. */
  standardError: number;
  /** Pairs the estimate rests on. */
  observations: number;
}

/**
 * Estimates the elasticity of `target` with respect to `driver` from their history: an
 * ordinary least squares slope of log-changes over `lag` steps (week over week for daily
 * data), which removes the weekly season and most of the trend that both series share, so
 * what is left is how the target moved when the driver moved. Returns undefined when fewer
 * than 20 usable pairs exist or the driver never changed.
 */
export function estimateElasticity(target: readonly Point[], driver: readonly Point[], lag = 7): Elasticity | undefined {
  const byTime = new Map(driver.map((p) => [p.t, p.value]));
  const t = target.filter((p) => byTime.has(p.t));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = lag; i < t.length; i++) {
    const y0 = t[i - lag]!.value;
    const y1 = t[i]!.value;
    const x0 = byTime.get(t[i - lag]!.t)!;
    const x1 = byTime.get(t[i]!.t)!;
    if (y0 > 0 && y1 > 0 && x0 > 0 && x1 > 0) {
      xs.push(Math.log(x1 / x0));
      ys.push(Math.log(y1 / y0));
    }
  }
  const n = xs.length;
  if (n < 20) return undefined;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ys[i]! - my - slope * (xs[i]! - mx)) ** 2;
  return { value: slope, standardError: Math.sqrt(sse / (n - 2) / sxx), observations: n };
}

/**
 * The 95 % interval of an estimated elasticity (value ± 1.96 standard errors), and whether it
 * holds zero: then the history cannot tell its effect from none ("no reliable relation"), and
 * nothing is stated or proposed from it. A given elasticity (standard error 0) is taken as it is.
 */
export function interval95(e: { value: number; standardError: number }): { low: number; high: number; holdsZero: boolean } {
  const low = e.value - 1.96 * e.standardError;
  const high = e.value + 1.96 * e.standardError;
  return { low, high, holdsZero: low <= 0 && high >= 0 };
}
