/**
 * The expected range (p10–p90) of a metric over a period, from the data before the period
 * only. The project's forecaster (MSTL + AutoETS, split-conformally calibrated per day) gives
 * each day's band; the period's band adds the days' half-widths in quadrature, widened for the
 * correlation between neighbouring days' errors (lag-1 autocorrelation ρ of week-over-week log
 * changes: × √(1 + (L−1)ρ)), then calibrated on the totals of up to three earlier periods
 * (backtest). With under three weeks of history it falls back to seasonal naive: last week
 * repeated, with the spread of week-over-week changes.
 */
import { forecast } from './forecast.js';
import { quantile } from './quantiles.js';
import { addDays, daysBetween, timeOf } from './days.js';
import type { Period } from './periods.js';

export interface Band {
  p10: number;
  p50: number;
  p90: number;
  /** e.g. `MSTL(7)+AutoETS on 112 days` or `seasonal naive on 14 days`. */
  method: string;
  /** When the history it comes from ends before the period: the day a move started, which the history stops before. */
  historyBefore?: string;
}

/** History the forecaster sees: 16 weeks is plenty for a weekly season and keeps a fit near 25 ms. */
export const BAND_HISTORY_DAYS = 112;
const MIN_FORECAST_DAYS = 21;

export type Combine = 'sum' | 'mean' | 'last';

function combine(values: number[], how: Combine): number {
  if (how === 'last') return values[values.length - 1]!;
  const s = values.reduce((a, b) => a + b, 0);
  return how === 'sum' ? s : s / values.length;
}

/** Lag-1 autocorrelation of week-over-week log changes, clamped to [0, 1]. */
export function errorCorrelation(values: readonly number[]): number {
  const d: number[] = [];
  for (let i = 7; i < values.length; i++) if (values[i]! > 0 && values[i - 7]! > 0) d.push(Math.log(values[i]! / values[i - 7]!));
  if (d.length < 10) return 0;
  const m = d.reduce((a, b) => a + b, 0) / d.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < d.length; i++) {
    den += (d[i]! - m) ** 2;
    if (i > 0) num += (d[i]! - m) * (d[i - 1]! - m);
  }
  return den > 0 ? Math.min(1, Math.max(0, num / den)) : 0;
}

/**
 * A band for several forecast days together: medians combined as the metric combines days,
 * half-widths in quadrature widened by √(1 + (L−1)ρ).
 */
export function combineDays(days: readonly { p10: number; p50: number; p90: number }[], how: Combine, rho: number): { p10: number; p50: number; p90: number } {
  const halves = days.map((p) => (p.p90 - p.p10) / 2);
  const p50 = combine(days.map((p) => p.p50), how);
  const scale = how === 'sum' ? 1 : 1 / days.length;
  const half = how === 'last'
    ? halves[halves.length - 1]!
    : Math.sqrt(halves.reduce((a, h) => a + h * h, 0) * (1 + (days.length - 1) * rho)) * scale;
  return { p10: p50 - half, p50, p90: p50 + half };
}

/** |error| ÷ half-width of a calibrated 80 % band has median 0.6745/1.2816 for normal errors. */
const MEDIAN_RATIO_80 = 0.6745 / 1.2816;
const CALIBRATION_ORIGINS = 3;

function rawTotal(history: readonly { day: string; value: number }[], gap: number, length: number, how: Combine) {
  const f = forecast(history.map((p) => ({ t: timeOf(p.day), value: p.value })), gap + length);
  const days = f.points.slice(gap);
  return { ...combineDays(days, how, errorCorrelation(history.map((p) => p.value))), model: f.model, days };
}

/**
 * How much wider a period total's band must be (≥ 1): the same forecast is made at up to three
 * earlier origins (six for periods up to a week), a period (at least a week) apart, and its errors on the totals that followed are compared
 * with its half-widths. A forecast's days share the error of its level, which adding days in
 * quadrature misses; this measures it.
 */
