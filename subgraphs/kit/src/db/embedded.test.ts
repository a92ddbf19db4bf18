import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '../logger.js';
import { DATABASE_NODE_FLAGS, startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';

/**
 * PGlite is one backend behind a socket server that queues each connection's protocol
 * messages: an extended-protocol query (Parse, Bind, Describe, Execute, Sync) must run whole,
 * or another connection's unnamed statement replaces its own ("unnamed prepared statement does
 * not exist", as agenda's schedulers logged under bursts of jobs).
 */
let dir: string;
let db: EmbeddedDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
  db = await startEmbeddedDatabase(dir, createLogger({ level: 'silent', name: 'test' }));
  // About 9 s alone; over 60 s once on a busy CI machine with another suite running beside it.
}, 180_000);
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('embedded PostgreSQL', () => {
  it('keeps every connection\'s parameterised queries whole under a burst from many connections', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 12 });
    try {
      // Each statement's text differs, so a Bind that reached another connection's statement shows.
      const results = await Promise.allSettled(
        Array.from({ length: 600 }, (_, i) => pool.query<{ id: number; who: string }>(`select $1::int as id, 'w${i % 7}' as who`, [i])),
      );
      const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
      expect(failures).toEqual([]);
      const rows = results.map((r) => (r as PromiseFulfilledResult<pg.QueryResult<{ id: number; who: string }>>).value.rows[0]!);
      expect(rows.map((r) => [r.id, r.who])).toEqual(rows.map((_, i) => [i, `w${i % 7}`]));
    } finally {
      await pool.end();
    }
  });
});

describe('a new embedded database', () => {
  const log = createLogger({ level: 'silent', name: 'test' });

  it('is made apart and renamed into place: a cluster half-made by a crash is removed, not opened', async () => {
    const data = await mkdtemp(join(tmpdir(), 'svc-embedded-new-'));
    try {
      // What a crash during the first start leaves: a cluster under its temporary name.
      await mkdir(join(data, '.pglite-initdb-4242', 'base'), { recursive: true });
      const fresh = await startEmbeddedDatabase(data, log);
      try {
        const client = new pg.Client({ connectionString: fresh.url });
        await client.connect();
        const { rows } = await client.query<{ extname: string }>("select extname from pg_extension where extname = 'vector'");
        await client.end();
        expect(rows).toEqual([{ extname: 'vector' }]);
      } finally {
        await fresh.close();
      }
      expect((await readdir(data)).sort()).toEqual(['pglite']);
      expect(existsSync(join(data, 'pglite', 'PG_VERSION'))).toBe(true);
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  }, 180_000);

  it('is refused, naming the directory, where files stand that are not a cluster', async () => {
    const data = await mkdtemp(join(tmpdir(), 'svc-embedded-odd-'));
    try {
      await mkdir(join(data, 'pglite'));
      await writeFile(join(data, 'pglite', 'notes.txt'), 'not a database');
      await expect(startEmbeddedDatabase(data, log)).rejects.toThrow(`${join(data, 'pglite')} holds files but no PG_VERSION`);
      expect(await readdir(join(data, 'pglite'))).toEqual(['notes.txt']);
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});

describe("the embedded database's process", () => {
  const log = createLogger({ level: 'silent', name: 'test' });
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('is not this one, and ends when the database is closed', async () => {
    expect(db.pid).not.toBe(process.pid);
    expect(alive(db.pid)).toBe(true);
    const data = await mkdtemp(join(tmpdir(), 'svc-embedded-proc-'));
    try {
      const own = await startEmbeddedDatabase(data, log);
      expect(alive(own.pid)).toBe(true);
      await own.close();
      expect(alive(own.pid)).toBe(false);
      // The cluster was closed cleanly: it opens again with what was written.
      const again = await startEmbeddedDatabase(data, log);
      try {
        const client = new pg.Client({ connectionString: again.url });
        await client.connect();
        await client.query('create table kept (n int)');
        await client.query('insert into kept values (7)');
        await client.end();
      } finally {
        await again.close();
      }
      const third = await startEmbeddedDatabase(data, log);
      try {
        const client = new pg.Client({ connectionString: third.url });
        await client.connect();
        expect((await client.query<{ n: number }>('select n from kept')).rows).toEqual([{ n: 7 }]);
        await client.end();
      } finally {
        await third.close();
      }
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  }, 180_000);

  it('runs PostgreSQL on V8\'s baseline compiler only, within its memory (DATABASE_NODE_FLAGS)', async () => {
    const cmdline = (await readFile(`/proc/${db.pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline).toEqual(expect.arrayContaining(DATABASE_NODE_FLAGS));
    // Every query kind an analysis sends has run by now; the optimising compiler alone took 637 MB for the executor.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('select g % 7 as a, g % 13 as b, sum(g) from generate_series(1, 200000) g group by grouping sets ((1), (2), (1, 2))');
    await client.end();
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${db.pid}/status`, 'utf8'))![1]) / 1024;
    expect(peak).toBeLessThan(600);
  }, 60_000);

  it('that dies fails the queries waiting on it, with an error, and closes without waiting', async () => {
    const data = await mkdtemp(join(tmpdir(), 'svc-embedded-dies-'));
    try {
      const own = await startEmbeddedDatabase(data, log);
      const client = new pg.Client({ connectionString: own.url });
      await client.connect();
      client.on('error', () => undefined);
      process.kill(own.pid, 'SIGKILL');
      await expect(client.query('select pg_sleep(1)')).rejects.toThrow();
      await own.close();
      expect(alive(own.pid)).toBe(false);
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  }, 180_000);
});
