/**
 * Other series that moved when the subject did, though nobody declared them related: a change
 * point within a day of the subject's (two days apart is not "the same time"), or a lead that
 * survives a test. The lead is looked for in what is left of each series once its level and
 * weekly season are taken out (day-over-day changes of the log values, less each weekday's mean
 * change), so that a season both share cannot pass for one, and in the 8 weeks before the move
 * being explained, so that neither the move nor another series' unrelated shift near it can
 * make one. Each lag of 0–7 days is a test (Spearman's ρ, which gives a single extreme day
 * little weight; Fisher's z with the 1.06 variance correction); a lead is claimed only when it
 * is significant after the Benjamini–Hochberg correction over every metric and lag tested
 * (false discovery rate 5 %) and |ρ| ≥ 0.5. Offered as "moved at the same time" with low
 * confidence, never as causes.
 *
 * A series that shifted within a day of the subject (a total, or one label value of another
 * metric: a part) is kept only when its shift is one the history could turn into the subject's:
 * the subject regressed on it over the weeks before (log week-over-week changes, bootstrap 95 %
 * interval, as for a declared driver), the subject's own shift must lie within what the interval
 * implies for the candidate's shift (a quarter of the shift's size either side for noise), so a
 * series the history shows unrelated, or related the other way, is not offered. The implied
 * effect and its share of the subject's shift are stated when the relation is reliable. With too
 * little history to regress on, a total is kept on its timing alone and a part only when it moved
 * at least as much, relatively, as the subject. A metric with a label value kept is named by
 * that value, not by its total as well.
 */
import { errorFunction, sampleRankCorrelation } from 'simple-statistics';
import { type ChangePoint, detectChangePoints } from './change-point.js';
import { addDays, daysBetween } from './days.js';
import { estimateLaggedElasticity, isReliable } from './driver-attribution.js';

export interface Candidate {
  metric: string;
  /** The label value it is (a part of `metric`, e.g. `{ source: 'search' }`); absent for the metric's total. */
  labels?: Record<string, string>;
  /** How it lined up. */
  reason: 'change-point' | 'lagged-correlation';
  /** Its change point (for `change-point`). */
  day?: string;
  /** Its level shift at that change point. */
  shift?: number;
  /** Days the candidate leads the subject by (for `lagged-correlation`). */
  lagDays?: number;
  /** Spearman's ρ of the day-to-day changes, season removed (for `lagged-correlation`). */
  correlation?: number;
  /** Its p-value adjusted by Benjamini–Hochberg over every test made, and how many tests that was. */
  adjustedP?: number;
  tests?: number;
  /**
   * What the history before implies its shift did to the subject (`change-point`): the subject's
   * relative change at the estimated elasticity, and its share of the subject's own shift; absent
   * when the history could not tell (`history` says why).
   */
  implied?: { change: number; share: number; elasticity: number };
  history?: 'too-short' | 'no-reliable-relation';
  confidence: 'low';
  wording: 'moved at the same time';
}

export const CANDIDATES = { changePointDays: 1, window: 56, maxLag: 7, minPairs: 28, falseDiscoveryRate: 0.05, minCorrelation: 0.5 } as const;

type DailyRows = readonly { day: string; value: number }[];

/** Day-over-day changes of the log values (when all positive), less each weekday's mean change, for the days from `from` to `to`. */
export function innovations(rows: DailyRows, from: string, to: string): Map<string, number> {
  const kept = rows.filter((r) => r.day >= addDays(from, -1) && r.day <= to && Number.isFinite(r.value));
  const logged = kept.length > 0 && kept.every((r) => r.value > 0);
  const level = new Map(kept.map((r) => [r.day, logged ? Math.log(r.value) : r.value]));
  const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
  const sums = new Array<number>(7).fill(0);
  const counts = new Array<number>(7).fill(0);
  const changes = new Map<string, number>();
  for (const [day, v] of level) {
    const prior = level.get(addDays(day, -1));
    if (prior === undefined || day < from) continue;
    changes.set(day, v - prior);
    sums[weekday(day)]! += v - prior;
    counts[weekday(day)]! += 1;
  }
  for (const [day, change] of changes) changes.set(day, change - sums[weekday(day)]! / counts[weekday(day)]!);
  return changes;
}

