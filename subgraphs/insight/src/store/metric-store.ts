import type { MikroORM } from '@svc/kit';
import type { MetricDefinition } from '../domain/metric-definition.js';
import { upsertDefinitions } from './definition-store.js';
import { seriesKey, type Labels, type Point, type SeriesId } from '../domain/metric.js';

export interface StoredSeries extends SeriesId {
  id: string;
  unit: string | null;
  points: number;
  first: Date | null;
  last: Date | null;
}

export interface SeriesBatch extends SeriesId {
  unit?: string | undefined;
  points: readonly Point[];
}

type Row = Record<string, unknown>;
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));

function toSeries(r: Row): StoredSeries {
  return {
    id: String(r.id),
    name: String(r.name),
    labels: json<Labels>(r.labels),
    unit: (r.unit as string | null) ?? null,
    points: Number(r.points ?? 0),
    first: date(r.first_t),
    last: date(r.last_t),
  };
}

/**
 * A whole batch in one statement: every series upserted (created on first sight, its unit kept
 * unless a new one is given), then every point upserted against it (a time already stored takes
 * the new value). One round trip per request instead of two per series.
 */
const UPSERT_BATCH = `
with s as (
  insert into insight.metric_series (id, tenant_id, name, labels, labels_key, unit)
  select gen_random_uuid(), ?, x.name, x.labels, x.key, x.unit
    from jsonb_to_recordset(?::jsonb) as x(key text, name text, labels jsonb, unit text)
  on conflict (tenant_id, name, labels_key) do update set unit = coalesce(excluded.unit, insight.metric_series.unit)
  returning id, labels_key
)
insert into insight.metric_point (series_id, t, value)
select s.id, to_timestamp(p.t / 1000.0), p.v
  from jsonb_to_recordset(?::jsonb) as p(key text, t double precision, v double precision)
  join s on s.labels_key = p.key
on conflict (series_id, t) do update set value = excluded.value`;

/** Metric series and their points in the `insight` schema; every query is within one tenant. */
export function createMetricStore(orm: MikroORM) {
  return {
    /**
     * Writes every series of the batch in one transaction: a series is created on first sight
     * (name + labels), a point at an existing time replaces the old value; definitions given
     * (by `by`) replace the metrics' stored ones. All or nothing.
     */
    async ingest(tenantId: string, batch: readonly SeriesBatch[], definitions: { by: string; list: readonly { name: string; definition: MetricDefinition }[] } = { by: '', list: [] }): Promise<{ series: number; points: number }> {
      // A series met twice in the batch is one series, and a time met twice keeps its last value
      // (one statement cannot update a row twice).
      const merged = new Map<string, { name: string; labels: Labels; unit: string | null; points: Map<number, number> }>();
      let points = 0;
      for (const s of batch) {
        const key = seriesKey(s);
        const entry = merged.get(key) ?? { name: s.name, labels: s.labels, unit: null, points: new Map<number, number>() };
        if (s.unit) entry.unit = s.unit;
        for (const p of s.points) entry.points.set(p.t, p.value);
        merged.set(key, entry);
        points += s.points.length;
      }
      const seriesRows = [...merged].map(([key, e]) => ({ key, name: e.name, labels: e.labels, unit: e.unit }));
      const pointRows = [...merged].flatMap(([key, e]) => [...e.points].map(([t, v]) => ({ key, t, v })));
      await orm.em.fork().transactional(async (em) => {
        if (seriesRows.length) await em.execute(UPSERT_BATCH, [tenantId, JSON.stringify(seriesRows), JSON.stringify(pointRows)]);
        if (definitions.list.length) await upsertDefinitions(em, tenantId, definitions.by, definitions.list);
      });
      return { series: batch.length, points };
    },

    /** Every series with its point count and time range, by name then labels. */
    async list(tenantId: string, name?: string): Promise<StoredSeries[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select s.id, s.name, s.labels, s.unit, count(p.t) as points, min(p.t) as first_t, max(p.t) as last_t
           from insight.metric_series s left join insight.metric_point p on p.series_id = s.id
          where s.tenant_id = ? and (?::text is null or s.name = ?)
          group by s.id order by s.name, s.labels_key`,
        [tenantId, name ?? null, name ?? null],
      );
      return rows.map(toSeries);
    },

    /** Every series' name, labels and unit, without counting points (for planning). */
    async names(tenantId: string): Promise<{ name: string; labels: Labels; unit: string | null }[]> {
      const rows = await orm.em.fork().execute<Row[]>('select name, labels, unit from insight.metric_series where tenant_id = ? order by name, labels_key', [tenantId]);
      return rows.map((r) => ({ name: String(r.name), labels: json<Labels>(r.labels), unit: (r.unit as string | null) ?? null }));
    },

    /** Series of `name` carrying every label of `labels`. */
    async find(tenantId: string, name: string, labels: Labels): Promise<StoredSeries[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select s.id, s.name, s.labels, s.unit from insight.metric_series s where s.tenant_id = ? and s.name = ? and s.labels @> ?::jsonb order by s.labels_key`,
        [tenantId, name, JSON.stringify(labels)],
      );
      return rows.map(toSeries);
    },

    /**
     * Deletes the tenant's series of `name` carrying every label of `labels` (all of them with
     * `{}`), with their points; returns how many series and points went.
     */
    async remove(tenantId: string, name: string, labels: Labels): Promise<{ series: number; points: number }> {
      const rows = await orm.em.fork().execute<Row[]>(
        `with gone as (
           delete from insight.metric_series s where s.tenant_id = ? and s.name = ? and s.labels @> ?::jsonb returning s.id
         )
         select (select count(*) from gone) as series,
                (select count(*) from insight.metric_point p where p.series_id in (select id from gone)) as points`,
        [tenantId, name, JSON.stringify(labels)],
      );
      return { series: Number(rows[0]?.series ?? 0), points: Number(rows[0]?.points ?? 0) };
    },

    /** Points of one series in [from, to), oldest first, at most `limit`. */
    async points(seriesId: string, from: Date, to: Date, limit: number): Promise<Point[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select (extract(epoch from t) * 1000)::float8 as t, value from insight.metric_point
          where series_id = ? and t >= ? and t < ? order by t limit ?`,
        [seriesId, from, to, limit],
      );
      return rows.map((r) => ({ t: Number(r.t), value: Number(r.value) }));
    },

    /** True when the tenant has no series yet (the demo seed runs only then). */
    async isEmpty(tenantId: string): Promise<boolean> {
      const rows = await orm.em.fork().execute<Row[]>('select 1 from insight.metric_series where tenant_id = ? limit 1', [tenantId]);
      return rows.length === 0;
    },
  };
}

export type MetricStore = ReturnType<typeof createMetricStore>;
