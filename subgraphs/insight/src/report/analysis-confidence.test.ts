import { describe, expect, it } from '@jest/globals';
import { analyse } from '../engine/analyse.js';
import { addDays } from '../engine/days.js';
import { generateDaily, generateLeaves, totalOf } from '../engine/synthetic-series.js';
import { analysisConfidence } from './analysis-confidence.js';

/** The report's confidence follows what the engine found, on planted series with names the demo never had. */

const now = Date.parse('2026-11-18T10:00:00Z');
const start = addDays('2026-11-17', -399);

describe('analysisConfidence', () => {
  it('is high when a real move is explained by its causes, and names the share they explain', () => {
    const leaves = generateLeaves('parcels', { depot: ['north', 'south', 'east'] }, { start, days: 400, level: 9000, seed: 3 }, (labels, day) => (labels.depot === 'north' && day >= '2026-11-10' ? 0.5 : 1));
    const f = analyse({ question: 'Why did parcels fall last week?', catalog: [{ name: 'parcels', labels: ['depot'] }], series: [totalOf('parcels', leaves), ...leaves], now });
    const explained = 1 - Math.abs(f.remainder.share);
    const c = analysisConfidence(f);
    expect(c.value).toBeCloseTo(Math.round((0.4 + 0.45 * Math.min(1, explained)) * 100) / 100, 2);
    expect(c.value).toBeGreaterThan(0.75);
    expect(c.reason).toMatch(/^The move is below its expected range; the causes found account for \d+ % of it\.$/);
  });

  it('is low when a real move has no cause, and says only leads are left', () => {
    const points = generateDaily({ start, days: 400, level: 3000, seed: 91 }, (d) => (d >= '2026-11-12' ? 0.7 : 1));
    const f = analyse({ question: 'Why did renewals drop last week?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points }], now });
    expect(f.premise!.verdict).toBe('confirmed');
    expect(analysisConfidence(f)).toEqual({ value: 0.4, reason: 'The move is below its expected range; nothing found explains it.' });
  });

  it('follows the effect\'s interval for a question only about a what-if, and is low when the lever has no estimate', () => {
    const spend = generateDaily({ start, days: 400, level: 700, seed: 23, noise: 0.2 });
    const parcels = spend.map((p, i) => ({ t: p.t, value: 3_000 * (p.value / 700) ** 0.4 * (1 + 0.03 * Math.sin(i / 2)) }));
    const catalog = [{ name: 'parcels', drivers: [{ metric: 'courier_spend' }] }, { name: 'courier_spend' }];
    const series = [{ name: 'parcels', labels: {}, points: parcels }, { name: 'courier_spend', labels: {}, points: spend }];
    const f = analyse({ question: 'What if we raise courier spend by 25%?', catalog, series, now });
    const e = f.whatIf!.effect!;
    const width = Math.abs(e.p90 - e.p10) / Math.abs(e.p50);
    const c = analysisConfidence(f);
    expect(c.value).toBeCloseTo(Math.round(Math.max(0.3, 0.8 - 0.5 * width) * 100) / 100, 2);
    expect(c.reason).toMatch(/^A what-if whose effect's p10–p90 spans \d+ % of its median, at an estimated elasticity of 0\.\d\d;/);
    // A lever with no data: no elasticity, no estimate.
    const none = analyse({ question: 'What if we raise weather_index by 25% for parcels?', catalog: [{ name: 'parcels' }, { name: 'weather_index' }], series: [series[0]!], now });
    expect(none.whatIf).toMatchObject({ metric: 'weather_index', change: 0.25 });
    expect(none.whatIf!.effect).toBeUndefined();
    expect(analysisConfidence(none)).toEqual({ value: 0.2, reason: 'The what-if has no estimate: weather_index is not a declared driver of parcels and no elasticity could be estimated.' });
  });

  it('is high for a false premise judged against an expected range', () => {
    const points = generateDaily({ start, days: 400, level: 3000, seed: 12 }, (d) => (d >= '2026-11-09' ? 1.2 : 1));
    const f = analyse({ question: 'Why did renewals drop last week?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points }], now });
    expect(f.premise!.verdict).toBe('false-premise');
    expect(analysisConfidence(f).value).toBe(0.85);
  });

  it('is 0.2 when nothing was analysed', () => {
    const f = analyse({ question: 'Why did refunds rise?', catalog: [{ name: 'renewals' }], series: [], now });
    expect(f.status).toBe('unknown-metric');
    expect(analysisConfidence(f)).toEqual({ value: 0.2, reason: 'Nothing was analysed: no metric of the catalog matches "refunds".' });
  });

  it('follows the forecast band\'s width for a question only about the future', () => {
    const calm = analyse({ question: 'Where are renewals heading next month?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points: generateDaily({ start, days: 400, level: 3000, seed: 4, noise: 0.01 }) }], now });
    const wild = analyse({ question: 'Where are renewals heading next month?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points: generateDaily({ start, days: 400, level: 3000, seed: 4, noise: 0.4 }) }], now });
    expect(calm.forecast && wild.forecast).toBeDefined();
    expect(analysisConfidence(calm).value).toBeGreaterThan(analysisConfidence(wild).value);
    expect(analysisConfidence(calm).reason).toMatch(/^A forecast \(.+\) whose p10–p90 spans \d+(\.\d)? % of its median/);
  });
});
