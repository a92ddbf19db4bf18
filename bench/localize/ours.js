// Our localizer over every case of one generated set, in a process of its own (the H set's 24
// million leaves need a large heap): one JSON line per case, in run_peer.py's format
// ({case, predicted, seconds, status}), so both are scored by score.py alike.
//
//   node bench/localize/ours.js --set-dir <dir> --out <file.jsonl> [--derived] [--limit-seconds 60] [--cases N]
//   node bench/localize/ours.js --which     prints which implementation is compiled
//
// The localizer is `localizeCauses(leaves)` from subgraphs/insight/dist/src/engine/localize.js. A leaf is {labels, before, after} (before = the forecast, after = the actual)
// and, for a ratio set, the numerator's values with the denominator's as denominatorBefore/After.
// Only the call is timed, not reading the files. A case over the limit is recorded as a timeout with
// no prediction (it cannot be stopped mid-call; the call is synchronous).
import { createReadStream, existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ENGINE = fileURLToPath(new URL('../../subgraphs/insight/dist/src/engine/', import.meta.url));

/** { name, localize(leaves) → [{labels}] }: the analysis' localizer as compiled (npm run build). */
export async function loadLocalizer() {
  if (!existsSync(join(ENGINE, 'localize.js'))) throw new Error(`${join(ENGINE, 'localize.js')} is missing: run npm run build first`);
  const { localizeCauses } = await import(join(ENGINE, 'localize.js'));
  return { name: 'localizeCauses (engine/localize.ts)', localize: (leaves) => localizeCauses(leaves) };
}

/** A root-cause element as RiskLoc writes one: attribute=value pairs joined by &, in attribute order. */
export function elementString(labels) {
  return Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join('&');
}

/**
 * Streams a generated case file (attribute columns and real/predict, no quoting: the generators
 * write none) row by row: rows are not kept, as the H set's 24 million would not fit as arrays.
 */
async function eachRow(path, onRow) {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let columns;
  let r = 0;
  for await (const line of lines) {
    if (!line) continue;
    const cells = line.split(',');
    if (!columns) {
      const real = cells.indexOf('real');
      const predict = cells.indexOf('predict');
      columns = { real, predict, attributes: cells.map((name, i) => [name, i]).filter(([, i]) => i !== real && i !== predict) };
      continue;
    }
    onRow(cells, columns, r++);
  }
}

async function leavesOf(setDir, id, derived) {
  let denominator;
  if (derived) {
    // The generator writes the numerator's and the denominator's files in the same leaf order.
    const before = [];
    const after = [];
    await eachRow(join(setDir, `${id}.b.csv`), (cells, { real, predict }) => {
      before.push(Number(cells[predict]));
      after.push(Number(cells[real]));
    });
    denominator = { before, after };
  }
  const leaves = [];
  const intern = new Map();
  await eachRow(join(setDir, derived ? `${id}.a.csv` : `${id}.csv`), (cells, { real, predict, attributes }, r) => {
    // One labels object shape for every leaf, its values shared strings.
    const labels = {};
    for (const [name, i] of attributes) {
      let v = intern.get(cells[i]);
      if (v === undefined) intern.set(cells[i], (v = cells[i]));
      labels[name] = v;
    }
    const leaf = { labels, before: Number(cells[predict]), after: Number(cells[real]) };
    if (denominator) {
      leaf.denominatorBefore = denominator.before[r];
      leaf.denominatorAfter = denominator.after[r];
    }
    leaves.push(leaf);
  });
  return leaves;
}

/** A set's case ids in injection_info.csv order. */
export function caseIds(setDir) {
  const [header, ...lines] = readFileSync(join(setDir, 'injection_info.csv'), 'utf8').trim().split('\n');
  const column = header.split(',').indexOf('timestamp');
  return lines.map((line) => line.split(',')[column]);
}

async function main() {
  const { values } = parseArgs({
    options: {
      'set-dir': { type: 'string' }, out: { type: 'string' }, derived: { type: 'boolean', default: false },
      'limit-seconds': { type: 'string', default: '60' }, cases: { type: 'string' }, which: { type: 'boolean', default: false },
    },
  });
  const localizer = await loadLocalizer();
  if (values.which) {
    process.stdout.write(`${localizer.name}\n`);
    return;
  }
  const limitMs = Number(values['limit-seconds']) * 1000;
  const ids = caseIds(values['set-dir']).slice(0, values.cases ? Number(values.cases) : undefined);
  writeFileSync(values.out, '');
  for (const id of ids) {
    const record = { case: id, predicted: [], seconds: null, status: 'ok' };
    try {
      const leaves = await leavesOf(values['set-dir'], id, values.derived);
      const started = performance.now();
      const found = localizer.localize(leaves);
      const predicted = found.map((element) => elementString(element.labels));
      const ms = performance.now() - started;
      record.seconds = ms / 1000;
      if (ms > limitMs) record.status = 'timeout';
      else record.predicted = predicted;
    } catch (error) {
      record.status = 'error';
      record.error = String(error?.stack ?? error).slice(0, 500);
    }
    appendFileSync(values.out, `${JSON.stringify(record)}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
