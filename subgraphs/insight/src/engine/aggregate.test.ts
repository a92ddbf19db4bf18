import { describe, expect, it } from '@jest/globals';
import { aggregate, dailyValues } from './aggregate.js';
import { withDefaults } from './catalog.js';
import { timeOf } from './days.js';
import { SeriesBook } from './series.js';

const week = { from: '2026-11-09', to: '2026-11-11', kind: 'range' as const };
const pts = (values: number[]) => values.map((value, i) => ({ t: timeOf('2026-11-09') + i * 86_400_000, value }));
const book = new SeriesBook([
  { name: 'orders', labels: { region: 'eu' }, points: pts([10, 20, 30]) },
  { name: 'orders', labels: { region: 'us' }, points: pts([5, 5, 5]) },
  { name: 'visits', labels: { region: 'eu' }, points: pts([100, 100, 200]) },
  { name: 'visits', labels: { region: 'us' }, points: pts([100, 100, 100]) },
  { name: 'queue_depth', labels: {}, points: pts([7, 9, 4]) },
  { name: 'latency_ms', labels: {}, points: pts([100, 200, 600]) },
]);

describe('aggregate', () => {
  it('sums a count, from its leaves when no total was fetched', () => {
    expect(aggregate(withDefaults({ name: 'orders' }), week, book)).toEqual({ value: 75, days: 3 });
    expect(aggregate(withDefaults({ name: 'orders' }), week, book, { region: 'us' })).toEqual({ value: 15, days: 3 });
  });

  it('divides a ratio\'s totals: sum(numerator) ÷ sum(denominator), never a sum of ratios', () => {
    const def = withDefaults({ name: 'order_rate', aggregation: { ratio: { numerator: 'orders', denominator: 'visits' } } });
    expect(aggregate(def, week, book)).toEqual({ value: 75 / 700, days: 3, numerator: 75, denominator: 700 });
    const pct = withDefaults({ name: 'order_rate', unit: { kind: 'percent' }, aggregation: { ratio: { numerator: 'orders', denominator: 'visits' } } });
    expect(aggregate(pct, week, book)!.value).toBeCloseTo((75 / 700) * 100, 12);
  });

  it('averages a mean and takes the last day for last', () => {
    expect(aggregate(withDefaults({ name: 'latency_ms', aggregation: 'mean' }), week, book)!.value).toBe(300);
    expect(aggregate(withDefaults({ name: 'queue_depth', aggregation: 'last' }), week, book)!.value).toBe(4);
  });

  it('is undefined for a period without data', () => {
    expect(aggregate(withDefaults({ name: 'orders' }), { from: '2026-12-01', to: '2026-12-07', kind: 'range' }, book)).toBeUndefined();
  });
});

describe('dailyValues', () => {
  it('gives a ratio day by day as numerator ÷ denominator', () => {
    const def = withDefaults({ name: 'order_rate', aggregation: { ratio: { numerator: 'orders', denominator: 'visits' } } });
    expect(dailyValues(def, book)).toEqual([
      { day: '2026-11-09', value: 15 / 200 },
      { day: '2026-11-10', value: 25 / 200 },
      { day: '2026-11-11', value: 35 / 300 },
    ]);
  });
});
