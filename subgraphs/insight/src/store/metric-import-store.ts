import { randomUUIDv7 } from 'node:crypto';
import { BinaryCopyRows, uuidBytes, type CopyFrom, type NativeQuery, type NativeSql } from '@svc/kit';
import type { ImportSeries, PointBatch } from '../domain/metric-import.js';

/** PostgreSQL's unique_violation: a point's series and time are already stored (or named twice). */
const UNIQUE_VIOLATION = '23505';

/** Points written by one import from which the planner's statistics are refreshed after it. */
const REFRESH_STATISTICS_AT = 50_000;

/** Rows encoded before a chunk is handed to the COPY. */
const CHUNK_ROWS = 10_000;

/**
 * A batch in binary COPY rows (kit `BinaryCopyRows`): tenant, series id, time, value, and with
 * `line` the line it came from. The server parses nothing, which halves what a point costs it.
 */
async function* binaryRows(batch: PointBatch, tenant: Buffer, ids: readonly Buffer[], line: boolean): AsyncGenerator<Buffer> {
  const rows = new BinaryCopyRows();
  for (let i = 0; i < batch.length; i++) {
    rows.row(line ? 5 : 4).bytes(tenant).bytes(ids[batch.series[i]!]!).timestamptz(batch.t[i]!).float8(batch.value[i]!);
    if (line) rows.int4(batch.line[i]!);
    if ((i + 1) % CHUNK_ROWS === 0) yield rows.take();
  }
  yield rows.end();
}

/**
 * `copy` under a savepoint; when it meets a row already stored (unique_violation), the copy is
 * undone and `instead` runs, in the same transaction as if the copy had not been tried.
 */
async function copyElse(query: NativeQuery, copy: () => Promise<void>, instead: () => Promise<void>): Promise<void> {
  await query('savepoint copy');
  try {
    await copy();
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await query('rollback to savepoint copy');
    await instead();
  }
  await query('release savepoint copy');
}

/** The series in binary COPY rows, each with the id made for it. */
async function* seriesRows(tenantId: string, fresh: readonly ImportSeries[], made: readonly Buffer[]): AsyncGenerator<Buffer> {
  const rows = new BinaryCopyRows();
  fresh.forEach((s, i) => {
    rows.row(6).bytes(made[i]!).text(tenantId).text(s.name).jsonb(JSON.stringify(s.labels)).text(s.key);
    if (s.unit === null) rows.null();
    else rows.text(s.unit);
  });
  yield rows.end();
}

/**
 * The series met first since the last batch, stored, their ids recorded by series number. New
 * series (the usual case) are copied with ids made here; if one already exists the copy stops
 * and they are upserted instead (created, or their unit kept unless a new one is given).
 */
async function storeSeries(query: NativeQuery, copyFrom: CopyFrom, tenantId: string, fresh: readonly ImportSeries[], ids: Buffer[]): Promise<void> {
  if (!fresh.length) return;
  const made = fresh.map(() => uuidBytes(randomUUIDv7()));
  const copy = async () => {
    await copyFrom('insight.metric_series', ['id', 'tenant_id', 'name', 'labels', 'labels_key', 'unit'], seriesRows(tenantId, fresh, made), { binary: true });
    fresh.forEach((s, i) => (ids[s.no] = made[i]!));
  };
  await copyElse(query, copy, async () => {
    const byKey = new Map(fresh.map((s) => [s.key, s.no]));
    const rows = await query<{ id: string; labels_key: string }>(
      `insert into insight.metric_series (id, tenant_id, name, labels, labels_key, unit)
       select gen_random_uuid(), $1, x.name, x.labels, x.key, x.unit from jsonb_to_recordset($2::jsonb) as x(key text, name text, labels jsonb, unit text)
       on conflict (tenant_id, name, labels_key) do update set unit = coalesce(excluded.unit, insight.metric_series.unit)
       returning id, labels_key`,
      [tenantId, JSON.stringify(fresh.map(({ key, name, labels, unit }) => ({ key, name, labels, unit })))],
    );
    for (const r of rows) ids[byKey.get(r.labels_key)!] = uuidBytes(r.id);
  });
}

