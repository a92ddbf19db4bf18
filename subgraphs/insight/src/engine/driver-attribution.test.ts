import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit/random';
import { addDays } from './days.js';
import { attributeDriver, declaredElasticity, estimateLaggedElasticity } from './driver-attribution.js';
import { logMean } from './formula-attribution.js';

/** A driver that moves every day, and a subject that follows it `lag` days later with elasticity 0.7 and a weekly pattern. */
function pair(lag: number, days = 120) {
  const random = seededRandom(7);
  const driver = new Map<string, number>();
  const subject = new Map<string, number>();
  for (let i = 0; i < days; i++) driver.set(addDays('2026-07-01', i), 1000 * Math.exp(0.4 * (random() - 0.5)));
  for (let i = lag; i < days; i++) {
    const day = addDays('2026-07-01', i);
    subject.set(day, 50 * (1 + 0.2 * Math.sin((2 * Math.PI * i) / 7)) * driver.get(addDays(day, -lag))! ** 0.7);
  }
  return { driver, subject };
}

describe('estimateLaggedElasticity', () => {
  it('recovers the elasticity at the declared lag exactly on noise-free data', () => {
    const { driver, subject } = pair(3);
    const e = estimateLaggedElasticity(subject, driver, 3, '2026-12-01')!;
    expect(e.value).toBeCloseTo(0.7, 10);
    expect(e.p10).toBeCloseTo(0.7, 10);
    expect(e.p90).toBeCloseTo(0.7, 10);
    expect([e.observations, e.source]).toEqual([110, 'estimated']);
  });

  it('finds almost nothing at the wrong lag', () => {
    const { driver, subject } = pair(3);
    expect(Math.abs(estimateLaggedElasticity(subject, driver, 0, '2026-12-01')!.value)).toBeLessThan(0.25);
  });

  it('uses only days before `until`, and needs 20 pairs', () => {
    const { driver, subject } = pair(3);
    expect(estimateLaggedElasticity(subject, driver, 3, '2026-07-25')).toBeUndefined();
    expect(estimateLaggedElasticity(subject, driver, 3, '2026-08-05')!.observations).toBe(25);
  });
});

describe('attributeDriver', () => {
  it('maps the driver\'s log change through the elasticity with log-mean weights', () => {
    const a = attributeDriver({ metric: 'ad_clicks', lagDays: 2, elasticity: { value: 0.5, p10: 0.4, p90: 0.6, low95: 0.35, high95: 0.65, observations: 80, source: 'estimated' }, subjectBefore: 1000, subjectAfter: 800, driverBefore: 200, driverAfter: 100 });
    const w = logMean(800, 1000) * Math.log(0.5);
    expect(a.contribution).toBeCloseTo(w * 0.5, 10);
    expect([a.contributionP10, a.contributionP90]).toEqual([w * 0.6, w * 0.4]);
    expect(a.share).toBeCloseTo((w * 0.5) / -200, 12);
    expect([a.metric, a.labels, a.lagDays]).toEqual(['ad_clicks', {}, 2]);
  });

  it('explains a change fully when the subject moved exactly as the elasticity says', () => {
    const a = attributeDriver({ metric: 'x', lagDays: 0, elasticity: declaredElasticity(0.5), subjectBefore: 100, subjectAfter: 100 * 0.5 ** 0.5, driverBefore: 10, driverAfter: 5 });
    expect(a.share).toBeCloseTo(1, 12);
  });

  it('refuses values that are not positive', () => {
    expect(() => attributeDriver({ metric: 'x', lagDays: 0, elasticity: declaredElasticity(1), subjectBefore: 1, subjectAfter: 1, driverBefore: 0, driverAfter: 1 })).toThrow('x 0 → 1');
  });
});
