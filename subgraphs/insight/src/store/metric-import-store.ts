import type { NativeSql } from '@svc/kit';
import type { ImportPoint, ImportSeries } from '../domain/metric-import.js';

/** Points staged per statement: arrays of this many rows go to PostgreSQL as four parameters. */
const STAGE_ROWS = 20_000;

/**
 * A whole file of points in one transaction on one connection: the points are staged in a
 * temporary table as they are read (arrays bound as parameters, `unnest` on the server: the
 * same statement on PostgreSQL and the embedded PGlite), then the file's series are upserted and
 * its points written against them in one statement each. All or nothing: a problem found while
 * reading rolls everything back. A time met twice for a series keeps the value of the later line.
 */
export function createMetricImportStore(sql: NativeSql) {
  return {
    async importFile(
      tenantId: string,
      read: (stage: (points: readonly ImportPoint[]) => Promise<void>) => Promise<readonly ImportSeries[]>,
    ): Promise<{ series: number; points: number }> {
      return sql.transaction(async (query) => {
        await query('create temporary table import_point (key text not null, t float8 not null, value float8 not null, line int not null) on commit drop');
        const stage = async (points: readonly ImportPoint[]) => {
          for (let i = 0; i < points.length; i += STAGE_ROWS) {
            const chunk = points.slice(i, i + STAGE_ROWS);
            await query('insert into import_point (key, t, value, line) select * from unnest($1::text[], $2::float8[], $3::float8[], $4::int[])', [
              chunk.map((p) => p.key), chunk.map((p) => p.t), chunk.map((p) => p.value), chunk.map((p) => p.line),
            ]);
          }
        };
        const series = await read(stage);
        if (!series.length) return { series: 0, points: 0 };
        for (let i = 0; i < series.length; i += STAGE_ROWS) {
          const chunk = series.slice(i, i + STAGE_ROWS);
          await query(
            `insert into insight.metric_series (id, tenant_id, name, labels, labels_key, unit)
             select gen_random_uuid(), $1, x.name, x.labels, x.key, x.unit from jsonb_to_recordset($2::jsonb) as x(key text, name text, labels jsonb, unit text)
             on conflict (tenant_id, name, labels_key) do update set unit = coalesce(excluded.unit, insight.metric_series.unit)`,
            [tenantId, JSON.stringify(chunk)],
          );
        }
        // The points written are counted as they are written: no second pass over the staged ones.
        const [{ n }] = (await query(
          `with written as (
             insert into insight.metric_point (series_id, t, value)
             select s.id, to_timestamp(p.t / 1000.0), p.value
               from (select distinct on (key, t) key, t, value from import_point order by key, t, line desc) p
               join insight.metric_series s on s.tenant_id = $1 and s.labels_key = p.key
             on conflict (series_id, t) do update set value = excluded.value
             returning 1)
           select count(*)::int as n from written`,
          [tenantId],
        )) as { n: number }[];
        return { series: series.length, points: n! };
      });
    },
  };
}

export type MetricImportStore = ReturnType<typeof createMetricImportStore>;
