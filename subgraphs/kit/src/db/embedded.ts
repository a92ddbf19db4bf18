import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';

export interface EmbeddedDatabase {
  url: string;
  close(): Promise<void>;
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
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } });
  await db.exec('create extension if not exists vector');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const conn = server.getServerConn();
  const port = Number(conn.split(':').pop());
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  log.info({ dataDir: dir, url }, 'embedded PostgreSQL (PGlite + pgvector) started');
  return {
    url,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
