import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Logger } from '../logger.js';

/** A `COPY … FROM '/dev/blob'` on the embedded database's own session (see `embeddedCopy`). */
export type BlobCopy = (statement: string, blob: Blob) => Promise<void>;

const blobCopies = new Map<string, BlobCopy>();

/**
 * PGlite's own bulk load for the embedded database served at `url`, else undefined. pglite-socket
 * does not speak the COPY sub-protocol (`COPY … FROM STDIN` loses the connection's
 * synchronisation), so a COPY goes to PGlite directly with the rows as a Blob. PGlite is one
 * session: the statement runs inside the transaction the socket connection has open (it holds
 * the backend until it ends), so it sees that transaction's temporary tables and rolls back with it.
 */
export function embeddedCopy(url: string): BlobCopy | undefined {
  return blobCopies.get(url);
}

export interface EmbeddedDatabase {
  url: string;
  close(): Promise<void>;
}

/** Protocol message types after which a connection's query is whole: Sync, a simple Query, Terminate. */
const ENDS_A_QUERY = new Set([0x53, 0x51, 0x58]);

interface ProtocolDb {
  isInTransaction(): boolean;
  execProtocolRawStream(message: Uint8Array, options: unknown): Promise<unknown>;
}

/**
 * pglite-socket queues each connection's protocol messages one by one and keeps one connection
 * on the backend only while it is inside a transaction. An extended-protocol query (Parse, Bind,
 * Describe, Execute, Sync) outside a transaction could therefore interleave with another
 * connection's: its Bind then found the other's unnamed statement, or none ("unnamed prepared
 * statement does not exist", as agenda's schedulers logged under bursts of jobs). The queue is
 * told a query is still open until the message that ends it, so it serves that connection first,
 * exactly as it does within a transaction.
 */
export function wholeQueries<T extends ProtocolDb>(db: T): T {
  let open = false;
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'isInTransaction') return () => open || target.isInTransaction();
      if (property === 'execProtocolRawStream') {
        return async (message: Uint8Array, options: unknown) => {
          try {
            return await target.execProtocolRawStream(message, options);
          } finally {
            // A startup message has no type byte (it begins with its length, so with 0).
            open = message.length > 0 && message[0] !== 0 && !ENDS_A_QUERY.has(message[0]!);
          }
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Where a new cluster is made before it is renamed into place; one left by a crash is removed. */
const MAKING = '.pglite-initdb-';

/**
 * A new cluster at `dir`, made by PGlite's initdb in a child process and renamed into place
 * whole. PGlite's initdb runs three WebAssembly instances at once (the database, a second one and
 * initdb itself) and peaks near 1 GiB of resident memory for a few seconds; in the platform's own
 * process that peak would be its high-water mark for life (a first start of `npm start`
 * measured 1,071 MiB, against 358 MiB opening an existing cluster). A child's memory goes back
 * to the system when it exits. The rename makes a half-made cluster (a crash mid-initdb)
 * impossible to open: it is left under a temporary name and removed on the next start.
 */
async function makeCluster(dir: string, log: Logger): Promise<void> {
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new Error(`${dir} holds files but no PG_VERSION, so it is not a database cluster; move it away and start again`);
  }
  const parent = dirname(dir);
  for (const entry of await readdir(parent)) if (entry.startsWith(MAKING)) await rm(join(parent, entry), { recursive: true, force: true });
  const making = join(parent, `${MAKING}${process.pid}`);
  const started = Date.now();
  const script = fileURLToPath(new URL('./embedded-initdb.js', import.meta.url));
  try {
    await promisify(execFile)(process.execPath, [script, making], { timeout: 300_000 });
  } catch (error) {
    await rm(making, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim().split('\n').slice(-3).join(' | ');
    throw new Error(`the embedded database could not be created in ${dir}: ${stderr || (error as Error).message}`);
  }
  if (existsSync(dir)) await rmdir(dir); // empty (checked above): older versions made it first
  await rename(making, dir);
  log.info({ dataDir: dir, ms: Date.now() - started }, 'embedded PostgreSQL cluster created');
}

/**
 * PGlite with pgvector, persisted under `dataDir`, served on loopback through pglite-socket so
 * the same `pg` driver code runs as against a real PostgreSQL. PGlite is one backend: the
 * socket server interleaves connections but runs one transaction at a time.
 */
export async function startEmbeddedDatabase(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const [{ PGlite }, { vector }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite-socket'),
  ]);
  const dir = join(dataDir, 'pglite');
  await mkdir(dataDir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) await makeCluster(dir, log);
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } });
  await db.exec('create extension if not exists vector');
  const server = new PGLiteSocketServer({ db: wholeQueries(db), host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const conn = server.getServerConn();
  const port = Number(conn.split(':').pop());
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  log.info({ dataDir: dir, url }, 'embedded PostgreSQL (PGlite + pgvector) started');
  blobCopies.set(url, async (statement, blob) => {
    await db.query(statement, [], { blob });
  });
  return {
    url,
    async close() {
      blobCopies.delete(url);
      await server.stop();
      await db.close();
    },
  };
}
