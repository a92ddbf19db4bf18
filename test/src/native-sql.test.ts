import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinaryCopyRows, createLogger, nativeSql, openDatabase, startEmbeddedDatabase, uuidBytes, type EmbeddedDatabase, type MikroORM, type NativeSql } from '@svc/kit';
import pg from 'pg';
import { createTestDatabase } from './support/services.js';

/**
 * kit `nativeSql`: statements with bind parameters on the ORM's own pool (the gateway's lease
 * settlements run on it). A transaction is all or nothing, values arrive exactly as bound, and a
 * connection that dies inside a transaction is discarded rather than given back, so the pool
 * (two connections here) keeps serving.
 */

const log = createLogger({ level: 'silent' });
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let sql: NativeSql;
let admin: pg.Client;

const rows = async () => (await admin.query<{ note: string }>('select note from native_sql_t order by id')).rows.map((r) => r.note);

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openDatabase({ url: db.url, schema: 'native_sql', entities: [], migrations: [], poolMax: 2, log });
  sql = nativeSql(orm);
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('create table native_sql_t (id serial primary key, note text not null)');
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await orm?.close();
  await db?.drop();
});

describe('nativeSql', () => {
  it('binds values as they are and commits a transaction once its work returns', async () => {
    const note = `it's a "quote", a back\\slash, $1 and ? and ünïcödé`;
    const returned = await sql.transaction(async (tx) => {
      await tx('insert into native_sql_t (note) values ($1)', [note]);
      return tx<{ n: number }>('select count(*)::int as n from native_sql_t');
    });
    expect(returned).toEqual([{ n: 1 }]);
    expect(await rows()).toEqual([note]);
    expect(await sql.query<{ note: string }>('select note from native_sql_t where note = $1', [note])).toEqual([{ note }]);
  });

  it('rolls everything back when the work throws, and rethrows its error', async () => {
    const before = await rows();
    const failure = sql.transaction(async (tx) => {
      await tx('insert into native_sql_t (note) values ($1)', ['written then rolled back']);
      throw new Error('work failed');
    });
    await expect(failure).rejects.toThrow('work failed');
    const badStatement = sql.transaction(async (tx) => {
      await tx('insert into native_sql_t (note) values ($1)', ['also rolled back']);
      await tx('insert into native_sql_t (missing_column) values ($1)', ['x']);
    });
    await expect(badStatement).rejects.toThrow(/missing_column/);
    expect(await rows()).toEqual(before);
  });

  it('discards a connection that dies inside a transaction; the pool keeps serving', async () => {
    const before = await rows();
    const killed = sql.transaction(async (tx) => {
      await tx('insert into native_sql_t (note) values ($1)', ['cut off']);
      const [{ pid }] = await tx<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await tx('select 1');
    });
    await expect(killed).rejects.toThrow();
    expect(await rows()).toEqual(before);
    // More transactions than the pool has connections: a dead client given back would fail one.
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => sql.transaction(async (tx) => (await tx<{ v: number }>('select $1::int as v', [i]))[0]!.v)));
    expect(results).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

/**
 * `copyFrom` bulk-loads within a transaction: through COPY FROM STDIN on PostgreSQL, through
 * PGlite's own COPY FROM (a Blob at a time) on the embedded database, whose socket server cannot
 * carry the COPY sub-protocol. Either way the rows land exactly, in the transaction (a temporary
 * table of it is the target), and a source that fails half-way leaves nothing behind.
 */
describe.each(['postgres', 'embedded'] as const)('nativeSql copyFrom on %s', (kind) => {
  let dir: string | undefined;
  let embedded: EmbeddedDatabase | undefined;
  let copyOrm: MikroORM;
  let copySql: NativeSql;

  beforeAll(async () => {
    let url = db.url;
    if (kind === 'embedded') {
      dir = await mkdtemp(join(tmpdir(), 'svc-copy-'));
      embedded = await startEmbeddedDatabase(dir, log);
      url = embedded.url;
    }
    copyOrm = await openDatabase({ url, schema: 'native_copy', entities: [], migrations: [], poolMax: 2, log });
    copySql = nativeSql(copyOrm);
    await copySql.query('create table if not exists native_copy_t (n int primary key, v float8 not null, note text)');
  }, 180_000);
  afterAll(async () => {
    await copyOrm?.close();
    await embedded?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Rows 1..count as COPY text in chunks of 1,000 lines; the note of every seventh is null. */
  async function* lines(from: number, count: number, failAt?: number): AsyncGenerator<string> {
    let text = '';
    for (let n = from; n < from + count; n++) {
      if (n === failAt) throw new Error(`source failed at row ${n}`);
      text += `${n}\t${n / 8}\t${n % 7 === 0 ? '\\N' : `row ${n}`}\n`;
      if (n % 1000 === 0) {
        yield text;
        text = '';
      }
    }
    if (text) yield text;
  }

  it('loads every row exactly into a temporary table of the transaction, in chunks', async () => {
    const count = await copySql.transaction(async (query, copyFrom) => {
      await query('create temporary table staged (n int, v float8, note text) on commit drop');
      await copyFrom('staged', ['n', 'v', 'note'], lines(1, 25_000));
      return (await query<{ n: number }>('with w as (insert into native_copy_t select * from staged returning 1) select count(*)::int as n from w'))[0]!.n;
    });
    expect(count).toBe(25_000);
    const [summary] = await copySql.query<{ n: number; v: number; nulls: number; note: string }>(
      "select count(*)::int as n, sum(v)::float8 as v, count(*) filter (where note is null)::int as nulls, max(note) filter (where n = 24999) as note from native_copy_t",
    );
    expect(summary).toEqual({ n: 25_000, v: (25_000 * 25_001) / 2 / 8, nulls: Math.floor(25_000 / 7), note: 'row 24999' });
  });

  it('loads binary rows exactly: uuid, text with any character, null, jsonb, times before and after 2000, float8, int4', async () => {
    const rows = new BinaryCopyRows();
    const chunks: Buffer[] = [];
    const times = [Date.UTC(1969, 11, 31, 23, 59, 59, 999), Date.UTC(1999, 11, 31, 23, 59, 59, 1), Date.UTC(2026, 10, 28, 12, 0, 0, 123)];
    times.forEach((t, i) => {
      rows.row(6).bytes(uuidBytes(`0190f0a1-0000-7000-8000-00000000000${i}`)).text(`tab\there, "quote", back\\slash, ünï ${i}`);
      if (i === 1) rows.null();
      else rows.jsonb(JSON.stringify({ region: `r${i}`, 'a"b': '\n' }));
      rows.timestamptz(t).float8(i === 2 ? -1.5e-300 : i / 3).int4(-i);
      chunks.push(rows.take()); // chunks that end mid-stream, not on a row's edge of the format
    });
    chunks.push(rows.end());
    const loaded = await copySql.transaction(async (query, copyFrom) => {
      await query('create temporary table binary_t (id uuid, note text, labels jsonb, t timestamptz, v float8, n int) on commit drop');
      await copyFrom('binary_t', ['id', 'note', 'labels', 't', 'v', 'n'], (async function* () { yield* chunks; })(), { binary: true });
      return query<{ id: string; note: string; labels: unknown; t: number; v: number; n: number }>('select id::text, note, labels, (extract(epoch from t) * 1000)::float8 as t, v, n from binary_t order by n desc');
    });
    expect(loaded).toEqual(times.map((t, i) => ({
      id: `0190f0a1-0000-7000-8000-00000000000${i}`, note: `tab\there, "quote", back\\slash, ünï ${i}`, labels: i === 1 ? null : { region: `r${i}`, 'a"b': '\n' }, t, v: i === 2 ? -1.5e-300 : i / 3, n: 0 - i || 0,
    })));
  });

  it('runs a prepared statement on every connection of the pool: named (parsed once per connection) on PostgreSQL, unnamed on the embedded database, whose connections share one session', async () => {
    // The statement lists the prepared statements of the connection it runs on, itself included when it is one.
    const statement = copySql.prepared<{ names: string[]; n: number }>('select array(select name::text from pg_prepared_statements order by name) as names, $1::int as n');
    // Both connections of the pool, several times each, at once: on one shared session a second PREPARE of the name would fail.
    const runs = await Promise.all(Array.from({ length: 8 }, (_, n) => statement([n])));
    expect(runs.map((r) => r[0]!.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const named = runs.flatMap((r) => r[0]!.names.filter((name) => name.startsWith('svc_')));
    if (kind === 'postgres') {
      expect(new Set(named).size).toBe(1);
      expect(named).toHaveLength(8);
    } else {
      expect(named).toEqual([]);
    }
  });

  it('rolls the whole transaction back when the source fails half-way; the pool keeps serving', async () => {
    const failed = copySql.transaction(async (query, copyFrom) => {
      await query('insert into native_copy_t (n, v) values (-1, 0)');
      await copyFrom('native_copy_t', ['n', 'v', 'note'], lines(100_001, 5_000, 103_500));
    });
    await expect(failed).rejects.toThrow('source failed at row 103500');
    expect(await copySql.query('select n from native_copy_t where n < 0 or n > 100000')).toEqual([]);
    const after = await Promise.all([1, 2, 3].map((i) => copySql.transaction(async (query) => (await query<{ i: number }>('select $1::int as i', [i]))[0]!.i)));
    expect(after).toEqual([1, 2, 3]);
  });
});
