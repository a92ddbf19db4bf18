import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { DEMO_CHANNELS, demoSeries } from '../domain/demo-series.js';
import { estimateElasticity } from './elasticity.js';
import { simulate } from './simulate.js';

const baseline = Array.from({ length: 30 }, (_, i) => ({ t: i, p10: 90, p50: 100, p90: 110 }));
const scenario = (driverChange: number, value: number, standardError = 0.02) => ({ driverChange, elasticity: { value, standardError }, runs: 4000, seed: 1 });

describe('what-if simulation', () => {
  it('is deterministic for a seed and differs for another', () => {
    const a = simulate(baseline, scenario(0.2, 0.25), seededRandom(5));
    const b = simulate(baseline, scenario(0.2, 0.25), seededRandom(5));
    const c = simulate(baseline, scenario(0.2, 0.25), seededRandom(6));
    expect(a).toEqual(b);
    expect(c.total.p50).not.toBe(a.total.p50);
  });

  it('moves the target by (1 + change)^elasticity around the baseline', () => {
    const sim = simulate(baseline, scenario(0.2, 0.25), seededRandom(1));
    const expected = 3000 * (1.2 ** 0.25 - 1);
    expect(sim.baselineTotal).toBe(3000);
    expect(sim.impact.p50).toBeGreaterThan(expected * 0.9);
    expect(sim.impact.p50).toBeLessThan(expected * 1.1);
    expect(sim.impact.p10).toBeLessThan(sim.impact.p50);
    expect(sim.impact.p90).toBeGreaterThan(sim.impact.p50);
    expect(sim.points).toHaveLength(30);
  });

  it('has no effect without a change, and a negative one for a cut', () => {
    expect(Math.abs(simulate(baseline, scenario(0, 0.25), seededRandom(1)).impact.p50)).toBeLessThan(10);
    expect(simulate(baseline, scenario(-0.3, 0.25), seededRandom(1)).impact.p90).toBeLessThan(0);
  });

  it('refuses impossible scenarios', () => {
    expect(() => simulate(baseline, scenario(-1, 0.2), seededRandom(1))).toThrow('above -100%');
    expect(() => simulate(baseline, { ...scenario(0.1, 0.2), runs: 5 }, seededRandom(1))).toThrow('runs');
  });
});

describe('elasticity from history', () => {
  it('recovers the demo business elasticities of every channel', () => {
    const series = demoSeries(new Date('2026-11-23T00:00:00Z'), seededRandom(42));
    const sessions = series.find((s) => s.name === 'sessions')!.points;
    for (const [channel, { elasticity }] of Object.entries(DEMO_CHANNELS)) {
      const spend = series.find((s) => s.name === 'ad_spend' && s.labels.channel === channel)!.points;
      const estimate = estimateElasticity(sessions, spend)!;
      expect(Math.abs(estimate.value - elasticity)).toBeLessThan(Math.max(3 * estimate.standardError, 0.03));
      expect(estimate.observations).toBeGreaterThan(700);
    }
  });

  it('gives up when the driver never changes or the history is short', () => {
    const flat = Array.from({ length: 60 }, (_, i) => ({ t: i, value: 5 }));
    const moving = flat.map((p, i) => ({ t: p.t, value: 100 + i }));
    expect(estimateElasticity(moving, flat)).toBeUndefined();
    expect(estimateElasticity(moving.slice(0, 20), moving.slice(0, 20))).toBeUndefined();
  });
});
