import { describe, expect, it } from '@jest/globals';
import { rankCauses, segmentName } from './causes.js';
import { remainderOf } from './remainder.js';

describe('remainderOf', () => {
  it('is the change minus what was attributed, with its share', () => {
    expect(remainderOf(-100, [-70, -20])).toEqual({ value: -10, share: 0.1 });
    expect(remainderOf(0, [])).toEqual({ value: 0, share: 0 });
  });
});

describe('rankCauses', () => {
  const formula = { change: -100, contributions: [{ name: 'orders', contribution: -20, share: 0.2 }, { name: 'basket', contribution: -80, share: 0.8 }], remainder: 0 };
  const segments = {
    change: -100, method: 'adtributor' as const, dimensions: [], remainder: -10,
    causes: [{ labels: { region: 'eu' }, before: 500, after: 410, contribution: -90, share: 0.9, explanatoryPower: 0.9, surprise: 0.02, children: [] }],
  };
  const driver = {
    metric: 'ad_clicks', labels: {}, lagDays: 3, elasticity: { value: 0.5, p10: 0.4, p90: 0.6, low95: 0.35, high95: 0.65, observations: 50, source: 'estimated' as const },
    driverBefore: 100, driverAfter: 80, contribution: -60, contributionP10: -72, contributionP90: -48, share: 0.6,
  };

  it('leads with the view that leaves least unexplained, ranks by size, and keeps its remainder', () => {
    const r = rankCauses(-100, { formula, drivers: [driver], segments });
    expect(r.primaryView).toBe('formula');
    expect(r.remainder).toEqual({ value: 0, share: -0 });
    expect(r.causes.map((c) => [c.view, c.name, c.contribution])).toEqual([
      ['formula', 'basket', -80], ['formula', 'orders', -20], ['driver', 'ad_clicks', -60], ['segment', 'region=eu', -90],
    ]);
    expect(r.causes[2]).toMatchObject({ interval: { p10: -72, p90: -48 }, lagDays: 3 });
  });

  it('takes segments first when they explain more than a driver', () => {
    const r = rankCauses(-100, { drivers: [driver], segments });
    expect([r.primaryView, r.remainder.value, r.causes[0]!.name]).toEqual(['segment', -10, 'region=eu']);
  });

  it('spreads a rest under 2 % of the change over the causes in proportion, so their shares add up to 100 % on their own; a larger rest stays', () => {
    const over = { ...driver, contribution: -101, contributionP10: -110, contributionP90: -90, share: 1.01 };
    const r = rankCauses(-100, { drivers: [over] });
    expect(r.remainder).toEqual({ value: 0, share: 0, folded: 1 });
    expect(r.causes[0]!.contribution).toBeCloseTo(-100, 10);
    expect(r.causes[0]!.share).toBeCloseTo(1, 10);
    expect(r.causes[0]!.interval!.p10).toBeCloseTo(-110 * (100 / 101), 10);
    const two = rankCauses(-100, { drivers: [{ ...driver, contribution: -70.7 }, { ...driver, metric: 'mail_opens', contribution: -30 }] });
    expect(two.causes.reduce((a, c) => a + c.share, 0)).toBeCloseTo(1, 10);
    expect(two.causes.map((c) => c.contribution / -100)).toEqual([expect.closeTo(70.7 / 100.7, 10), expect.closeTo(30 / 100.7, 10)]);
    // 3 % is more than the attribution's rounding: it is what nothing explains.
    expect(rankCauses(-100, { drivers: [{ ...driver, contribution: -103 }] }).remainder).toEqual({ value: 3, share: -0.03 });
  });

  it('states the whole change as the remainder when nothing is attributed', () => {
    expect(rankCauses(-100, { drivers: [] })).toEqual({ causes: [], remainder: { value: -100, share: 1 } });
  });

  it('names segments by their labels', () => {
    expect(segmentName({ market: 'fr', channel: 'app' })).toBe('market=fr, channel=app');
  });
});
