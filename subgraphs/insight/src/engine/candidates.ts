/**
 * Other series that moved when the subject did, though nobody declared them related: a change
 * point within two days of the subject's, or week-over-week log changes that follow the
 * subject's closely (|r| ≥ 0.8 at some lag of 0–7 days, over the 8 weeks up to the period's
 * end). Offered as "moved at the same time" with low confidence, never as causes.
 */
import { type ChangePoint, detectChangePoints } from './change-point.js';
import { addDays, daysBetween } from './days.js';

export interface Candidate {
  metric: string;
  /** How it lined up. */
  reason: 'change-point' | 'lagged-correlation';
  /** Its change point (for `change-point`). */
  day?: string;
  /** Its level shift at that change point. */
  shift?: number;
  /** Days the candidate leads the subject by (for `lagged-correlation`). */
  lagDays?: number;
  correlation?: number;
  confidence: 'low';
  wording: 'moved at the same time';
}

export const CANDIDATES = { changePointDays: 2, minCorrelation: 0.8, window: 56, maxLag: 7, minPairs: 28 } as const;

type DailyRows = readonly { day: string; value: number }[];

function weekOverWeek(rows: DailyRows): Map<string, number> {
  const byDay = new Map(rows.map((r) => [r.day, r.value]));
  const out = new Map<string, number>();
  for (const r of rows) {
    const prior = byDay.get(addDays(r.day, -7));
    if (prior && prior > 0 && r.value > 0) out.set(r.day, Math.log(r.value / prior));
  }
  return out;
}

function pearson(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/** The strongest lagged correlation of week-over-week log changes, over the window ending at `to`. */
export function laggedCorrelation(subject: DailyRows, other: DailyRows, to: string): { lagDays: number; correlation: number } | undefined {
  const ys = weekOverWeek(subject);
  const xs = weekOverWeek(other);
  let best: { lagDays: number; correlation: number } | undefined;
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
    const r = pearson(a, b);
    if (!best || Math.abs(r) > Math.abs(best.correlation)) best = { lagDays: lag, correlation: r };
  }
  return best;
}

/**
 * Candidates among `others` for a subject whose change point is `subjectChange` (if any), for
 * the period ending `to` and starting `from`.
 */
export function findCandidates(subject: DailyRows, subjectChange: ChangePoint | undefined, others: readonly { name: string; daily: DailyRows }[], from: string, to: string): Candidate[] {
  const out: Candidate[] = [];
  for (const o of others) {
    if (subjectChange) {
      const near = detectChangePoints(o.daily, addDays(subjectChange.day, -CANDIDATES.changePointDays), addDays(subjectChange.day, CANDIDATES.changePointDays))
        .sort((a, b) => Math.abs(daysBetween(subjectChange.day, a.day)) - Math.abs(daysBetween(subjectChange.day, b.day)))[0];
      if (near) {
        out.push({ metric: o.name, reason: 'change-point', day: near.day, shift: near.shift, confidence: 'low', wording: 'moved at the same time' });
        continue;
      }
    }
    const lc = laggedCorrelation(subject, o.daily, to);
    if (lc && Math.abs(lc.correlation) >= CANDIDATES.minCorrelation && from <= to) {
      out.push({ metric: o.name, reason: 'lagged-correlation', lagDays: lc.lagDays, correlation: lc.correlation, confidence: 'low', wording: 'moved at the same time' });
    }
  }
  return out;
}
