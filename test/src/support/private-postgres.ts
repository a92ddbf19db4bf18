import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of the test's own (initdb into a temporary folder, a free port on
 * 127.0.0.1), for tests that stop and restart the database under a running platform without
 * touching the shared server. Run as the `postgres` user when the test runs as root (PostgreSQL
 * refuses root). pgvector comes from the machine's installation, as on the shared server.
 */
export interface PrivatePostgres {
  url: string;
  /** Stops the server at once, as a crash or a pulled cable would (pg_ctl stop -m immediate). */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  const pgctl = (args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, 'pg_ctl'), ...args]) : run(join(BIN, 'pg_ctl'), args));
  const data = join(dir, 'data');
  const port = await freePort();
  if (asRoot) await run('runuser', ['-u', 'postgres', '--', join(BIN, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres']);
  else await run(join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
  const start = async () => {
    await pgctl(['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'log'), '-w', 'start']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('create extension if not exists vector');
  await client.end();
  let running = true;
  return {
    url,
    async kill() {
      await pgctl(['-D', data, '-m', 'immediate', 'stop']);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      if (running) await pgctl(['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