/**
 * A whole file of points in one transaction on one connection, written a batch at a time while
 * Node reads the next (the database writes one batch while the next is parsed). For each batch,
 * the series met first in it are stored, then its points go straight into the points table, both
 * by binary COPY (`COPY FROM STDIN` on PostgreSQL, PGlite's own `COPY FROM` on the embedded
 * database; kit `CopyFrom`). All or nothing: a problem found while reading rolls everything back.
 * `series` is the reader's list of the file's series, which grows as batches are read.
 */
export function createMetricImportStore(sql: NativeSql) {
  return {
    async importFile(tenantId: string, points: AsyncIterable<PointBatch>, series: readonly ImportSeries[]): Promise<{ series: number; points: number }> {
      const outcome = await sql.transaction(async (query, copyFrom) => {
        const tenant = Buffer.from(tenantId, 'utf8');
        const ids: Buffer[] = [];
        let staging = false;
        let upserted = 0;
        let written = 0;
        const writeBatch = async (batch: PointBatch) => {
          // Most batches bring new points, each time of a series once: copied as they are. A point
          // already stored, or a time the file names twice, stops that copy at the first such row;
          // the batch is then staged and upserted, its later line winning (one statement may not
          // touch a row twice).
          const copy = async () => {
            await copyFrom('insight.metric_point', ['tenant_id', 'series_id', 't', 'value'], binaryRows(batch, tenant, ids, false), { binary: true });
            written += batch.length;
          };
          await copyElse(query, copy, async () => {
            if (!staging) await query('create temporary table import_point (tenant_id text, series_id uuid, t timestamptz, value float8, line int) on commit drop');
            staging = true;
            await copyFrom('import_point', ['tenant_id', 'series_id', 't', 'value', 'line'], binaryRows(batch, tenant, ids, true), { binary: true });
            const [{ n }] = await query<{ n: number }>(
              `with written as (
                 insert into insight.metric_point (tenant_id, series_id, t, value)
                 select distinct on (series_id, t) tenant_id, series_id, t, value from import_point order by series_id, t, line desc
                 on conflict (tenant_id, series_id, t) do update set value = excluded.value
                 returning 1)
               select count(*)::int as n from written`,
            );
            written += n!;
            await query('truncate import_point');
          });
        };
        const batches = points[Symbol.asyncIterator]();
        // The next batch is read while this one is written. Its failure (a bad line, the limits, a
        // client gone) can come before it is awaited: handled from the start, it is met at the
        // await below (or is moot when a write failed first), never an unhandled rejection that
        // ends the process.
        const readAhead = () => {
          const next = batches.next();
          next.catch(() => undefined);
          return next;
        };
        let next = readAhead();
        try {
          for (let read = await next; !read.done; read = await next) {
            // The series met up to this batch are known now; the next batch is read meanwhile.
            const fresh = series.slice(upserted);
            upserted = series.length;
            next = readAhead();
            await storeSeries(query, copyFrom, tenantId, fresh, ids);
            await writeBatch(read.value);
          }
        } catch (error) {
          await batches.return?.(undefined);
          throw error;
        }
        return { series: upserted, points: written };
      });
      // The planner's statistics are refreshed at once after a large import, so a question asked
      // right after it is planned on the data it asks about: with the statistics of before, a
      // read of 100,000 fresh series was planned as a few rows and took 21 s instead of 2. A small
      // sample (statistics target 20, not 100) plans those reads the same and takes a tenth of the
      // time (0.1 s instead of 1.3 s at 1.5 M points); autovacuum's own analysis refines it later.
      if (outcome.points >= REFRESH_STATISTICS_AT) {
        await sql.transaction(async (query) => {
          await query('set local default_statistics_target = 20');
          await query('analyze insight.metric_series, insight.metric_point');
        });
      }
      return outcome;
    },
  };
}

export type MetricImportStore = ReturnType<typeof createMetricImportStore>;
