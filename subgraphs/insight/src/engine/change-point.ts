/**
 * When a series changed level: Bayesian online change-point detection (Adams and MacKay 2007,
 * augurs' Normal-Gamma detector) on the daily series with its weekly pattern removed, then
 * each detected index refined to the day that best splits the two weeks either side (the
 * detector reports a run's start a day early or late), and kept when the level shift is clear
 * (|t| ≥ 3 between the 14 days before and after).
 */
import { readFileSync } from 'node:fs';
import { ChangepointDetector, initSync } from '@bsull/augurs/changepoint';
import { addDays } from './days.js';

export interface ChangePoint {
  /** First day of the new level. */
  day: string;
  /** Relative change of the level, e.g. −0.2 for a 20 % fall. */
  shift: number;
  /** t statistic of the shift between the 14 days before and after. */
  strength: number;
}

/** Days either side compared when refining and scoring a change point. */
const SIDE = 14;
const MIN_STRENGTH = 3;

let loaded = false;
function load(): void {
  if (loaded) return;
  initSync({ module: readFileSync(new URL('changepoint_bg.wasm', import.meta.resolve('@bsull/augurs/changepoint'))) });
  loaded = true;
}

/** Log values (when all positive) minus each weekday's mean, scaled by the day-to-day noise. */
function standardise(values: readonly number[], firstWeekday: number): { z: number[]; logged: boolean } {
  const logged = values.every((v) => v > 0);
  const x = values.map((v) => (logged ? Math.log(v) : v));
  const sums = new Array<number>(7).fill(0);
  const counts = new Array<number>(7).fill(0);
  x.forEach((v, i) => {
    sums[(firstWeekday + i) % 7]! += v;
    counts[(firstWeekday + i) % 7]!++;
  });
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  const d = x.map((v, i) => v - sums[(firstWeekday + i) % 7]! / counts[(firstWeekday + i) % 7]! + mean);
  const diffs = d.slice(1).map((v, i) => Math.abs(v - d[i]!)).sort((a, b) => a - b);
  const mad = diffs.length ? diffs[Math.floor(diffs.length / 2)]! : 0;
  const noise = mad > 0 ? (mad * 1.4826) / Math.SQRT2 : 1;
  return { z: d.map((v) => (v - mean) / noise), logged };
}

function split(z: readonly number[], k: number): { diff: number; t: number } {
  const a = z.slice(Math.max(0, k - SIDE), k);
  const b = z.slice(k, k + SIDE);
  if (a.length < 3 || b.length < 1) return { diff: 0, t: 0 };
  const ma = a.reduce((s, v) => s + v, 0) / a.length;
  const mb = b.reduce((s, v) => s + v, 0) / b.length;
  const va = a.reduce((s, v) => s + (v - ma) ** 2, 0) / (a.length - 1);
  const vb = b.length > 1 ? b.reduce((s, v) => s + (v - mb) ** 2, 0) / (b.length - 1) : va;
  const se = Math.sqrt(va / a.length + vb / b.length) || 1e-9;
  return { diff: mb - ma, t: (mb - ma) / se };
}

/**
 * Change points of a daily series (sorted, contiguous days) whose new level starts within
 * [from, to].
 */
export function detectChangePoints(daily: readonly { day: string; value: number }[], from: string, to: string): ChangePoint[] {
  const window = daily.filter((p) => p.day >= addDays(from, -2 * SIDE) && p.day <= to);
  if (window.length < 2 * 7) return [];
  load();
  const first = new Date(`${window[0]!.day}T00:00:00Z`).getUTCDay();
  const { z, logged } = standardise(window.map((p) => p.value), first);
  const detector = ChangepointDetector.normalGamma({ hazardLambda: 250 });
  let indices: number[];
  try {
    indices = [...detector.detectChangepoints(Float64Array.from(z)).indices];
  } finally {
    detector.free();
  }
  const found = new Map<number, { diff: number; t: number }>();
  for (const i of indices) {
    let best = -1;
    let bestT = 0;
    for (let k = Math.max(3, i - 3); k <= Math.min(window.length - 1, i + 3); k++) {
      const s = split(z, k);
      if (Math.abs(s.t) > Math.abs(bestT)) {
        best = k;
        bestT = s.t;
      }
    }
    if (best >= 0 && Math.abs(bestT) >= MIN_STRENGTH && !found.has(best)) found.set(best, split(z, best));
  }
  const out: ChangePoint[] = [];
  for (const [k, s] of found) {
    const day = window[k]!.day;
    if (day < from || day > to) continue;
    const before = window.slice(Math.max(0, k - SIDE), k).map((p) => p.value);
    const after = window.slice(k, k + SIDE).map((p) => p.value);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const shift = logged ? mean(after) / mean(before) - 1 : (mean(after) - mean(before)) / Math.abs(mean(before) || 1);
    out.push({ day, shift, strength: Math.abs(s.t) });
  }
  return out.sort((a, b) => (a.day < b.day ? -1 : 1));
}

/** The strongest change point in [from, to], in `direction` when one is given. */
export function changeStart(daily: readonly { day: string; value: number }[], from: string, to: string, direction?: 'up' | 'down'): ChangePoint | undefined {
  const points = detectChangePoints(daily, from, to).filter((c) => !direction || (direction === 'up' ? c.shift > 0 : c.shift < 0));
  return points.sort((a, b) => b.strength - a.strength)[0];
}
