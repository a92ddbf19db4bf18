/**
 * Generated daily series with a known truth, for the engine's tests and benchmark: a level,
 * a linear trend, a weekly season and seeded Gaussian noise, all multiplicative, and a hook to
 * plant a cause (a drop from some day, in some segment).
 */
import { seededRandom } from '@svc/kit/random';
import { normal } from './quantiles.js';
import { addDays, timeOf } from './days.js';
import type { SeriesData, SeriesPoint } from './series.js';

export interface Shape {
  /** First day, ISO date. */
  start: string;
  days: number;
  level: number;
  /** Relative growth per day, e.g. 0.001. Default 0.0005. */
  trend?: number;
  /** Amplitude of the weekly season, e.g. 0.2 (weekends lower). Default 0.15. */
  weekly?: number;
  /** Relative standard deviation of the noise. Default 0.03. */
  noise?: number;
  seed: number;
}

/** Multiplies a day's value, to plant a cause; 1 leaves it alone. */
export type Plant = (day: string, index: number) => number;

export function generateDaily(shape: Shape, plant: Plant = () => 1): SeriesPoint[] {
  const random = seededRandom(shape.seed);
  const trend = shape.trend ?? 0.0005;
  const weekly = shape.weekly ?? 0.15;
  const noise = shape.noise ?? 0.03;
  const out: SeriesPoint[] = [];
  for (let i = 0; i < shape.days; i++) {
    const day = addDays(shape.start, i);
    const weekday = new Date(timeOf(day)).getUTCDay();
    const season = 1 + weekly * Math.cos((2 * Math.PI * (weekday - 3)) / 7);
    const v = shape.level * (1 + trend * i) * season * Math.max(0.05, 1 + noise * normal(random)) * plant(day, i);
    out.push({ t: timeOf(day), value: v });
  }
  return out;
}

/** Every combination of the dimensions' values. */
export function combinations(dimensions: Readonly<Record<string, readonly string[]>>): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const [d, values] of Object.entries(dimensions)) out = out.flatMap((c) => values.map((v) => ({ ...c, [d]: v })));
  return out;
}

/**
 * One series per combination of label values, each with a random weight (0.5–1.5 of an equal
 * share of `shape.level`) and its own noise; `plant` sees the leaf's labels.
 */
export function generateLeaves(name: string, dimensions: Readonly<Record<string, readonly string[]>>, shape: Shape, plant: (labels: Record<string, string>, day: string) => number = () => 1): SeriesData[] {
  const leaves = combinations(dimensions);
  const random = seededRandom(shape.seed);
  return leaves.map((labels, k) => ({
    name,
    labels,
    points: generateDaily({ ...shape, level: (shape.level / leaves.length) * (0.5 + random()), seed: shape.seed * 7919 + k }, (day) => plant(labels, day)),
  }));
}

/** Adds leaves day by day into one unlabelled series. */
export function totalOf(name: string, leaves: readonly SeriesData[]): SeriesData {
  const sums = new Map<number, number>();
  for (const l of leaves) for (const p of l.points) sums.set(p.t, (sums.get(p.t) ?? 0) + p.value);
  return { name, labels: {}, points: [...sums].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({ t, value })) };
}
