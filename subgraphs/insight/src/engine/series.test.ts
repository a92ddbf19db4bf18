import { describe, expect, it } from '@jest/globals';
import { timeOf } from './days.js';
import { SeriesBook } from './series.js';

const t = (day: string, hour = 0) => timeOf(day) + hour * 3_600_000;

describe('SeriesBook', () => {
  const book = new SeriesBook([
    { name: 'orders', labels: { region: 'eu', device: 'ios' }, points: [{ t: t('2026-11-09'), value: 3 }, { t: t('2026-11-09', 12), value: 2 }] },
    { name: 'orders', labels: { region: 'us', device: 'ios' }, points: [{ t: t('2026-11-09'), value: 10 }, { t: t('2026-11-10'), value: Number.NaN }] },
    { name: 'latency', labels: { region: 'eu' }, points: [{ t: t('2026-11-09'), value: 100 }] },
    { name: 'latency', labels: { region: 'us' }, points: [{ t: t('2026-11-09'), value: 300 }, { t: t('2026-11-12'), value: 50 }] },
    { name: 'visits', labels: {}, points: [{ t: t('2026-11-08'), value: 7 }] },
  ]);

  it('adds points of one day, adds leaves up for an additive total and averages them otherwise, skipping non-finite values', () => {
    expect([...book.total('orders')!]).toEqual([['2026-11-09', 15]]);
    expect([...book.total('latency', false)!]).toEqual([['2026-11-09', 200], ['2026-11-12', 50]]);
    expect(book.total('refunds')).toBeUndefined();
  });

  it('sums a leaf between two days without building its daily map', () => {
    const leaf = book.leaves('orders')[1]!;
    expect([leaf.sumBetween('2026-11-09', '2026-11-10'), leaf.sumBetween('2026-11-10', '2026-11-12')]).toEqual([10, 0]);
    expect(book.leaves('orders')[0]!.sumBetween('2026-11-09', '2026-11-09')).toBe(5);
  });

  it('filters leaves by labels', () => {
    expect([...book.filtered('orders', { region: 'eu' })!]).toEqual([['2026-11-09', 5]]);
    expect(book.filtered('orders', { region: 'apac' })).toBeUndefined();
  });

  it('lists label values, names and the span of the data', () => {
    expect(book.labelValues('orders')).toEqual({ region: ['eu', 'us'], device: ['ios'] });
    expect([book.names(), book.has('visits')]).toEqual([['latency', 'orders', 'visits'], true]);
    expect(book.span()).toEqual({ first: '2026-11-08', last: '2026-11-12' });
  });
});
