/**
 * The embedded database's own process (spawned by `startEmbeddedDatabase`, embedded.ts).
 *
 *   embedded-server <cluster directory>    a cluster to serve (PG_VERSION in it)
 *   embedded-server --initdb <directory>    makes a new cluster there, then exits
 *
 * Serving, it runs PGlite with pgvector behind pglite-socket on a loopback port and talks to
 * its parent over the IPC channel: `{ ready: url }` once it listens; `{ copy, statement, parts }`
 * runs PGlite's `COPY … FROM '/dev/blob'` with the parts as the blob and answers `{ copied, error? }`.
 * It stops, closing the cluster cleanly, when its parent says `{ stop: true }` or goes (the
 * channel closes, even on SIGKILL). Ctrl-C reaches the whole process group: the database waits
 * for the platform to finish with it rather than stopping under it.
 */
import { PGlite } from '@electric-sql/pglite';
import { wholeQueries, type ServerReply, type ServerRequest } from './embedded.js';

const [first, second] = process.argv.slice(2);
if (first === '--initdb' && second) {
  // PGlite's initdb runs three WebAssembly instances at once and peaks near 1 GiB: in a process that exits.
  await (await PGlite.create({ dataDir: second })).close();
  process.exit(0);
}
if (!first || !process.send) {
  process.stderr.write('usage: embedded-server <cluster directory> (with an IPC channel) | embedded-server --initdb <directory>\n');
  process.exit(2);
}
const [{ vector }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite-pgvector'), import('@electric-sql/pglite-socket')]);
// A COPY that ends after the platform went has no one to answer: its reply is dropped, not thrown.
const send = (reply: ServerReply) => void (process.connected && process.send!(reply));
// PostgreSQL's page cache at 32 MB rather than its 128 MB: pages it drops come back from the
// operating system's cache (the cluster is files on disk), and at 100,000 series the analysis ran
// as fast while the process held 96 MB less (bench/RESULTS.md, "Analysis at scale").
const db = await PGlite.create({ dataDir: first, extensions: { vector }, startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'] });
await db.exec('create extension if not exists vector');
const server = new PGLiteSocketServer({ db: wholeQueries(db), host: '127.0.0.1', port: 0, maxConnections: 64 });
await server.start();

let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= (async () => {
    await server.stop();
    await db.close();
  })().then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`the embedded database did not close cleanly: ${(error as Error).message}\n`);
    process.exit(1);
  }));
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => void stop());
process.on('message', (request: ServerRequest) => {
  if ('stop' in request) return void stop();
  // PGlite is one session: the COPY runs inside the transaction the socket connection holds open.
  db.query(request.statement, [], { blob: new Blob(request.parts as (string | Uint8Array<ArrayBuffer>)[]) }).then(
    () => send({ copied: request.copy }),
    (error: Error & { code?: string }) => send({ copied: request.copy, error: { message: error.message, ...(error.code ? { code: error.code } : {}) } }),
  );
});
send({ ready: `postgres://postgres@127.0.0.1:${Number(server.getServerConn().split(':').pop())}/postgres` });
