import { execFile, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { Logger } from '../logger.js';

/** A `COPY … FROM '/dev/blob'` on the embedded database's own session, the blob made of `parts` (see `embeddedCopy`). */
export type BlobCopy = (statement: string, parts: readonly (string | Uint8Array)[]) => Promise<void>;

const blobCopies = new Map<string, BlobCopy>();

/**
 * PGlite's own bulk load for the embedded database served at `url`, else undefined. pglite-socket
 * does not speak the COPY sub-protocol (`COPY … FROM STDIN` loses the connection's
 * synchronisation), so a COPY goes to PGlite itself (in the database's process, over its IPC
 * channel) with the rows as a Blob made there. PGlite is one session: the statement runs inside the transaction the socket connection has open (it holds
 * the backend until it ends), so it sees that transaction's temporary tables and rolls back with it.
 */
export function embeddedCopy(url: string): BlobCopy | undefined {
  return blobCopies.get(url);
}

export interface EmbeddedDatabase {
  url: string;
  /** The database's own process. */
  pid: number;
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

/** Messages between the platform and the embedded database's process (embedded-server.ts). */
export type ServerRequest = { copy: number; statement: string; parts: readonly (string | Uint8Array)[] } | { stop: true };
export type ServerReply = { ready: string } | { copied: number; error?: { message: string; code?: string } };

const SERVER = fileURLToPath(new URL('./embedded-server.js', import.meta.url));

/** Where a new cluster is made before it is renamed into place; one left by a crash is removed. */
const MAKING = '.pglite-initdb-';

/**
 * Node's flags for the embedded database's processes: PostgreSQL compiled to WebAssembly runs on
 * V8's baseline compiler (Liftoff) only. Its optimising compiler, given the executor's expression
 * interpreter (one function of 105 kB of WebAssembly, hot in every query), takes 637 MB of
 * memory for 0.4 to 1.3 s to compile it, once per process: the database's process peaked at
 * 820 to 900 MiB for that alone, against 260 to 480 MiB without it. Queries on baseline code
 * are slower (bench/RESULTS.md, "Analysis at scale"), and the platform stays within 1 GiB.
 */
export const DATABASE_NODE_FLAGS = ['--liftoff-only'];

/**
 * A new cluster at `dir`, made by PGlite's initdb in a process of its own and renamed into place
 * whole. PGlite's initdb runs three WebAssembly instances at once (the database, a second one and
 * initdb itself) and peaks near 1 GiB of resident memory for a few seconds (1,071 MiB measured);
 * that memory goes back to the system when the process exits. The rename makes a half-made
 * cluster (a crash mid-initdb) impossible to open: it is left under a temporary name and removed
 * on the next start.
 */
async function makeCluster(dir: string, log: Logger): Promise<void> {
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new Error(`${dir} holds files but no PG_VERSION, so it is not a database cluster; move it away and start again`);
  }
  const parent = dirname(dir);
  for (const entry of await readdir(parent)) if (entry.startsWith(MAKING)) await rm(join(parent, entry), { recursive: true, force: true });
  const making = join(parent, `${MAKING}${process.pid}`);
  const started = Date.now();
  try {
    await promisify(execFile)(process.execPath, [...DATABASE_NODE_FLAGS, SERVER, '--initdb', making], { timeout: 300_000 });
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
 *
 * It runs in a child process (embedded-server.ts), as PostgreSQL would: the database's memory
 * (PGlite's WebAssembly heap, 400 to 700 MiB once its caches are warm) is not the platform's,
 * and a WebAssembly abort in PostgreSQL's code does not take the services down with it. The
 * process ends with this one (its IPC channel closes) and closes the cluster cleanly then. If
 * it stops on its own, the error is logged and the services answer as they do when PostgreSQL
 * is down (503) until the platform is restarted.
 */
export async function startEmbeddedDatabase(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const dir = join(dataDir, 'pglite');
  await mkdir(dataDir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) await makeCluster(dir, log);
  const child = fork(SERVER, [dir], { execArgv: DATABASE_NODE_FLAGS, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  /** The last lines it wrote to standard error, for the error that names why it stopped. */
  const said: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    said.push(line);
    if (said.length > 5) said.shift();
    log.warn({ pid: child.pid, line }, 'embedded PostgreSQL said');
  });
  // A send on a channel that broke is reported to its callback, and here: not an unhandled event.
  child.on('error', (error) => log.warn({ pid: child.pid, err: error }, 'embedded PostgreSQL channel error'));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (reply: ServerReply) => ('ready' in reply ? resolve(reply.ready) : reject(new Error('the embedded database answered before it was ready'))));
    void exited.then((how) => reject(new Error(`the embedded database in ${dir} stopped while starting (exit ${how}): ${said.join(' | ') || 'it said nothing'}`)));
  });
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let closing = false;
  let next = 0;
  child.on('message', (reply: ServerReply) => {
    if (!('copied' in reply)) return;
    const waiting = pending.get(reply.copied);
    pending.delete(reply.copied);
    if (!reply.error) waiting?.resolve();
    else waiting?.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
  });
  void exited.then((how) => {
    for (const { reject } of pending.values()) reject(new Error(`the embedded database stopped (exit ${how})`));
    pending.clear();
    blobCopies.delete(url);
    if (!closing) log.error({ pid: child.pid, exit: how, said }, 'the embedded database stopped on its own: requests that need it fail (503) until the platform is restarted');
  });
  // Neither the process, its channel nor its standard error keeps this one running; a COPY in flight has its connection open.
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  log.info({ dataDir: dir, url, pid: child.pid }, 'embedded PostgreSQL (PGlite + pgvector) started');
  blobCopies.set(url, async (statement, parts) => {
    const copy = next++;
    await new Promise<void>((resolve, reject) => {
      pending.set(copy, { resolve, reject });
      // The parts as they are (one serialisation), made into a Blob over there.
      child.send({ copy, statement, parts } satisfies ServerRequest, (error) => {
        if (!error || !pending.delete(copy)) return;
        reject(new Error(`the embedded database could not be reached: ${error.message}`));
      });
    });
  });
  return {
    url,
    pid: child.pid!,
    async close() {
      if (closing) return;
      closing = true;
      blobCopies.delete(url);
      if (child.exitCode !== null || child.signalCode !== null) return;
      // A channel that broke as the process died: its exit is on the way.
      if (child.connected) child.send({ stop: true } satisfies ServerRequest, () => undefined);
      const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000).unref())]);
      if (!stopped) {
        log.warn({ pid: child.pid }, 'the embedded database did not stop within 30 s; killed');
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
