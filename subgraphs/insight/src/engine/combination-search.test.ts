import { describe, expect, it } from '@jest/globals';
import { abnormalGroups, searchCombinations } from './combination-search.js';
import { LeafTable } from './leaf-table.js';
import { combinations } from './synthetic-series.js';

describe('abnormalGroups', () => {
  it('groups deviations beyond the noise by where they cluster, falls and rises apart', () => {
    const dev = Float64Array.from([0, 0.01, -0.01, 0.005, 0, 0.5, 0.52, 0.9, -0.4, 0, 0.01]);
    expect(abnormalGroups(dev)).toEqual([[8], [5, 6], [7]]);
  });
});

describe('searchCombinations', () => {
  it('finds one two-label combination as the simplest explanation', () => {
    const leaves = combinations({ a: ['a1', 'a2', 'a3'], b: ['b1', 'b2', 'b3'], c: ['c1', 'c2'] }).map((labels) => ({ labels, before: 100, after: labels.a === 'a2' && labels.c === 'c1' ? 40 : 100 }));
    const causes = searchCombinations(new LeafTable(leaves));
    expect(causes.map((c) => [c.labels, c.contribution, c.share, c.before, c.after])).toEqual([[{ a: 'a2', c: 'c1' }, -180, 1, 300, 120]]);
    expect(causes[0]!.value).toEqual({ before: 300, after: 120 });
  });

  it('names nothing when every leaf moved alike', () => {
    const leaves = combinations({ a: ['a1', 'a2'], b: ['b1', 'b2', 'b3'] }).map((labels) => ({ labels, before: 100, after: 80 }));
    expect(searchCombinations(new LeafTable(leaves))).toEqual([]);
  });
});
