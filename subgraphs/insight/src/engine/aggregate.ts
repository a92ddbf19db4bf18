/**
 * A metric's value over a period, honouring its aggregation: a sum adds the days, a mean
 * averages them, `last` takes the last day, and a ratio divides the period's numerator total
 * by its denominator total (never a sum or a mean of daily ratios).
 */
import { isAdditive, ratioParts, type MetricDef } from './catalog.js';
import { dayRange } from './days.js';
import type { Period } from './periods.js';
import type { Daily, Leaf, SeriesBook } from './series.js';

export interface Aggregate {
  value: number;
  /** Days of the period that had data. */
  days: number;
  /** For a ratio: the period's numerator and denominator totals. */
  numerator?: number;
  denominator?: number;
}

/** Labels as a key: the same labels in any order give the same key. */
export function labelKey(labels: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(labels).sort());
}

/**
 * The leaves a metric splits into over its labels: its own when it adds up; for a ratio, its
 * numerator's, each with the denominator leaf of the same labels (a numerator leaf without one
 * is left out). Undefined when the metric does not add up over labels (a mean, a last value).
 */
export function additiveLeaves(def: MetricDef, book: SeriesBook): { leaf: Leaf; denominator?: Leaf }[] | undefined {
  const parts = ratioParts(def.aggregation);
  if (parts) {
    const dens = new Map(book.leaves(parts.denominator).map((l) => [labelKey(l.labels), l]));
    return book.leaves(parts.numerator).flatMap((leaf) => {
      const denominator = dens.get(labelKey(leaf.labels));
      return denominator ? [{ leaf, denominator }] : [];
    });
  }
  return isAdditive(def) ? book.leaves(def.name).map((leaf) => ({ leaf })) : undefined;
}

/** Percent-unit ratios are stored in percent points, so numerator ÷ denominator is scaled by 100. */
export function ratioScale(def: MetricDef): number {
  return def.unit.kind === 'percent' ? 100 : 1;
}

export function sumOver(daily: Daily, period: Period): { sum: number; days: number; last?: number } {
  let sum = 0;
  let days = 0;
  let last: number | undefined;
  for (const d of dayRange(period.from, period.to)) {
    const v = daily.get(d);
    if (v === undefined) continue;
    sum += v;
    days++;
    last = v;
  }
  return { sum, days, ...(last !== undefined ? { last } : {}) };
}

/** Aggregates a daily series already chosen (e.g. one segment) with the metric's rule; undefined when the period has no data. */
export function aggregateDaily(aggregation: 'sum' | 'mean' | 'last', daily: Daily, period: Period): Aggregate | undefined {
  const s = sumOver(daily, period);
  if (s.days === 0) return undefined;
  const value = aggregation === 'sum' ? s.sum : aggregation === 'mean' ? s.sum / s.days : s.last!;
  return { value, days: s.days };
}

/** The metric over the period from the fetched series; undefined when the data is missing. */
export function aggregate(def: MetricDef, period: Period, book: SeriesBook, filter: Readonly<Record<string, string>> = {}): Aggregate | undefined {
  const parts = ratioParts(def.aggregation);
  if (parts) {
    const num = book.filtered(parts.numerator, filter);
    const den = book.filtered(parts.denominator, filter);
    if (!num || !den) return undefined;
    const n = sumOver(num, period);
    const d = sumOver(den, period);
    if (n.days === 0 || d.days === 0 || d.sum === 0) return undefined;
    return { value: (n.sum / d.sum) * ratioScale(def), days: Math.min(n.days, d.days), numerator: n.sum, denominator: d.sum };
  }
  const daily = book.filtered(def.name, filter, isAdditive(def));
  return daily ? aggregateDaily(def.aggregation as 'sum' | 'mean' | 'last', daily, period) : undefined;
}

/** The metric's value day by day (a ratio's daily numerator ÷ denominator), sorted by day. */
export function dailyValues(def: MetricDef, book: SeriesBook): { day: string; value: number }[] {
  const parts = ratioParts(def.aggregation);
  let daily: Daily | undefined;
  if (parts) {
    const num = book.total(parts.numerator);
    const den = book.total(parts.denominator);
    if (num && den) {
      daily = new Map();
      for (const [d, v] of num) {
        const w = den.get(d);
        if (w) daily.set(d, (v / w) * ratioScale(def));
      }
    }
  }
  daily ??= book.total(def.name, isAdditive(def));
  return daily ? dayRows(daily) : [];
}

/** A daily series as rows, sorted by day. */
export function dayRows(daily: Daily): { day: string; value: number }[] {
  return [...daily].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, value]) => ({ day, value }));
}
