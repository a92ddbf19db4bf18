import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, openDatabase, type MikroORM } from '@svc/kit';
import { createMetricStore, type MetricStore } from '@svc/insight/store/metric-store';
import { INSIGHT_ENTITIES } from '@svc/insight/store/entities';
import { INSIGHT_MIGRATIONS } from '@svc/insight/store/migrations';
import { createTestDatabase } from './support/services.js';

/**
 * The store's daily values on real PostgreSQL, what an analysis reads (one grouped query per
 * request): each series' day by sum, avg or last, then a total added up or averaged, or the
 * labelled series one by one, or each label value's total (parts); a stored total is never added
 * to its own parts.
 */

const DAY = 86_400_000;
const D1 = Date.UTC(2026, 10, 2);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let store: MetricStore;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openDatabase({ url: db.url, schema: 'insight', entities: INSIGHT_ENTITIES, migrations: INSIGHT_MIGRATIONS, poolMax: 4, log: createLogger({ level: 'silent' }) });
  store = createMetricStore(orm);
  // Two points a day (06:00 and 18:00) for two days, per region; and a metric with its own stored total.
  const twice = (day: number, morning: number, evening: number) => [{ t: day + 6 * 3_600_000, value: morning }, { t: day + 18 * 3_600_000, value: evening }];
  await store.ingest('t1', [
    { name: 'queue_depth', labels: { region: 'north' }, points: [...twice(D1, 10, 20), ...twice(D1 + DAY, 30, 40)] },
    { name: 'queue_depth', labels: { region: 'south' }, points: [...twice(D1, 1, 3), ...twice(D1 + DAY, 5, 7)] },
    { name: 'queue_depth', labels: { region: 'north' }, points: [{ t: D1 + DAY + 7 * 3_600_000, value: 35 }] },
    { name: 'tickets', labels: {}, points: [{ t: D1, value: 100 }] },
    { name: 'tickets', labels: { team: 'a' }, points: [{ t: D1, value: 60 }] },
    { name: 'tickets', labels: { team: 'b' }, points: [{ t: D1, value: 30 }] },
    { name: 'visits', labels: { source: 'search', device: 'mobile' }, points: [...twice(D1, 1, 2), ...twice(D1 + DAY, 3, 4)] },
    { name: 'visits', labels: { source: 'search', device: 'desktop' }, points: twice(D1, 10, 20) },
    { name: 'visits', labels: { source: 'email', device: 'mobile' }, points: [...twice(D1, 100, 200), ...twice(D1 + DAY, 300, 400)] },
    { name: 'visits', labels: { device: 'tv' }, points: twice(D1, 1000, 1000) },
  ]);
  await store.ingest('t2', [
    { name: 'queue_depth', labels: { region: 'north' }, points: [{ t: D1, value: 1000 }] },
    { name: 'visits', labels: { source: 'search', device: 'mobile' }, points: [{ t: D1, value: 5000 }] },
  ]);
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

const window = { from: new Date(D1), to: new Date(D1 + 2 * DAY) };
const values = (series: { points: { t: number; value: number }[] }[]) => series.map((s) => s.points.map((p) => [(p.t - D1) / DAY, p.value]));

describe('metric store daily values', () => {
  it('adds a total up day by day, averages it, or takes each series last value then averages', async () => {
    expect(values(await store.daily('t1', { name: 'queue_depth', labels: {}, ...window, how: 'sum', shape: 'total' }))).toEqual([[[0, 34], [1, 117]]]);
    expect(values(await store.daily('t1', { name: 'queue_depth', labels: {}, ...window, how: 'avg', shape: 'total' }))).toEqual([[[0, 8.5], [1, 20.5]]]);
    expect(values(await store.daily('t1', { name: 'queue_depth', labels: {}, ...window, how: 'last', shape: 'total' }))).toEqual([[[0, 11.5], [1, 23.5]]]);
  });

  it('returns each labelled series with its days, and only the tenant own', async () => {
    const leaves = await store.daily('t1', { name: 'queue_depth', labels: {}, ...window, how: 'sum', shape: 'leaves' });
    expect(leaves.map((l) => l.labels)).toEqual([{ region: 'north' }, { region: 'south' }]);
    expect(values(leaves)).toEqual([[[0, 30], [1, 105]], [[0, 4], [1, 12]]]);
    expect(values(await store.daily('t1', { name: 'queue_depth', labels: { region: 'south' }, ...window, how: 'sum', shape: 'total' }))).toEqual([[[0, 4], [1, 12]]]);
  });

  it('adds up each value of each label asked for as a part of its own, in one read, the tenant\'s own only', async () => {
    const parts = await store.daily('t1', { name: 'visits', labels: {}, ...window, how: 'sum', shape: 'parts', partLabels: ['source', 'device'] });
    expect(parts.map((p) => p.labels)).toEqual([{ device: 'desktop' }, { device: 'mobile' }, { device: 'tv' }, { source: 'email' }, { source: 'search' }]);
    expect(values(parts)).toEqual([
      [[0, 30]],
      [[0, 303], [1, 707]],
      [[0, 2000]],
      [[0, 300], [1, 700]],
      [[0, 33], [1, 7]],
    ]);
    // Averaged: each series' day first, then the part's mean of them.
    const mean = await store.daily('t1', { name: 'visits', labels: {}, ...window, how: 'avg', shape: 'parts', partLabels: ['source'] });
    expect(values(mean)).toEqual([[[0, 150], [1, 350]], [[0, (1.5 + 15) / 2], [1, 3.5]]]);
    expect(await store.daily('t1', { name: 'visits', labels: {}, ...window, how: 'sum', shape: 'parts', partLabels: [] })).toEqual([]);
    expect(await store.daily('t1', { name: 'visits', labels: {}, ...window, how: 'sum', shape: 'parts', partLabels: ['no_such_label'] })).toEqual([]);
  });

  it('reads a stored total as it is, never added to its parts', async () => {
    expect(values(await store.daily('t1', { name: 'tickets', labels: {}, ...window, how: 'sum', shape: 'total' }))).toEqual([[[0, 100]]]);
    expect((await store.daily('t1', { name: 'tickets', labels: {}, ...window, how: 'sum', shape: 'leaves' })).map((l) => l.labels)).toEqual([{ team: 'a' }, { team: 'b' }]);
    expect(await store.daily('t1', { name: 'nothing', labels: {}, ...window, how: 'sum', shape: 'total' })).toEqual([]);
  });
});
