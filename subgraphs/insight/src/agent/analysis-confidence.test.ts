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

  it('is high for a false premise judged against an expected range', () => {
    const points = generateDaily({ start, days: 400, level: 3000, seed: 12 }, (d) => (d >= '2026-11-09' ? 1.2 : 1));
    const f = analyse({ question: 'Why did renewals drop last week?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points }], now });
    expect(f.premise!.verdict).toBe('false-premise');
    expect(analysisConfidence(f).value).toBe(0.85);
  });

  it('is 0.2 when nothing was analysed', () => {
    const f = analyse({ question: 'Why did refunds rise?', catalog: [{ name: 'renewals' }], series: [], now });
    expect(f.status).toBe('unknown-metric');
    expect(analysisConfidence(f)).toEqual({ value: 0.2, reason: 'Nothing was analysed: no metric of the catalog matches the question.' });
  });

  it('follows the forecast band\'s width for a question only about the future', () => {
    const calm = analyse({ question: 'Where are renewals heading next month?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points: generateDaily({ start, days: 400, level: 3000, seed: 4, noise: 0.01 }) }], now });
    const wild = analyse({ question: 'Where are renewals heading next month?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points: generateDaily({ start, days: 400, level: 3000, seed: 4, noise: 0.4 }) }], now });
    expect(calm.forecast && wild.forecast).toBeDefined();
    expect(analysisConfidence(calm).value).toBeGreaterThan(analysisConfidence(wild).value);
    expect(analysisConfidence(calm).reason).toMatch(/^A forecast \(.+\) whose p10–p90 spans \d+(\.\d)? % of its median/);
  });
});
