import { Migrator } from '@mikro-orm/migrations';
import { createHash } from 'node:crypto';
import type { MigrationObject } from '@mikro-orm/core';
import { MikroORM, type EntitySchema, type PostgreSqlConnection } from '@mikro-orm/postgresql';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { embeddedCopy } from './embedded.js';
import type { Logger } from '../logger.js';

export type { MikroORM };

export interface DatabaseOptions {
  url: string;
  /** The subgraph's own PostgreSQL schema; its migrations table lives there too. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any, any>[] | unknown[];
  migrations: MigrationObject[];
  poolMax: number;
  log: Logger;
}

/**
 * Opens the subgraph's MikroORM and brings its schema up to date. Migrations run under a
 * PostgreSQL advisory lock, so several replicas starting at once migrate exactly once.
 */
export async function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  const { schema, log } = options;
  await withAdvisoryLock(options.url, `svc-migrate-${schema}`, async (client) => {
    await client.query(`create schema if not exists ${pg.escapeIdentifier(schema)}`);
  });
  const orm = await MikroORM.init({
    clientUrl: options.url,
    entities: options.entities as EntitySchema[],
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax },
    // A database that does not answer fails a request within 5 s (a 503) instead of stalling it.
    driverOptions: { connectionTimeoutMillis: 5000, onPoolCreated: (pool: pg.Pool) => releaseDroppedClients(pool) },
    discovery: { warnWhenNoEntities: false },
    migrations: {
      tableName: `${schema}.mikro_orm_migrations`,
      migrationsList: options.migrations,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    logger: (message) => log.debug({ orm: message }),
  });
  try {
    await withAdvisoryLock(options.url, `svc-migrate-${schema}`, async () => {
      const applied = await orm.migrator.up();
      if (applied.length) log.info({ schema, migrations: applied.map((m) => m.name) }, 'migrations applied');
    });
  } catch (error) {
    await orm.close();
    throw error;
  }
  return orm;
}

/**
 * Hands a checked-out client back to its pool as broken (so the pool discards it) as soon as
 * PostgreSQL drops its connection; its holder's own release afterwards does nothing. kysely 0.29,
 * which MikroORM 7 runs on, keeps a transaction's pooled connection when BEGIN, COMMIT or
 * ROLLBACK throws (kysely-org/kysely#1990, open), and on a dropped connection they do: every
 * outage used to leak the connection of each transaction in flight, for good, shrinking the pool
 * until it was empty (found and checked by test/src/postgres-restart.test.ts). A client whose
 * connection has ended can run no further query, so giving it back early takes nothing from its
 * holder.
 */
export function releaseDroppedClients(pool: pg.Pool): void {
  const held = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => held.add(client));
  pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => held.delete(client));
  pool.on('connect', (client) => {
    client.once('end', () => {
      if (!held.has(client)) return;
      held.delete(client);
      client.release(new Error('PostgreSQL dropped the connection'));
      (client as pg.PoolClient).release = () => undefined;
    });
  });
}

/** Runs one statement with bind parameters (`$1`, `$2`, ...) and returns its rows. */
export type NativeQuery = <R = Record<string, unknown>>(text: string, params?: readonly unknown[]) => Promise<R[]>;

/** Runs one prepared statement with these bind parameters and returns its rows. */
export type PreparedQuery<R = Record<string, unknown>> = (params?: readonly unknown[]) => Promise<R[]>;

/**
 * Bulk load into `table` (`columns`): `rows` is COPY's text format (tab-separated, one row per
 * line, `\N` for null) in chunks of whole lines, or with `binary` its binary format (kit
 * `BinaryCopyRows`) in chunks of any size. On PostgreSQL the chunks stream through
 * `COPY … FROM STDIN` (pg-copy-streams); on the embedded database they go to PGlite's own
 * `COPY … FROM '/dev/blob'`, as one Blob (text: about 16 MB of whole lines at a time).
 */
export type CopyFrom = (table: string, columns: readonly string[], rows: AsyncIterable<string | Uint8Array>, options?: { binary?: boolean }) => Promise<void>;

/** Bytes of text rows handed to PGlite per COPY. */
const BLOB_BYTES = 16 * 1024 * 1024;

function copier(client: pg.PoolClient, url: string | undefined): CopyFrom {
  const embedded = url ? embeddedCopy(url) : undefined;
  return async (table, columns, rows, options = {}) => {
    const target = `${table} (${columns.map((c) => pg.escapeIdentifier(c)).join(', ')})`;
    const format = options.binary ? ' with (format binary)' : '';
    if (!embedded) {
      await pipeline(Readable.from(rows), client.query(copyFromStdin(`copy ${target} from stdin${format}`)));
      return;
    }
    let parts: (string | Uint8Array)[] = [];
    let size = 0;
    const flush = async () => {
      if (size) await embedded(`copy ${target} from '/dev/blob'${format}`, parts);
      parts = [];
      size = 0;
    };
    for await (const chunk of rows) {
      parts.push(chunk);
      size += chunk.length;
      // A binary copy is one stream (its header comes once): it is handed over whole.
      if (!options.binary && size >= BLOB_BYTES) await flush();
    }
    await flush();
  };
}