function totalCalibration(history: readonly { day: string; value: number }[], length: number, how: Combine): number {
  const ratios: number[] = [];
  const origins = length <= 7 ? 2 * CALIBRATION_ORIGINS : CALIBRATION_ORIGINS;
  for (let k = 1; k <= origins; k++) {
    const end = history.length - k * Math.max(length, 7);
    if (end < 8 * 7) break;
    const band = rawTotal(history.slice(Math.max(0, end - BAND_HISTORY_DAYS), end), 0, length, how);
    const actual = combine(history.slice(end, end + length).map((p) => p.value), how);
    const half = (band.p90 - band.p10) / 2;
    if (half > 0) ratios.push(Math.abs(actual - band.p50) / half);
  }
  if (ratios.length < 2) return 1;
  return Math.max(1, quantile(ratios, 0.5) / MEDIAN_RATIO_80);
}

export interface PeriodForecast {
  p10: number;
  p50: number;
  p90: number;
  model: string;
  /** Factor the period's band was widened by after the backtest (≥ 1). */
  calibration: number;
  days: { t: number; p10: number; p50: number; p90: number }[];
}

/**
 * The forecaster's band for the `length` days that start `gap` days after the end of `history`
 * (contiguous daily values), combined into one band for the period and calibrated.
 * `calibrationHistory` (default `history`) is the longer history the backtest may use.
 */
export function forecastPeriod(history: readonly { day: string; value: number }[], gap: number, length: number, how: Combine, calibrationHistory = history): PeriodForecast {
  const raw = rawTotal(history.slice(-BAND_HISTORY_DAYS), gap, length, how);
  const calibration = totalCalibration(calibrationHistory, length, how);
  const half = ((raw.p90 - raw.p10) / 2) * calibration;
  return { p10: raw.p50 - half, p50: raw.p50, p90: raw.p50 + half, model: raw.model, calibration, days: raw.days };
}

/**
 * The band for `period` from the daily values before it (sorted, one per day, gaps allowed).
 * `how` is how the days combine (a ratio metric's daily ratios are combined as a mean).
 * Undefined when fewer than 14 days precede the period.
 */
export function expectedBand(daily: readonly { day: string; value: number }[], period: Period, how: Combine): Band | undefined {
  const start = addDays(period.from, -BAND_HISTORY_DAYS);
  const all = daily.filter((p) => p.day < period.from);
  const before = all.filter((p) => p.day >= start);
  const length = daysBetween(period.from, period.to) + 1;
  if (before.length < 14) return undefined;
  const lastDay = before[before.length - 1]!.day;
  const gap = daysBetween(lastDay, period.from) - 1;
  const contiguous = daysBetween(before[0]!.day, lastDay) + 1 === before.length;
  if (before.length >= MIN_FORECAST_DAYS && contiguous) {
    const tail = contiguousTail(all);
    const f = forecastPeriod(before, gap, length, how, tail);
    // A series that never went below zero (a count, an amount) is not expected to.
    const floor = before.every((p) => p.value >= 0) ? 0 : -Infinity;
    return { p10: Math.max(floor, f.p10), p50: Math.max(floor, f.p50), p90: Math.max(floor, f.p90), method: `${f.model} on ${before.length} days, period band ×${f.calibration.toFixed(2)} after backtest` };
  }
  // Seasonal naive: the period's days repeat the same weekday of the last week seen.
  const byDay = new Map(before.map((p) => [p.day, p.value]));
  const predicted: number[] = [];
  for (let i = 0; i < length; i++) {
    let d = addDays(period.from, i);
    while (d >= period.from || !byDay.has(d)) {
      d = addDays(d, -7);
      if (d < start) return undefined;
    }
    predicted.push(byDay.get(d)!);
  }
  const logs: number[] = [];
  for (const p of before) {
    const prior = byDay.get(addDays(p.day, -7));
    if (prior && prior > 0 && p.value > 0) logs.push(Math.log(p.value / prior));
  }
  if (logs.length < 5) return undefined;
  const p50 = combine(predicted, how);
  const spread = (q: number) => quantile(logs, q) * (how === 'last' ? 1 : 1 / Math.sqrt(length));
  return { p10: p50 * Math.exp(spread(0.1)), p50, p90: p50 * Math.exp(spread(0.9)), method: `seasonal naive on ${before.length} days` };
}

/** The longest run of consecutive days at the end of `daily`. */
export function contiguousTail<T extends { day: string }>(daily: readonly T[]): T[] {
  let i = daily.length - 1;
  while (i > 0 && daysBetween(daily[i - 1]!.day, daily[i]!.day) === 1) i--;
  return daily.slice(Math.max(0, i));
}
