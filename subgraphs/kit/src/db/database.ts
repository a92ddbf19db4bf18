import { Migrator } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';
import { MikroORM, type EntitySchema } from '@mikro-orm/postgresql';
import pg from 'pg';
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
    driverOptions: { connectionTimeoutMillis: 5000 },
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
 * Closes the ORM's pool, waiting at most `waitMs` for connections still in use. After the
 * database server went away mid-transaction, a connection can stay checked out for good (seen
 * with MikroORM 7 after `pg_ctl stop -m immediate`, test/src/postgres-restart.test.ts), and a
 * shutdown must not hang on it: the connection is abandoned with a warning, and the process exits.
 */
export async function closeDatabase(orm: MikroORM, log: Logger, waitMs = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
    timer.unref();
  });
  const outcome = await Promise.race([orm.close().then(() => 'closed' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') log.warn({ waitedMs: waitMs }, 'database pool still had connections in use at shutdown; abandoned them');
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
