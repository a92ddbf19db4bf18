import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, nativeSql, openDatabase, type MikroORM, type NativeSql } from '@svc/kit';
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
