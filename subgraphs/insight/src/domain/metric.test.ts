import { describe, expect, it } from '@jest/globals';
import { aggregate, checkLabels, checkMetricName, checkPoints, matchesLabels, naturalStep, parseStep, seriesKey, sumSeries } from './metric.js';

const DAY = 86_400_000;

describe('metric rules', () => {
  it('accepts dotted lower-case names and refuses others, naming the value', () => {
    expect(checkMetricName('ad_spend', '/series/0/name')).toBeUndefined();
    expect(checkMetricName('llm.cost_usd', '/n')).toBeUndefined();
    expect(checkMetricName('Revenue', '/series/0/name')).toEqual({ pointer: '/series/0/name', detail: expect.stringContaining('"Revenue"') });
    expect(checkMetricName('', '/n')).toBeDefined();
    expect(checkMetricName('9lives', '/n')).toBeDefined();
    expect(checkMetricName('a'.repeat(101), '/n')).toBeDefined();
  });

  it('checks label names, values and count', () => {
    expect(checkLabels({ channel: 'search' }, '/l')).toEqual([]);
    expect(checkLabels({ 'Bad-Key': 'x' }, '/l')[0]!.pointer).toBe('/l/Bad-Key');
    expect(checkLabels({ channel: '' }, '/l')[0]!.detail).toContain('channel');
    expect(checkLabels({ channel: 3 }, '/l')).toHaveLength(1);
    expect(checkLabels(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])), '/l')[0]!.detail).toContain('at most 10');
  });

  it('requires finite values and strictly increasing timestamps in range', () => {
    expect(checkPoints([{ t: 0, value: 1 }, { t: DAY, value: 2 }], '/p')).toEqual([]);
    expect(checkPoints([{ t: DAY, value: 1 }, { t: DAY, value: 2 }], '/p')).toEqual([{ pointer: '/p/1/timestamp', detail: expect.stringContaining('strictly increasing') }]);
    expect(checkPoints([{ t: 0, value: Number.NaN }], '/p')).toEqual([{ pointer: '/p/0/value', detail: expect.any(String) }]);
    expect(checkPoints([{ t: Date.UTC(2300, 0, 1), value: 1 }], '/p')[0]!.pointer).toBe('/p/0/timestamp');
    expect(checkPoints([{ t: -1, value: 1 }], '/p')).toHaveLength(1);
  });

  it('keys series by name and sorted labels; matches label subsets', () => {
    expect(seriesKey({ name: 'x', labels: { b: '2', a: '1' } })).toBe(seriesKey({ name: 'x', labels: { a: '1', b: '2' } }));
    expect(seriesKey({ name: 'x', labels: {} })).not.toBe(seriesKey({ name: 'x', labels: { a: '1' } }));
    expect(matchesLabels({ a: '1', b: '2' }, { a: '1' })).toBe(true);
    expect(matchesLabels({ a: '1' }, { a: '2' })).toBe(false);
  });

  it('parses steps', () => {
    expect(parseStep('1d')).toBe(DAY);
    expect(parseStep('6h')).toBe(6 * 3_600_000);
    expect(parseStep('2w')).toBe(14 * DAY);
    expect(parseStep('0d')).toBeUndefined();
    expect(parseStep('1y')).toBeUndefined();
    expect(parseStep('d')).toBeUndefined();
  });

  it('aggregates into aligned buckets', () => {
    const points = [0, 1, 2, 7, 8].map((d) => ({ t: d * DAY + 3_600_000, value: d + 1 }));
    expect(aggregate(points, 7 * DAY, 'sum')).toEqual([{ t: 0, value: 6 }, { t: 7 * DAY, value: 17 }]);
    expect(aggregate(points, 7 * DAY, 'avg')).toEqual([{ t: 0, value: 2 }, { t: 7 * DAY, value: 8.5 }]);
    expect(aggregate(points, 7 * DAY, 'max').map((p) => p.value)).toEqual([3, 9]);
    expect(aggregate(points, 7 * DAY, 'min').map((p) => p.value)).toEqual([1, 8]);
    expect(aggregate(points, 7 * DAY, 'last').map((p) => p.value)).toEqual([3, 9]);
    expect(aggregate(points, 7 * DAY, 'count').map((p) => p.value)).toEqual([3, 2]);
    expect(aggregate([], DAY, 'sum')).toEqual([]);
  });

  it('sums series point by point and finds the natural step', () => {
    expect(sumSeries([[{ t: 0, value: 1 }, { t: DAY, value: 2 }], [{ t: DAY, value: 5 }]])).toEqual([{ t: 0, value: 1 }, { t: DAY, value: 7 }]);
    expect(naturalStep([{ t: 0, value: 1 }, { t: DAY, value: 1 }, { t: 3 * DAY, value: 1 }, { t: 4 * DAY, value: 1 }])).toBe(DAY);
    expect(naturalStep([{ t: 0, value: 1 }])).toBeUndefined();
  });
});
