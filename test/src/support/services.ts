import pg from 'pg';
import { Redis } from 'ioredis';

export const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const HOW = 'Run `bash scripts/provision.sh` (as root) to install and start PostgreSQL 15 with pgvector, Redis, Varnish and Chromium.';

/** Creates a fresh database (with pgvector) for one test file; fails loudly when PostgreSQL is missing. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL}: ${(error as Error).message}. ${HOW}`);
  }
  const name = `svc_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  try {
    await check.query('create extension if not exists vector');
  } catch (error) {
    throw new Error(`pgvector is not installed in PostgreSQL: ${(error as Error).message}. ${HOW}`);
  } finally {
    await check.end();
  }
  return { url, drop: () => dropDatabase(url) };
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  await c.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  await c.end();
}

export async function requireRedis(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable at ${REDIS_URL}: ${(error as Error).message}. ${HOW}`);
  } finally {
    redis.disconnect();
  }
}
