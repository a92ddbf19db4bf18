import { describe, expect, it } from '@jest/globals';
import { dayOf } from './days.js';
import { combinations, generateDaily, generateLeaves, totalOf } from './synthetic-series.js';

describe('synthetic series', () => {
  it('is the same for the same seed, with a weekly season and the planted factor applied', () => {
    const a = generateDaily({ start: '2026-11-02', days: 14, level: 100, seed: 1, noise: 0, trend: 0 }, (d) => (d >= '2026-11-09' ? 0.5 : 1));
    expect(a.map((p) => dayOf(p.t))[0]).toBe('2026-11-02');
    // Wednesday is the peak (1 + 0.15), a week later halved.
    expect(a[2]!.value).toBeCloseTo(115, 9);
    expect(a[9]!.value).toBeCloseTo(57.5, 9);
    const b = generateDaily({ start: '2026-11-02', days: 14, level: 100, seed: 1 });
    expect(generateDaily({ start: '2026-11-02', days: 14, level: 100, seed: 1 })).toEqual(b);
  });

  it('makes one leaf per combination and adds them into a total', () => {
    expect(combinations({ a: ['1', '2'], b: ['x', 'y', 'z'] }).length).toBe(6);
    const leaves = generateLeaves('m', { a: ['1', '2'] }, { start: '2026-11-02', days: 3, level: 100, seed: 2 });
    const total = totalOf('m', leaves);
    expect(total.points[1]!.value).toBeCloseTo(leaves[0]!.points[1]!.value + leaves[1]!.points[1]!.value, 9);
  });
});
