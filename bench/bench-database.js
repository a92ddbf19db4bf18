// A fresh PostgreSQL database (with pgvector) for one benchmark run, dropped afterwards.
import pg from 'pg';

export const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Creates database `name` on PG_ADMIN_URL's server; `drop()` removes it (forcing its connections closed). */
export async function createBenchDatabase(name) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('create extension if not exists vector');
  await setup.end();
  return {
    url,
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
