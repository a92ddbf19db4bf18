#!/usr/bin/env node
// Which installed packages the running Node does not satisfy, from the `engines` ranges that
// package-lock.json records. It stands in for npm's EBADENGINE warnings (one per package and
// install, 130 lines on Node 20, silenced by the project's .npmrc): the same facts, once, with
// what to do about them.
//
//   node scripts/check-engines.js            explain (the root postinstall; always exits 0)
//   node scripts/check-engines.js --quiet    no output; exit 1 when some package is not satisfied, or,
//                                            before an install, package.json's own range is not
//                                            (scripts/svc.sh and node-env.sh then use Node 24)
// No dependency but semver (in node_modules once installed); runs on any Node npm 11 runs on.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');

/** Packages whose `engines.node` the running Node does not satisfy: [{ name, range }]. */
export function unsatisfied(lock, version, satisfies) {
  const misses = [];
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const range = entry.engines && typeof entry.engines === 'object' ? entry.engines.node : undefined;
    // Optional packages that do not fit are skipped by npm itself (they never run here).
    if (typeof range !== 'string' || entry.optional) continue;
    if (!satisfies(version, range)) misses.push({ name: path === '' ? `${lock.name} (this repository)` : `${entry.name ?? path.split('node_modules/').pop()}@${entry.version}`, range });
  }
  return misses;
}

/** Whether the running Node meets package.json's `engines.node` of the form ">=X.Y.Z" (true when it has another form). */
function atLeastRootRange() {
  try {
    const range = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).engines?.node ?? '';
    const wanted = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
    if (!wanted) return true;
    const have = process.version.slice(1).split('.').map(Number);
    for (let i = 0; i < 3; i++) if (have[i] !== Number(wanted[i + 1])) return have[i] > Number(wanted[i + 1]);
    return true;
  } catch {
    return true;
  }
}

function main() {
  let satisfies;
  let lock;
  try {
    satisfies = createRequire(join(repo, 'package.json'))('semver').satisfies;
    lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'));
  } catch (error) {
    // Nothing installed yet, or no lockfile (a partial copy, e.g. a container build's first layer):
    // only the repository's own range (">=X.Y.Z" in package.json) can be checked.
    if (!quiet) process.stderr.write(`svc: engine check limited to package.json (${error.message.split('\n')[0]})\n`);
    return quiet && !atLeastRootRange() ? 1 : 0;
  }
  const misses = unsatisfied(lock, process.version, (v, r) => satisfies(v, r, { includePrerelease: true }));
  if (quiet) return misses.length ? 1 : 0;
  if (!misses.length) {
    process.stderr.write(`svc: Node ${process.version} satisfies every installed package's engine range.\n`);
    return 0;
  }
  const major = Number(process.version.slice(1).split('.')[0]);
  const names = [...new Map(misses.map((m) => [m.name, m])).values()];
  const listed = names.slice(0, 4).map((m) => `${m.name} needs ${m.range}`).join('; ');
  process.stderr.write(`svc: Node ${process.version} is too old for ${names.length} installed packages (${listed}${names.length > 4 ? '; ...' : ''}).\n`);
  if (major < 22) {
    process.stderr.write('svc: that is expected here: `npm start` runs the platform on Node 24, which it installs once into .tools/node24\n'
      + 'svc: (from the npm registry, about 30 MB, 10-20 s); `. scripts/node-env.sh` puts that Node first on PATH for other commands.\n');
  } else {
    process.stderr.write('svc: `npm start` will use Node 24 from .tools/node24 instead (installed on first start); or install Node 24 yourself.\n');
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