/** Two-sided p-value of Spearman's ρ over `n` pairs (Fisher's z, variance 1.06/(n − 3)). */
export function rankCorrelationP(rho: number, n: number): number {
  const r = Math.max(-0.999999, Math.min(0.999999, rho));
  const z = Math.abs(Math.atanh(r)) * Math.sqrt((n - 3) / 1.06);
  return Math.max(0, 1 - errorFunction(z / Math.SQRT2));
}

/** Benjamini–Hochberg: each p-value adjusted for the `ps.length` tests made (in the same order). */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let k = m - 1; k >= 0; k--) {
    const [p, i] = order[k]!;
    running = Math.min(running, (p * m) / (k + 1));
    adjusted[i] = running;
  }
  return adjusted;
}

/** One test per lag of 0–7 days: `other`'s changes `lagDays` before the subject's, over the window ending at `to`. */
export function laggedCorrelation(subject: DailyRows, other: DailyRows, to: string): { lagDays: number; correlation: number; p: number; pairs: number }[] {
  const from = addDays(to, -(CANDIDATES.window + CANDIDATES.maxLag));
  const ys = innovations(subject, from, to);
  const xs = innovations(other, from, to);
  const tests: { lagDays: number; correlation: number; p: number; pairs: number }[] = [];
  for (let lag = 0; lag <= CANDIDATES.maxLag; lag++) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < CANDIDATES.window; i++) {
      const day = addDays(to, -i);
      const y = ys.get(day);
      const x = xs.get(addDays(day, -lag));
      if (y !== undefined && x !== undefined) {
        a.push(x);
        b.push(y);
      }
    }
    if (a.length < CANDIDATES.minPairs) continue;
    const rho = sampleRankCorrelation(a, b);
    if (!Number.isFinite(rho)) continue;
    tests.push({ lagDays: lag, correlation: rho, p: rankCorrelationP(rho, a.length), pairs: a.length });
  }
  return tests;
}

/** How far the subject's shift may lie outside the range the interval implies, as a share of its size (day-to-day noise). */
const IMPLIED_SLACK = 0.25;

/**
 * Whether the history could turn `near` (a candidate's change point) into the subject's shift,
 * and what it implies; undefined when it could not.
 */
function judgeShift(subject: ReadonlyMap<string, number>, other: DailyRows, subjectChange: ChangePoint, near: ChangePoint, part: boolean, seed: number): Pick<Candidate, 'implied' | 'history'> | undefined {
  const until = near.day < subjectChange.day ? near.day : subjectChange.day;
  // A candidate that shifted the day before is regressed a day ahead, as a driver declared with that lag would be.
  const lag = Math.max(0, daysBetween(near.day, subjectChange.day));
  const estimate = estimateLaggedElasticity(subject, new Map(other.map((r) => [r.day, r.value])), lag, until, seed);
  const observed = subjectChange.shift;
  if (!estimate || !(near.shift > -1)) {
    // Nothing to regress on: a total on its timing; a part must have moved at least as much as the whole it would explain.
    return !part || Math.abs(near.shift) >= Math.abs(observed) ? { history: 'too-short' } : undefined;
  }
  const implied = (e: number) => (1 + near.shift) ** e - 1;
  const ends = [implied(estimate.low95), implied(estimate.high95)];
  const slack = IMPLIED_SLACK * Math.abs(observed);
  if (observed < Math.min(...ends) - slack || observed > Math.max(...ends) + slack) return undefined;
  if (!isReliable(estimate)) return { history: 'no-reliable-relation' };
  const change = implied(estimate.value);
  return { implied: { change, share: observed !== 0 ? change / observed : 0, elasticity: estimate.value } };
}