/**
 * Statements with bind parameters on the ORM's own pool (the same connections and limit).
 * For hot paths only: `em.execute` writes every parameter into the SQL text (quoted, character
 * by character), which for a settlement batch's JSON cost more CPU and garbage than the
 * statement itself; here parameters go to PostgreSQL as they are. `transaction` runs `work` in
 * one transaction on one connection: committed when it returns, rolled back when it throws (a
 * connection that fails meanwhile is discarded, not given back); `copyFrom` bulk-loads within it.
 */
export function nativeSql(orm: MikroORM) {
  let pool: Promise<pg.Pool> | undefined;
  // Kept once found; a failed lookup is asked again next time rather than remembered.
  const getPool = () =>
    (pool ??= ((orm.em.getConnection() as PostgreSqlConnection).getNativeClient() as unknown as Promise<pg.Pool>).catch((error: unknown) => {
      pool = undefined;
      throw error;
    }));
  const run = (client: pg.Pool | pg.PoolClient): NativeQuery => async (text, params = []) => (await client.query(text, params as unknown[])).rows;
  const url = orm.config.get('clientUrl');
  // The embedded database registers its URL when it starts, before any pool is opened on it.
  const names = !(url && embeddedCopy(url));
  return {
    query: (async (text, params) => run(await getPool())(text, params)) as NativeQuery,
    /**
     * A statement PostgreSQL parses and plans once per connection, then only runs: for reads on
     * hot paths (on this machine a small join took 0.20 ms a run prepared against 0.55 ms
     * unnamed, pgbench at one client). It is named by a hash of its text. On the embedded
     * database every connection is the same PGlite session, where a statement one connection
     * prepared exists for all the others (which would prepare it again: an error), so there it
     * runs unnamed.
     */
    prepared<R = Record<string, unknown>>(text: string): PreparedQuery<R> {
      const name = `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      return async (params = []) => (await (await getPool()).query<R & pg.QueryResultRow>(names ? { name, text, values: params as unknown[] } : { text, values: params as unknown[] })).rows;
    },
    async transaction<T>(work: (query: NativeQuery, copyFrom: CopyFrom) => Promise<T>): Promise<T> {
      const client = await (await getPool()).connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await work(run(client), copier(client, orm.config.get('clientUrl')));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

export type NativeSql = ReturnType<typeof nativeSql>;

/**
 * pg-pool's words when no connection became free within `connectionTimeoutMillis` (5 s here), and
 * pg's when a new connection's start-up did not finish within it (the embedded database accepts
 * the connection but starts its session only once the session before it ends its transaction).
 */
const POOL_WAIT = /timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

/** Whether `error` is a wait for a pool connection that ran out (the database is busy, not broken). */
export const isPoolWait = (error: unknown): boolean => POOL_WAIT.test(String((error as Error | undefined)?.message ?? ''));

/**
 * Runs `work`, and runs it again while it fails only because every pool connection stayed busy
 * (a long analysis on the embedded database, which runs one statement at a time), waiting a
 * little longer each time, until `deadline` (ms since the epoch): waiting for a connection
 * slows work down but does not fail it. A database that is down fails as before.
 */
export async function patientlyConnected<T>(work: () => Promise<T>, deadline: number): Promise<T> {
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await work();
    } catch (error) {
      if (!isPoolWait(error) || Date.now() + wait > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Whether `work` settled within `ms` (it goes on either way; a shutdown just stops waiting). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const settled = await Promise.race([work.then(() => true, () => true), late]);
  clearTimeout(timer);
  return settled;
}

/**
 * Closes the ORM's pool, waiting at most `waitMs` for connections still in use, so that a
 * shutdown never hangs on one (the connection is abandoned with a warning, and the process exits).
 */
export async function closeDatabase(orm: MikroORM, log: Logger, waitMs = 5000): Promise<void> {
  if (!(await settlesWithin(orm.close(), waitMs))) log.warn({ waitedMs: waitMs }, 'database pool still had connections in use at shutdown; abandoned them');
}

/** Runs `fn` holding a session-level advisory lock named `name` (on its own connection). */
export async function withAdvisoryLock<T>(url: string, name: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    return await fn(client);
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
    await client.end();
  }
}
