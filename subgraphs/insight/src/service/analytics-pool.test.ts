import { afterAll, describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { forecast } from '../engine/forecast.js';
import { simulate } from '../engine/simulate.js';
import { demoSeries } from '../domain/demo-series.js';
import { threadAnalytics } from './analytics-pool.js';

const analytics = threadAnalytics({ maxThreads: 1 });
afterAll(() => analytics.close());

const revenue = demoSeries(new Date('2026-11-23T00:00:00Z'), seededRandom(7)).find((s) => s.name === 'revenue')!.points;

describe('analytics on worker threads', () => {
  it('gives exactly what the same computation gives in the calling thread', async () => {
    const threaded = await analytics.forecast(revenue, 14);
    expect(threaded).toEqual(forecast(revenue, 14));
    const scenario = { driverChange: 0.2, elasticity: { value: 0.25, standardError: 0.05 }, runs: 500, seed: 3 };
    expect(await analytics.simulate(threaded.points, scenario)).toEqual(simulate(threaded.points, scenario, seededRandom(3)));
  });

  it('passes a fit\'s RangeError on by name and message, so callers still answer 422', async () => {
    await expect(analytics.forecast(revenue.slice(0, 3), 7)).rejects.toMatchObject({ name: 'RangeError', message: expect.stringContaining('10') });
  });

  it('leaves the event loop free while a forecast runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all([analytics.forecast(revenue, 60), analytics.forecast(revenue, 90)]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });
});
