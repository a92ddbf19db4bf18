import { describe, expect, it } from '@jest/globals';
import { withDefaults } from './catalog.js';
import { dayOf } from './days.js';
import { forecastAhead, whatIfEffect } from './outlook.js';
import { generateDaily } from './synthetic-series.js';

describe('whatIfEffect', () => {
  const subject = withDefaults({ name: 'deliveries', drivers: [{ metric: 'couriers', elasticity: 0.5 }] });

  it('applies a declared elasticity: value × ((1 + change)^e − 1)', () => {
    const w = whatIfEffect({ text: 'increase couriers by 21%', change: 0.21, metric: 'couriers', labels: {} }, subject, 1000, undefined, undefined, '2026-11-15', 1);
    expect(w.effect).toEqual({ p10: expect.closeTo(100, 9), p50: expect.closeTo(100, 9), p90: expect.closeTo(100, 9), elasticity: 0.5, elasticityInterval: { p10: 0.5, p90: 0.5 }, source: 'declared' });
  });

  it('gives no effect without an elasticity, or for a cut of 100 % or more', () => {
    const other = { text: 'cut vans by 10%', change: -0.1, metric: 'vans', labels: {} };
    expect(whatIfEffect(other, subject, 1000, undefined, undefined, '2026-11-15', 1)).toEqual(other);
    const all = { text: 'cut couriers by 100%', change: -1, metric: 'couriers', labels: {} };
    expect(whatIfEffect(all, subject, 1000, undefined, undefined, '2026-11-15', 1).effect).toBeUndefined();
  });
});

describe('whatIfEffect: cost and return of money levers', () => {
  const eur = { kind: 'currency', code: 'EUR' } as const;
  const income = withDefaults({ name: 'partner_income', unit: eur, drivers: [{ metric: 'commission', elasticity: 0.8 }] });
  const lever = { def: withDefaults({ name: 'commission', unit: eur }), from: '2026-11-09' };
  const spend = new Map(['2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15'].map((d) => [d, 100]));
  const ask = (change: number) => ({ text: `change commission by ${change * 100}%`, change, metric: 'commission', labels: {} });

  it('a cut that loses more than it saves does not pay', () => {
    const w = whatIfEffect(ask(-0.2), income, 10_000, undefined, spend, '2026-11-15', 1, lever);
    expect(w.effect!.p50).toBeCloseTo(10_000 * (0.8 ** 0.8 - 1), 6);
    expect(w.cost).toEqual({ periodSpend: 700, increment: -140, return: expect.anything(), pays: false });
    expect(w.cost!.return.p50).toBeCloseTo(w.effect!.p50 / -140, 9);
  });

  it('a cut that saves more than it loses pays, and so does a raise that brings back more than it costs', () => {
    expect(whatIfEffect(ask(-0.2), income, 100, undefined, spend, '2026-11-15', 1, lever).cost!.pays).toBe(true);
    const raise = whatIfEffect(ask(0.1), income, 10_000, undefined, spend, '2026-11-15', 1, lever);
    expect([raise.cost!.increment, raise.cost!.pays]).toEqual([expect.closeTo(70, 9), true]);
    expect(whatIfEffect(ask(0.1), income, 500, undefined, spend, '2026-11-15', 1, lever).cost!.pays).toBe(false);
  });
});

describe('forecastAhead', () => {
  it('forecasts the days after the data with a band for each day and for the total', () => {
    const daily = generateDaily({ start: '2026-05-01', days: 200, level: 500, seed: 8 }).map((p) => ({ day: dayOf(p.t), value: p.value }));
    const f = forecastAhead(daily, 'sum', 14)!;
    expect([f.from, f.to, f.points.length, f.model]).toEqual(['2026-11-17', '2026-11-30', 14, 'MSTL(7)+AutoETS']);
    expect(f.p10).toBeLessThan(f.p50);
    expect(f.p90).toBeGreaterThan(f.p50);
    expect(f.p50).toBeCloseTo(f.points.reduce((a, p) => a + p.p50, 0), 6);
    expect(forecastAhead(daily.slice(0, 10), 'sum', 14)).toBeUndefined();
  });
});

describe('whatIfEffect: no reliable relation', () => {
  it('states no effect from an estimated elasticity whose 95 % interval holds zero, and says why', () => {
    // Two series that have nothing to do with each other: whatever the slope, its interval holds zero.
    const subjectDaily = new Map(generateDaily({ start: '2026-05-01', days: 199, level: 500, seed: 11, noise: 0.1 }).map((p) => [dayOf(p.t), p.value]));
    const leverDaily = new Map(generateDaily({ start: '2026-05-01', days: 199, level: 80, seed: 12, noise: 0.3 }).map((p) => [dayOf(p.t), p.value]));
    const stores = withDefaults({ name: 'store_visits', drivers: [{ metric: 'flyers' }] });
    const w = whatIfEffect({ text: 'raise flyers by 25%', change: 0.25, metric: 'flyers', labels: {} }, stores, 5000, subjectDaily, leverDaily, '2026-11-15', 1);
    expect(w.effect).toBeUndefined();
    expect(w.noReliableRelation).toEqual({ elasticity: expect.any(Number), low95: expect.any(Number), high95: expect.any(Number), observations: expect.any(Number), words: expect.stringContaining('which holds zero') });
    expect(w.noReliableRelation!.low95).toBeLessThanOrEqual(0);
    expect(w.noReliableRelation!.high95).toBeGreaterThanOrEqual(0);
  });

  it('still states the effect of an estimated elasticity the history does support', () => {
    const leverPoints = generateDaily({ start: '2026-05-01', days: 199, level: 80, seed: 12, noise: 0.3 });
    const leverDaily = new Map(leverPoints.map((p) => [dayOf(p.t), p.value]));
    const subjectDaily = new Map(leverPoints.map((p) => [dayOf(p.t), 30 * p.value ** 0.6]));
    const stores = withDefaults({ name: 'store_visits', drivers: [{ metric: 'flyers' }] });
    const w = whatIfEffect({ text: 'raise flyers by 25%', change: 0.25, metric: 'flyers', labels: {} }, stores, 5000, subjectDaily, leverDaily, '2026-11-15', 1);
    expect(w.noReliableRelation).toBeUndefined();
    expect(w.effect!.elasticity).toBeCloseTo(0.6, 2);
  });
});
