/**
 * Creates a new embedded database cluster in the directory named by the first argument, then
 * exits: the entry `startEmbeddedDatabase` runs in a child process of its own (see there).
 */
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: embedded-initdb <data directory>\n');
  process.exit(2);
}
const db = await PGlite.create({ dataDir: dir });
await db.close();