/**
 * Candidates among `others` (totals, and parts: one label value of a metric, with `labels`) for
 * a subject whose change point is `subjectChange` (if any), for the period ending `to` and
 * starting `from`. Parts are searched for a shift within a day only (a lead among thousands of
 * label values would be a search for coincidences).
 */
export function findCandidates(subject: DailyRows, subjectChange: ChangePoint | undefined, others: readonly { name: string; labels?: Record<string, string>; daily: DailyRows }[], from: string, to: string, seed = 1): Candidate[] {
  const out: Candidate[] = [];
  const tested: { metric: string; lagDays: number; correlation: number; p: number }[] = [];
  // A lead is looked for in the weeks before the move being explained (before the period, and
  // before the subject's change point when that came first): the move itself, and another
  // series' unrelated shift a few days from it, would otherwise make the lead.
  const before = addDays(subjectChange && subjectChange.day < from ? subjectChange.day : from, -1);
  // The subject by day, once for every candidate's regression.
  const subjectByDay = new Map(subject.map((r) => [r.day, r.value]));
  for (const o of others) {
    const part = o.labels !== undefined && Object.keys(o.labels).length > 0;
    if (subjectChange) {
      // Detected with two days of data after the subject's (a shift needs days on both sides to show), kept within a day.
      const near = detectChangePoints(o.daily, addDays(subjectChange.day, -CANDIDATES.changePointDays), addDays(subjectChange.day, 2))
        .filter((c) => Math.abs(daysBetween(subjectChange.day, c.day)) <= CANDIDATES.changePointDays)
        .sort((a, b) => Math.abs(daysBetween(subjectChange.day, a.day)) - Math.abs(daysBetween(subjectChange.day, b.day)))[0];
      if (near) {
        // Shifted with the subject: offered when the history could turn that shift into the subject's, and no lead is looked for either way.
        const judged = judgeShift(subjectByDay, o.daily, subjectChange, near, part, seed);
        if (judged) out.push({ metric: o.name, ...(part ? { labels: o.labels } : {}), reason: 'change-point', day: near.day, shift: near.shift, ...judged, confidence: 'low', wording: 'moved at the same time' });
        continue;
      }
    }
    if (!part && from <= to) for (const t of laggedCorrelation(subject, o.daily, before)) tested.push({ metric: o.name, ...t });
  }
  // A metric whose label value shifted is named by that value: its total, shifted with it, would say the same less precisely.
  const partOf = new Set(out.filter((c) => c.labels).map((c) => c.metric));
  for (let i = out.length - 1; i >= 0; i--) if (!out[i]!.labels && partOf.has(out[i]!.metric)) out.splice(i, 1);
  // What the history can account for first, then the nearest share to the whole shift, then the larger shift.
  const weight = (c: Candidate) => (c.implied ? Math.abs(1 - c.implied.share) : 10 + (c.history === 'no-reliable-relation' ? 1 : 0) - Math.min(1, Math.abs(c.shift ?? 0)));
  out.sort((a, b) => weight(a) - weight(b));
  // Every metric and lag tested counts: a lead picked from many tries is corrected for them all.
  const adjusted = benjaminiHochberg(tested.map((t) => t.p));
  const best = new Map<string, Candidate>();
  tested.forEach((t, i) => {
    const q = adjusted[i]!;
    if (q > CANDIDATES.falseDiscoveryRate || Math.abs(t.correlation) < CANDIDATES.minCorrelation) return;
    const held = best.get(t.metric);
    if (held && held.adjustedP! <= q) return;
    best.set(t.metric, { metric: t.metric, reason: 'lagged-correlation', lagDays: t.lagDays, correlation: t.correlation, adjustedP: q, tests: tested.length, confidence: 'low', wording: 'moved at the same time' });
  });
  return [...out, ...best.values()];
}
