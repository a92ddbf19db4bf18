import { describe, expect, it } from '@jest/globals';
import { contiguousTail, errorCorrelation, expectedBand } from './band.js';
import { addDays, dayOf } from './days.js';
import { generateDaily } from './synthetic-series.js';

describe('expectedBand', () => {
  it('falls back to seasonal naive with little history: last week repeated, spread of week-over-week changes', () => {
    // 14 days: two identical weeks (summing to 770) except the second is 10 higher on its first day, so it sums to 780.
    const week = [100, 110, 120, 130, 140, 90, 80];
    const daily = [...week, ...week.map((v, i) => (i === 0 ? v * 1.1 : v))].map((value, i) => ({ day: addDays('2026-11-02', i), value }));
    daily.push(...[100, 110, 120, 130, 140, 90, 80].map((value, i) => ({ day: addDays('2026-11-16', i), value })));
    const band = expectedBand(daily.slice(0, 14), { from: '2026-11-16', to: '2026-11-22', kind: 'iso-week' }, 'sum')!;
    expect(band.method).toBe('seasonal naive on 14 days');
    expect(band.p50).toBeCloseTo(780, 9);
    // Seven week-over-week log changes: ln 1.1 once, 0 six times; p10 = 0, p90 = 0.4·ln 1.1 (linear interpolation at rank 5.4 of 0..6); scaled by 1/√7 for a week's total.
    expect(band.p10).toBeCloseTo(780, 9);
    expect(band.p90).toBeCloseTo(780 * Math.exp((0.4 * Math.log(1.1)) / Math.sqrt(7)), 9);
  });

  it('never expects a series that was never negative to go below zero', () => {
    // A count sliding from 600 towards nothing over twelve weeks: its trend runs on below zero.
    const daily = Array.from({ length: 84 }, (_, i) => ({ day: addDays('2026-08-24', i), value: Math.max(1, 600 - 7.2 * i + (i % 7) * 3) }));
    const band = expectedBand(daily, { from: '2026-11-16', to: '2026-11-22', kind: 'iso-week' }, 'sum')!;
    expect(band.p10).toBe(0);
    expect(band.p90).toBeGreaterThanOrEqual(band.p50);
  });

  it('has no band with under two weeks of history', () => {
    expect(expectedBand([{ day: '2026-11-01', value: 1 }], { from: '2026-11-02', to: '2026-11-02', kind: 'day' }, 'sum')).toBeUndefined();
  });

  it('brackets an ordinary week with the forecaster, calibrated on earlier weeks', () => {
    const daily = generateDaily({ start: '2026-05-01', days: 200, level: 1000, seed: 12 }).map((p) => ({ day: dayOf(p.t), value: p.value }));
    const period = { from: daily[193]!.day, to: daily[199]!.day, kind: 'range' as const };
    const band = expectedBand(daily, period, 'sum')!;
    const actual = daily.slice(193).reduce((a, p) => a + p.value, 0);
    expect(band.method).toMatch(/^MSTL\(7\)\+AutoETS on 112 days, period band ×\d\.\d\d after backtest$/);
    expect(band.p10).toBeLessThan(actual);
    expect(band.p90).toBeGreaterThan(actual);
    expect((band.p90 - band.p10) / band.p50).toBeLessThan(0.1);
  });
});

describe('helpers', () => {
  it('measures no error correlation in white noise around a weekly pattern, and full correlation in a trend', () => {
    expect(errorCorrelation(Array.from({ length: 60 }, (_, i) => 100 + (i % 7)))).toBe(0);
    expect(errorCorrelation(Array.from({ length: 60 }, (_, i) => 100 * 1.01 ** (i * i / 50)))).toBeGreaterThan(0.9);
  });

  it('keeps the last run of consecutive days', () => {
    expect(contiguousTail([{ day: '2026-11-01' }, { day: '2026-11-03' }, { day: '2026-11-04' }])).toEqual([{ day: '2026-11-03' }, { day: '2026-11-04' }]);
  });
});
