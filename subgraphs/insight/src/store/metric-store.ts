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

/** A metric of many series, summed up (metric-store.ts `summaries`). */
export interface MetricSummary {
  name: string;
  unit: string | null;
  points: number;
  first: Date | null;
  last: Date | null;
  labelValues: Record<string, string[]>;
  labelValueCounts: Record<string, number>;
}

/** A stored series with its points of a window. */
export type WithPoints = Omit<StoredSeries, 'points' | 'first' | 'last'> & { points: Point[] };

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
  returning tenant_id, id, labels_key
)
insert into insight.metric_point (tenant_id, series_id, t, value)
select s.tenant_id, s.id, to_timestamp(p.t / 1000.0), p.v
  from jsonb_to_recordset(?::jsonb) as p(key text, t double precision, v double precision)
  join s on s.labels_key = p.key
on conflict (tenant_id, series_id, t) do update set value = excluded.value`;

/** How a day's points of one series become its daily value, in SQL (bucket `day`, ordered by `t` within it). */
const DAILY_VALUE = { sum: 'sum(p.value)', avg: 'avg(p.value)', last: '(array_agg(p.value order by p.t desc))[1]' } as const;
export type DailyAggregation = keyof typeof DAILY_VALUE;

/** A total asked for by exactly the labels of a stored series is that series (a stored total is never added to its own parts). */
const OWN_TOTAL = `
           and (s.labels = ?::jsonb or not exists (select 1 from insight.metric_series x where x.tenant_id = ? and x.name = ? and x.labels = ?::jsonb))`;

/** A series' daily values, as one row per series: its labels and the days' starts and values, in day order. */
export interface DailySeries {
  labels: Labels;
  points: Point[];
}

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

    /** Every series with its point count and time range, by name then labels; only those of `names` when given. */
    async list(tenantId: string, names?: readonly string[]): Promise<StoredSeries[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select s.id, s.name, s.labels, s.unit, count(p.t) as points, min(p.t) as first_t, max(p.t) as last_t
           from insight.metric_series s left join insight.metric_point p on p.tenant_id = s.tenant_id and p.series_id = s.id
          where s.tenant_id = ? and (?::jsonb is null or s.name in (select jsonb_array_elements_text(?::jsonb)))
          group by s.tenant_id, s.id order by s.name, s.labels_key`,
        [tenantId, names ? JSON.stringify(names) : null, names ? JSON.stringify(names) : null],
      );
      return rows.map(toSeries);
    },

    /** How many series each metric has. */
    async seriesCounts(tenantId: string): Promise<Map<string, number>> {
      const rows = await orm.em.fork().execute<Row[]>('select name, count(*)::int as n from insight.metric_series where tenant_id = ? group by name', [tenantId]);
      return new Map(rows.map((r) => [String(r.name), Number(r.n)]));
    },

    /**
     * Metrics of many series, each summed up where the data is: its points, first and last time,
     * and each label's values (the first `valuesListed`, sorted) with how many there are.
     */
    async summaries(tenantId: string, names: readonly string[], valuesListed: number): Promise<MetricSummary[]> {
      const list = JSON.stringify(names);
      const [totals, labels] = await Promise.all([
        orm.em.fork().execute<Row[]>(
          `select s.name, min(s.unit) as unit, count(p.t) as points, min(p.t) as first_t, max(p.t) as last_t
             from insight.metric_series s left join insight.metric_point p on p.tenant_id = s.tenant_id and p.series_id = s.id
            where s.tenant_id = ? and s.name in (select jsonb_array_elements_text(?::jsonb)) group by s.name order by s.name`,
          [tenantId, list],
        ),
        orm.em.fork().execute<Row[]>(
          `select s.name, l.key, count(distinct l.value)::int as n, (array_agg(distinct l.value order by l.value))[1:?::int] as vals
             from insight.metric_series s cross join lateral jsonb_each_text(s.labels) l
            where s.tenant_id = ? and s.name in (select jsonb_array_elements_text(?::jsonb)) group by s.name, l.key order by s.name, l.key`,
          [valuesListed, tenantId, list],
        ),
      ]);
      return totals.map((r) => {
        const mine = labels.filter((l) => l.name === r.name);
        return {
          name: String(r.name),
          unit: (r.unit as string | null) ?? null,
          points: Number(r.points ?? 0),
          first: date(r.first_t),
          last: date(r.last_t),
          labelValues: Object.fromEntries(mine.map((l) => [String(l.key), json<string[]>(l.vals)])),
          labelValueCounts: Object.fromEntries(mine.map((l) => [String(l.key), Number(l.n)])),
        };
      });
    },

    /**
     * What planning reads of the series, without counting points: for every metric, each label
     * value its series carry (the first `valuesPerLabel` of each label, in order), as one entry
     * `{ name, labels: { label: value }, unit }`, and a metric without labels as one entry with none.
     * Grouped where the data is: 100,000 series over 4 labels come to Node as their 91 values.
     */
    async names(tenantId: string, valuesPerLabel = 200): Promise<{ name: string; labels: Labels; unit: string | null }[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select name, unit, key, value from (
           select s.name, min(s.unit) as unit, l.key, l.value, row_number() over (partition by s.name, l.key order by l.value) as n
             from insight.metric_series s left join lateral jsonb_each_text(s.labels) l on true
            where s.tenant_id = ? group by s.name, l.key, l.value) x
          where n <= ? order by name, key, value`,
        [tenantId, valuesPerLabel],
      );
      return rows.map((r) => ({ name: String(r.name), labels: r.key === null ? {} : { [String(r.key)]: String(r.value) }, unit: (r.unit as string | null) ?? null }));
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
         ), points as (
           delete from insight.metric_point p where p.tenant_id = ? and p.series_id in (select id from gone) returning 1
         )
         select (select count(*) from gone) as series, (select count(*) from points) as points`,
        [tenantId, name, JSON.stringify(labels), tenantId],
      );
      return { series: Number(rows[0]?.series ?? 0), points: Number(rows[0]?.points ?? 0) };
    },

    /**
     * Every series of `name` carrying every label of `labels`, each with its points in [from, to),
     * oldest first, at most `limit` a series: one statement whatever the number of series.
     */
    async seriesWithPoints(tenantId: string, name: string, labels: Labels, from: Date, to: Date, limit: number): Promise<WithPoints[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select s.id, s.name, s.labels, s.unit, (extract(epoch from p.t) * 1000)::float8 as t, p.value
           from insight.metric_series s
           left join lateral (select t, value from insight.metric_point where tenant_id = s.tenant_id and series_id = s.id and t >= ? and t < ? order by t limit ?) p on true
          where s.tenant_id = ? and s.name = ? and s.labels @> ?::jsonb
          order by s.labels_key, p.t`,
        [from, to, limit, tenantId, name, JSON.stringify(labels)],
      );
      const out: WithPoints[] = [];
      for (const r of rows) {
        let last = out[out.length - 1];
        if (!last || last.id !== String(r.id)) {
          const { points: _count, first: _first, last: _last, ...series } = toSeries(r);
          out.push((last = { ...series, points: [] }));
        }
        if (r.t !== null && r.t !== undefined) last.points.push({ t: Number(r.t), value: Number(r.value) });
      }
      return out;
    },

    /**
     * Daily values (UTC days) of the tenant's series of `name` carrying every label of `labels`,
     * within [from, to), aggregated where the data is: each series' points become one value a day
     * (`how`), then, for `shape` `total`, the series are added up (sum) or averaged (avg, last)
     * day by day into one series; for `leaves`, each labelled series comes back on its own, and
     * with `windows` only for the days within them (an analysis reads leaves for the two periods
     * it compares), the first `limit` of them when given. One statement whatever the number of series, so an analysis's queries do not
     * grow with them, and only daily values cross into Node.
     */
    async daily(tenantId: string, query: { name: string; labels: Labels; from: Date; to: Date; how: DailyAggregation; shape: 'total' | 'leaves' | 'parts'; partLabels?: readonly string[]; windows?: readonly { from: Date; to: Date }[]; limit?: number }): Promise<DailySeries[]> {
      if (query.shape === 'parts') return this.parts(tenantId, { ...query, partLabels: query.partLabels ?? [] });
      const windows = query.windows?.length ? ` and (${query.windows.map(() => '(p.t >= ? and p.t < ?)').join(' or ')})` : '';
      const matching = `from insight.metric_point p join insight.metric_series s on s.tenant_id = p.tenant_id and s.id = p.series_id
         where p.tenant_id = ? and s.name = ? and s.labels @> ?::jsonb and p.t >= ? and p.t < ?${windows}${query.shape === 'total' ? OWN_TOTAL : ''}`;
      const day = 'floor(extract(epoch from p.t) / 86400)::int';
      const perDay = `select p.series_id, ${day} as day, ${DAILY_VALUE[query.how]} as v ${matching} group by 1, 2`;
      const labels = JSON.stringify(query.labels);
      const params = [tenantId, query.name, labels, query.from, query.to, ...(query.windows ?? []).flatMap((w) => [w.from, w.to]), ...(query.shape === 'total' ? [labels, tenantId, query.name, labels] : [])];
      if (query.shape === 'total') {
        // A sum of sums is one sum: grouped by day alone (a third of the time of grouping by series and day first).
        const sql = query.how === 'sum'
          ? `select ${day} as day, sum(p.value) as v ${matching} group by 1 order by 1`
          : `with d as (${perDay}) select day, avg(v) as v from d group by day order by day`;
        const rows = await orm.em.fork().execute<Row[]>(sql, params);
        return rows.length ? [{ labels: query.labels, points: rows.map((r) => ({ t: Number(r.day) * 86_400_000, value: Number(r.v) })) }] : [];
      }
      const rows = await orm.em.fork().execute<Row[]>(
        `with d as (${perDay})
         select s.labels, array_agg(d.day order by d.day) as days, array_agg(d.v order by d.day) as vs
           from d join insight.metric_series s on s.tenant_id = ? and s.id = d.series_id
          where s.labels <> '{}'::jsonb
          group by s.id, s.labels, s.labels_key order by s.labels_key${query.limit ? ' limit ?' : ''}`,
        [...params, tenantId, ...(query.limit ? [query.limit] : [])],
      );
      return rows.map((r) => {
        const days = json<number[]>(r.days);
        const values = json<number[]>(r.vs);
        return { labels: json<Labels>(r.labels), points: days.map((day, i) => ({ t: Number(day) * 86_400_000, value: Number(values[i]) })) };
      });
    },

    /**
     * The daily total of each value of each label in `partLabels` (one label at a time: every
     * series of `name` carrying `region=EU`, added up or averaged by `how`), within [from, to):
     * one series per label value, labelled with that one label. One grouped statement, so the
     * parts of a metric of any number of series cost one query and only their daily values
     * cross into Node; labels whose values are too many to be parts are left to the caller to skip.
     */
    async parts(tenantId: string, query: { name: string; from: Date; to: Date; how: DailyAggregation; partLabels: readonly string[] }): Promise<DailySeries[]> {
      const keys = query.partLabels;
      if (!keys.length) return [];
      const day = 'floor(extract(epoch from p.t) / 86400)::int';
      const combo = keys.map((_, i) => `k${i}`);
      // Each series' values of the labels asked for, read once per series, not once per point.
      const series = `select id, ${keys.map((_, i) => `labels ->> ? as k${i}`).join(', ')} from insight.metric_series where tenant_id = ? and name = ?`;
      // One pass over the points: the daily sums (for a mean: each series' day first, then sum and count) per combination of those values.
      const combos = query.how === 'sum'
        ? `select ${combo.map((k) => `s.${k}`).join(', ')}, ${day} as day, sum(p.value) as v, 1 as n
             from insight.metric_point p join s on s.id = p.series_id
            where p.tenant_id = ? and p.t >= ? and p.t < ? group by ${combo.map((k) => `s.${k}`).join(', ')}, ${day}`
        : `select ${combo.map((k) => `s.${k}`).join(', ')}, d.day, sum(d.v) as v, count(*) as n
             from (select p.series_id, ${day} as day, ${DAILY_VALUE[query.how]} as v from insight.metric_point p join s on s.id = p.series_id
                    where p.tenant_id = ? and p.t >= ? and p.t < ? group by 1, 2) d
             join s on s.id = d.series_id group by ${combo.map((k) => `s.${k}`).join(', ')}, d.day`;
      // Then each label's values from the combinations (far fewer rows than points).
      const rows = await orm.em.fork().execute<Row[]>(
        `with s as (${series}), c as (${combos}),
         g as (select k.i, (array[${combo.map((k) => `c.${k}`).join(', ')}])[k.i] as value, c.day, sum(c.v) as v, sum(c.n) as n
                 from c cross join generate_series(1, ${keys.length}) as k(i) group by 1, 2, 3)
         select i, value, array_agg(day order by day) as days, array_agg(${query.how === 'sum' ? 'v' : 'v / n'} order by day) as vs
           from g where value is not null group by i, value order by i, value`,
        [...keys, tenantId, query.name, tenantId, query.from, query.to],
      );
      const out = rows.map((r) => {
        const days = json<number[]>(r.days);
        const values = json<number[]>(r.vs);
        return { labels: { [keys[Number(r.i) - 1]!]: String(r.value) }, points: days.map((d, i) => ({ t: Number(d) * 86_400_000, value: Number(values[i]) })) };
      });
      // In label order, then value order, whatever order the labels were asked in.
      return out.sort((a, b) => {
        const [ka, va] = Object.entries(a.labels)[0]!;
        const [kb, vb] = Object.entries(b.labels)[0]!;
        return ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0;
      });
    },

    /** Whether the tenant has a series of `name` (one row read, whatever the number of series). */
    async has(tenantId: string, name: string): Promise<boolean> {
      return (await orm.em.fork().execute<Row[]>('select 1 from insight.metric_series where tenant_id = ? and name = ? limit 1', [tenantId, name])).length > 0;
    },

    /** True when the tenant has no series yet (the demo seed runs only then). */
    async isEmpty(tenantId: string): Promise<boolean> {
      const rows = await orm.em.fork().execute<Row[]>('select 1 from insight.metric_series where tenant_id = ? limit 1', [tenantId]);
      return rows.length === 0;
    },
  };
}

export type MetricStore = ReturnType<typeof createMetricStore>;
