import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { logMean, productAttribution, ratioAttribution, sumAttribution } from './formula-attribution.js';

describe('productAttribution (LMDI)', () => {
  it('splits a product\'s change by log-mean weights', () => {
    // Y = visits × uptake × basket: 1000·0.02·50 = 1000 → 1100·0.018·50 = 990.
    const r = productAttribution([
      { name: 'visits', before: 1000, after: 1100 },
      { name: 'uptake', before: 0.02, after: 0.018 },
      { name: 'basket', before: 50, after: 50 },
    ]);
    const L = (990 - 1000) / Math.log(990 / 1000);
    expect(r.change).toBeCloseTo(-10, 9);
    expect(r.contributions.map((c) => c.name)).toEqual(['visits', 'uptake', 'basket']);
    expect(r.contributions[0]!.contribution).toBeCloseTo(L * Math.log(1.1), 9);
    expect(r.contributions[1]!.contribution).toBeCloseTo(L * Math.log(0.9), 9);
    expect(r.contributions[2]!.contribution).toBe(0);
    expect(r.remainder).toBeCloseTo(0, 9);
    expect(r.contributions[0]!.share + r.contributions[1]!.share).toBeCloseTo(1, 9);
  });

  it('puts the gap between the factors and the observed subject in the remainder', () => {
    const r = productAttribution([{ name: 'a', before: 10, after: 20 }], { before: 10, after: 30 });
    expect(r.contributions[0]!.contribution).toBeCloseTo(logMean(30, 10) * Math.log(2), 9);
    expect(r.remainder).toBeCloseTo(20 - logMean(30, 10) * Math.log(2), 9);
  });

  it('refuses values that are not positive, naming them', () => {
    expect(() => productAttribution([{ name: 'orders', before: 0, after: 3 }])).toThrow('orders went from 0 to 3');
  });

  it('gives the same weights in any order of factors when the subject barely moved', () => {
    // fast-check's counterexample: the products before and after are about 100, 9e-6 apart.
    const parts = [
      { name: 'f0', before: 999999.872098294, after: 0.010000000000000005 },
      { name: 'f1', before: 0.01, after: 999999.9601531146 },
      { name: 'f2', before: 0.01000000000000001, after: 0.010000000000000005 },
    ];
    const forward = productAttribution(parts);
    const reversed = productAttribution([...parts].reverse());
    for (const c of forward.contributions) {
      const same = reversed.contributions.find((d) => d.name === c.name)!;
      expect(Math.abs(same.contribution - c.contribution)).toBeLessThanOrEqual(1e-12 * Math.abs(c.contribution));
    }
    expect(logMean(100 + 8.8e-6, 100)).toBeCloseTo(100 + 4.4e-6, 12);
  });

  it('adds up exactly and ignores the order of factors, for any positive inputs', () => {
    const factor = fc.record({ before: fc.double({ min: 0.01, max: 1e6, noNaN: true }), after: fc.double({ min: 0.01, max: 1e6, noNaN: true }) });
    fc.assert(fc.property(fc.array(factor, { minLength: 1, maxLength: 5 }), (xs) => {
      const parts = xs.map((x, i) => ({ name: `f${i}`, ...x }));
      const r = productAttribution(parts);
      const total = r.contributions.reduce((a, c) => a + c.contribution, 0);
      const y0 = parts.reduce((a, p) => a * p.before, 1);
      const y1 = parts.reduce((a, p) => a * p.after, 1);
      expect(Math.abs(total - r.change)).toBeLessThanOrEqual(1e-9 * Math.max(1, y0, y1));
      const reversed = productAttribution([...parts].reverse());
      for (const c of r.contributions) {
        const same = reversed.contributions.find((d) => d.name === c.name)!;
        expect(Math.abs(same.contribution - c.contribution)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(c.contribution)));
      }
    }));
  });
});

describe('sumAttribution and ratioAttribution', () => {
  it('gives each part of a sum its own difference', () => {
    const r = sumAttribution([{ name: 'web', before: 100, after: 80 }, { name: 'app', before: 50, after: 65 }]);
    expect([r.change, r.contributions.map((c) => c.contribution), r.remainder]).toEqual([-5, [-20, 15], 0]);
    expect(r.contributions.map((c) => c.share)).toEqual([4, -3]);
  });

  it('splits a ratio into numerator minus denominator in logs', () => {
    const r = ratioAttribution({ name: 'checkouts', before: 300, after: 240 }, { name: 'visits', before: 10000, after: 10000 });
    expect(r.change).toBeCloseTo(-0.006, 12);
    expect(r.contributions[0]!.contribution).toBeCloseTo(-0.006, 12);
    expect(r.contributions[1]!.contribution).toBe(-0);
    const s = ratioAttribution({ name: 'n', before: 10, after: 10 }, { name: 'd', before: 100, after: 125 });
    expect(s.contributions[1]!.contribution).toBeCloseTo(0.08 - 0.1, 12);
    fc.assert(fc.property(fc.double({ min: 0.1, max: 1e4, noNaN: true }), fc.double({ min: 0.1, max: 1e4, noNaN: true }), fc.double({ min: 0.1, max: 1e4, noNaN: true }), fc.double({ min: 0.1, max: 1e4, noNaN: true }), (n0, n1, d0, d1) => {
      const x = ratioAttribution({ name: 'n', before: n0, after: n1 }, { name: 'd', before: d0, after: d1 });
      expect(Math.abs(x.remainder)).toBeLessThanOrEqual(1e-9 * Math.max(1, n0 / d0, n1 / d1));
    }));
  });
});
