/**
 * A declared driver's share of a change: the driver's log change between the lagged periods
 * times the subject's elasticity to it, in the subject's unit with the same log-mean weight as
 * the formula split, C = L(Y₁, Y₀)·e·ln(D₁/D₀). The elasticity is the declared one, or the
 * slope of a log-log fit on history: week-over-week log changes of the subject against those of
 * the driver `lag` days earlier (differencing removes the weekly season and most of the shared
 * trend), with a p10–p90 interval from a seeded bootstrap over the pairs.
 */
import type { Unit } from './catalog.js';
import { seededRandom } from '@svc/kit/random';
import { quantile } from './quantiles.js';
import { addDays } from './days.js';
import { logMean } from './formula-attribution.js';
import { shareOf } from './remainder.js';

export interface ElasticityEstimate {
  value: number;
  p10: number;
  p90: number;
  /** The 95 % interval (bootstrap 2.5th and 97.5th percentiles; the value itself when declared). */
  low95: number;
  high95: number;
  /** Pairs the fit rests on (0 for a declared elasticity). */
  observations: number;
  source: 'declared' | 'estimated';
}

export interface DriverAttribution {
  metric: string;
  labels: Record<string, string>;
  lagDays: number;
  elasticity: ElasticityEstimate;
  /** The driver over the comparison and the period, each moved back by the lag. */
  driverBefore: number;
  driverAfter: number;
  /** In the subject's unit, with its p10–p90 from the elasticity's interval. */
  contribution: number;
  contributionP10: number;
  contributionP90: number;
  /** contribution ÷ the subject's change. */
  share: number;
  /** The driver's unit, and whether its values add up over days (so its change over the period is money or a count spent). */
  unit?: Unit;
  additive?: boolean;
}

const MIN_PAIRS = 20;
const BOOTSTRAP_RUNS = 400;

function slope(xs: readonly number[], ys: readonly number[], pick?: readonly number[]): number {
  const idx = pick ?? xs.map((_, i) => i);
  let mx = 0;
  let my = 0;
  for (const i of idx) {
    mx += xs[i]!;
    my += ys[i]!;
  }
  mx /= idx.length;
  my /= idx.length;
  let sxx = 0;
  let sxy = 0;
  for (const i of idx) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  return sxx > 0 ? sxy / sxx : Number.NaN;
}

/**
 * Elasticity of `subject` to `driver` lagged by `lagDays`, from days up to `until` (excluded).
 * Undefined when fewer than 20 usable pairs exist or the driver never moved.
 */
export function estimateLaggedElasticity(subject: ReadonlyMap<string, number>, driver: ReadonlyMap<string, number>, lagDays: number, until: string, seed = 1): ElasticityEstimate | undefined {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [day, y1] of subject) {
    if (day >= until) continue;
    const y0 = subject.get(addDays(day, -7));
    const x1 = driver.get(addDays(day, -lagDays));
    const x0 = driver.get(addDays(day, -lagDays - 7));
    if (y0 && x0 && x1 && y0 > 0 && y1 > 0 && x0 > 0 && x1 > 0) {
      xs.push(Math.log(x1 / x0));
      ys.push(Math.log(y1 / y0));
    }
  }
  if (xs.length < MIN_PAIRS) return undefined;
  const value = slope(xs, ys);
  if (!Number.isFinite(value)) return undefined;
  const random = seededRandom(seed);
  const draws: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RUNS; r++) {
    const pick = Array.from({ length: xs.length }, () => Math.floor(random() * xs.length));
    const b = slope(xs, ys, pick);
    if (Number.isFinite(b)) draws.push(b);
  }
  return { value, p10: quantile(draws, 0.1), p90: quantile(draws, 0.9), low95: quantile(draws, 0.025), high95: quantile(draws, 0.975), observations: xs.length, source: 'estimated' };
}

export function declaredElasticity(value: number): ElasticityEstimate {
  return { value, p10: value, p90: value, low95: value, high95: value, observations: 0, source: 'declared' };
}

/**
 * Whether an elasticity can carry an effect: declared, or estimated with a 95 % interval that
 * excludes zero. One whose interval holds zero is "no reliable relation": the history cannot
 * tell its effect from none, so no effect is stated from it and nothing is proposed.
 */
export function isReliable(e: ElasticityEstimate): boolean {
  return e.source === 'declared' || e.low95 > 0 || e.high95 < 0;
}

/** "no reliable relation" in words: the estimate and its 95 % interval over the pairs it rests on. */
export function unreliableWords(e: ElasticityEstimate): string {
  return `estimated elasticity ${e.value.toFixed(2)}, 95 % interval ${e.low95.toFixed(2)} to ${e.high95.toFixed(2)} over ${e.observations} week-over-week pairs, which holds zero`;
}

/** The driver's contribution to the subject's change. Values must be positive. */
export function attributeDriver(input: {
  metric: string;
  labels?: Record<string, string>;
  lagDays: number;
  elasticity: ElasticityEstimate;
  subjectBefore: number;
  subjectAfter: number;
  driverBefore: number;
  driverAfter: number;
}): DriverAttribution {
  const { subjectBefore: y0, subjectAfter: y1, driverBefore: d0, driverAfter: d1, elasticity } = input;
  if (!(y0 > 0 && y1 > 0 && d0 > 0 && d1 > 0)) throw new RangeError(`a driver's contribution needs positive values; subject ${y0} → ${y1}, ${input.metric} ${d0} → ${d1}`);
  const weight = logMean(y1, y0) * Math.log(d1 / d0);
  const a = weight * elasticity.p10;
  const b = weight * elasticity.p90;
  const contribution = weight * elasticity.value;
  return {
    metric: input.metric,
    labels: { ...(input.labels ?? {}) },
    lagDays: input.lagDays,
    elasticity,
    driverBefore: d0,
    driverAfter: d1,
    contribution,
    contributionP10: Math.min(a, b),
    contributionP90: Math.max(a, b),
    share: shareOf(contribution, y1 - y0),
  };
}
