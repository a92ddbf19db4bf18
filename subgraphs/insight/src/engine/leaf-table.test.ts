import { describe, expect, it } from '@jest/globals';
import { jsTerm, LeafTable } from './leaf-table.js';

describe('LeafTable', () => {
  it('holds leaves column-wise with their totals and the change', () => {
    const table = new LeafTable([
      { labels: { region: 'eu', device: 'ios' }, before: 10, after: 4 },
      { labels: { region: 'us' }, before: 20, after: 21 },
    ]);
    expect([table.dimensions, table.values, [...table.codes[0]!], table.totalBefore, table.totalAfter, table.change]).toEqual([
      ['device', 'region'], [['ios', ''], ['eu', 'us']], [0, 1], 30, 25, -5,
    ]);
    expect(table.contributionOf(table.sums((i) => i === 0))).toBe(-6);
  });

  it('scales a ratio\'s first-order contributions to its exact change', () => {
    const table = new LeafTable([
      { labels: { d: 'a' }, before: 10, after: 5, denominatorBefore: 100, denominatorAfter: 50 },
      { labels: { d: 'b' }, before: 10, after: 10, denominatorBefore: 100, denominatorAfter: 100 },
    ], 100);
    expect(table.change).toBeCloseTo((15 / 150 - 20 / 200) * 100, 12);
    expect(table.contributionOf(table.sums(() => true))).toBeCloseTo(table.change, 12);
  });

  it('computes the surprise term, 0·ln 0 = 0', () => {
    expect(jsTerm(0.5, 0.5)).toBe(0);
    expect(jsTerm(0, 0.2)).toBeCloseTo(0.5 * 0.2 * Math.log(2), 15);
    expect(jsTerm(0.3, 0.1)).toBeCloseTo(0.5 * (0.3 * Math.log(0.6 / 0.4) + 0.1 * Math.log(0.2 / 0.4)), 15);
  });
});
