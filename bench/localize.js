// Root-cause localization against its peers (issue #49): our localizer, RiskLoc, Squeeze and
// RobustSpot (their authors' code, fetched outside this repository) and RiskLoc's
// re-implementations of other methods, on the same generated case files, scored as RiskLoc's
// evaluation scores them.
//
//   npm run bench:localize                      the sets and methods below; writes its section of bench/RESULTS.md
//   BENCH_NO_WRITE=1 ...                        prints only
//   SVC_BENCH_SMOKE=1 ...                       tiny sets, two cases each; writes nothing. Without the
//                                               peers it says how to fetch them and checks only ours
//   BENCH_LOCALIZE_CASES=5 | S=10,H=1 ...       cases per set (all sets, or per set)
//   BENCH_LOCALIZE_SETS=S,D ...                 only these sets (S, L, H, D, R)
//   BENCH_LOCALIZE_METHODS=ours,riskloc,rl-hotspot ...   only these methods (see METHODS)
//   BENCH_LOCALIZE_LIMIT=60 ...                 seconds per case before a method's case counts as a timeout
//   BENCH_LOCALIZE_PEERS=/work/peers ...        where the peers were fetched (README, Benchmarks)
//   BENCH_LOCALIZE_PYTHON=/usr/bin/python3 ...  Debian's Python, with the peers' Debian packages
//   BENCH_LOCALIZE_REGENERATE=1 ...             generate the sets again even when the same command made them
//
// Sets, generated into bench/.tmp/localize/ (git-ignored) by the peers' own generator, RiskLoc's
// generate_dataset.py, with the arguments of its README (S, L, H) and by
// bench/localize/generate_derived.py (D, R: a ratio, in the layout of Squeeze's dataset D, the
// anomalies placed by RiskLoc's generator). A set is made again only when its command changed.
// Each method runs over each set in a process of its own (bench/localize/run_peer.py for the
// peers, bench/localize/ours.js for ours), one case after another; only the method's call is
// timed, not reading the files. bench/localize/score.py then scores every method's answers with
// RiskLoc's own root_cause_postprocessing and score_root_causes: per case TP, FP and FN on the
// set of root-cause elements; F1 = 2TP / (2TP + FP + FN) over the set's sums (RiskLoc's summary);
// exact match = the predicted set is the true set. A timeout or an error is a case with no
// prediction (its truth counts as FN), and is counted beside the scores.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResultsSection } from './results-section.js';
import { caseIds, elementString, loadLocalizer } from './localize/ours.js';

const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const NO_WRITE = SMOKE || process.env.BENCH_NO_WRITE === '1';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HERE = join(ROOT, 'bench', 'localize');
const DATA = join(ROOT, 'bench', '.tmp', SMOKE ? 'localize-smoke' : 'localize');
const PEERS = process.env.BENCH_LOCALIZE_PEERS ?? '/work/peers';
const PYTHON = process.env.BENCH_LOCALIZE_PYTHON ?? '/usr/bin/python3';
const LIMIT_S = Number(process.env.BENCH_LOCALIZE_LIMIT ?? (SMOKE ? 30 : 120));

const RISKLOC_README = 'generate_dataset.py (RiskLoc README)';
/** The generated sets: how each is made (full size; `smoke` replaces the dimensions), and what is in it. */
const SETS = {
  S: {
    tool: 'riskloc', derived: false, cases: 20,
    args: ['--dataset-name', 'S', '--seed', '121'],
    smokeDims: ['4', '3', '3', '2'],
    about: `${RISKLOC_README} S: 5 attributes, 10×12×10×8×5 = 48,000 leaves; 1–3 anomalies, each 1–3 elements of one cuboid of any layer; forecast noise 0–25 %; severity 0.2–1.0 (+ the noise level), deviation 0–0.1`,
  },
  L: {
    tool: 'riskloc', derived: false, cases: 20,
    args: ['--dataset-name', 'L', '--seed', '122', '--dims', '10', '24', '10', '15', '--noise-level', '0.0', '0.1', '--anomaly-severity', '0.5', '1.0', '--anomaly-deviation', '0.0', '0.0', '--num-anomaly', '1', '5', '--num-anomaly-elements', '1', '1', '--only-last-layer'],
    smokeDims: ['4', '3', '3', '2'],
    about: `${RISKLOC_README} L: 4 attributes, 10×24×10×15 = 36,000 leaves; 1–5 anomalies, each one leaf (the last layer); noise 0–10 %; severity 0.5–1.0, no deviation`,
  },
  H: {
    tool: 'riskloc', derived: false, cases: 1, onDefault: false,
    args: ['--dataset-name', 'H', '--seed', '123', '--dims', '10', '5', '250', '20', '8', '12'],
    smokeDims: ['4', '3', '6', '3', '3', '3'],
    about: `${RISKLOC_README} H: 6 attributes, 10×5×250×20×8×12 = 24,000,000 leaves (a 1.4 GB file per case); otherwise as S`,
  },
  D: {
    tool: 'derived', derived: true, cases: 20,
    args: ['--dataset-name', 'D', '--seed', '124', '--dims', '10', '12', '10', '8'],
    smokeDims: ['5', '4', '3'],
    about: "bench/localize/generate_derived.py: a success rate (numerator ÷ denominator files, as Squeeze's D), 4 attributes, 10×12×10×8 = 9,600 leaves; anomalies placed by RiskLoc's generator as in S; attempts Poisson on a Weibull volume ×1000, successes binomial; an anomaly lowers its leaves' success rate by 5–50 %",
  },
  R: {
    tool: 'derived', derived: true, cases: 40,
    args: ['--dataset-name', 'R', '--seed', '125', '--dims', '8', '6', '2', '--num-anomaly', '1', '2'],
    smokeDims: ['4', '3', '2'],
    about: "as D at the scale of RobustSpot's own cases (a few CDNs × bitrates × p2p on/off): 3 attributes, 8×6×2 = 96 leaves, 1–2 anomalies (RiskLoc's generator cannot place 3 without overlap in so few values)",
  },
};

/** Methods: who wrote the code that runs, and which sets it applies to. */
const METHODS = {
  ours: { label: 'ours', onDefault: true },
  riskloc: { label: 'RiskLoc (author\'s code)', onDefault: true },
  squeeze: { label: 'Squeeze (authors\' code, as published)', onDefault: true },
  robustspot: { label: 'RobustSpot (authors\' code)', onDefault: true, ratioOnly: true },
  'rl-squeeze': { label: 'Squeeze, RiskLoc\'s copy (the known issues of Squeeze\'s README fixed)', onDefault: false },
  'rl-autoroot': { label: 'AutoRoot (RiskLoc\'s re-implementation)', onDefault: true },
  'rl-adtributor': { label: 'Adtributor (RiskLoc\'s re-implementation)', onDefault: true },
  'rl-r_adtributor': { label: 'R-Adtributor (RiskLoc\'s re-implementation)', onDefault: true },
  'rl-hotspot': { label: 'HotSpot (RiskLoc\'s re-implementation)', onDefault: false },
  'rl-robustspot': { label: 'RobustSpot, RiskLoc\'s adaptation (also for additive measures)', onDefault: false },
};

function listEnv(name, all) {
  const raw = process.env[name];
  if (!raw) return undefined;
  const chosen = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = chosen.filter((s) => !all.includes(s));
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${all.join(', ')})`);
  return chosen;
}

function caseCounts() {
  const counts = Object.fromEntries(Object.entries(SETS).map(([name, set]) => [name, SMOKE ? 2 : set.cases]));
  const raw = process.env.BENCH_LOCALIZE_CASES;
  if (!raw) return counts;
  if (/^\d+$/.test(raw)) return Object.fromEntries(Object.keys(counts).map((name) => [name, Number(raw)]));
  for (const part of raw.split(',')) {
    const [name, n] = part.split('=');
    if (!(name in SETS) || !/^\d+$/.test(n ?? '')) throw new Error(`BENCH_LOCALIZE_CASES: "${part}" is not <set>=<count> for a set of ${Object.keys(SETS).join(', ')}`);
    counts[name] = Number(n);
  }
  return counts;
}

// Smoke: one additive and one ratio set, and the methods whose adapters differ (ours, RiskLoc's run_method, Squeeze's, RobustSpot's).
const setNames = listEnv('BENCH_LOCALIZE_SETS', Object.keys(SETS)) ?? (SMOKE ? ['S', 'D'] : Object.keys(SETS).filter((s) => SETS[s].onDefault !== false));
const methodNames = listEnv('BENCH_LOCALIZE_METHODS', Object.keys(METHODS)) ?? (SMOKE ? ['ours', 'riskloc', 'squeeze', 'robustspot'] : Object.keys(METHODS).filter((m) => METHODS[m].onDefault));
const counts = caseCounts();
// One section of bench/RESULTS.md per list of sets and of methods chosen (the default run's, an H
// run's, a run of the slow methods). No title has regular-expression characters or is the start of
// another, as writeResultsSection finds a section by its title as a pattern.
const TITLE = `Root-cause localization: ${process.env.BENCH_LOCALIZE_METHODS ? `${methodNames.join(', ')} on ` : ''}${setNames.length > 1 ? `${setNames.slice(0, -1).join(', ')} and ${setNames.at(-1)} sets` : `${setNames[0]} set`}`;

function log(line) {
  process.stdout.write(`${line}\n`);
}

/** What the peers need, checked before anything runs: their folders and Debian's Python packages. */
function peersProblem() {
  const check = spawnSync(PYTHON, ['-c', [
    'import sys; sys.path.insert(0, sys.argv[1])',
    'import peers; missing = peers.missing_peers()',
    'missing and (sys.stderr.write(peers.fetch_hint(missing) + "\\n"), sys.exit(3))',
    'import numpy, pandas, scipy, sklearn, yaml, loguru, bidict, matplotlib, seaborn',
  ].join('\n'), HERE], { env: { ...process.env, BENCH_LOCALIZE_PEERS: PEERS }, encoding: 'utf8' });
  if (check.error) return `bench:localize: cannot run ${PYTHON} (${check.error.message}); set BENCH_LOCALIZE_PYTHON to Debian's python3.`;
  if (check.status === 3) return check.stderr.trim();
  if (check.status !== 0) {
    return `bench:localize: ${PYTHON} lacks a package the peers need (${check.stderr.trim().split('\n').pop()}).\nInstall them: sudo apt-get install -y python3-numpy python3-pandas python3-scipy python3-sklearn python3-yaml python3-loguru python3-bidict python3-matplotlib python3-seaborn`;
  }
  return undefined;
}

function run(cmd, args, { logFile, env = {}, cwd = ROOT, timeoutMs } = {}) {
  return new Promise((resolve, reject) => {
    const fd = logFile ? openSync(logFile, 'a') : 'ignore';
    const child = spawn(cmd, args, { cwd, env: { ...process.env, BENCH_LOCALIZE_PEERS: PEERS, PYTHONDONTWRITEBYTECODE: '1', ...env }, stdio: ['ignore', fd, fd] });
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (typeof fd === 'number') closeSync(fd);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} ended with ${signal ?? `exit code ${code}`}${logFile ? `; see ${logFile}` : ''}`));
    });
  });
}

/** Whether args[i] is --dims or one of its numbers. */
function isDims(args, i) {
  const at = args.indexOf('--dims');
  if (at < 0 || i < at) return false;
  return args.slice(at + 1, i + 1).every((a) => /^\d+$/.test(a));
}

/** The command that makes a set: Debian's python3 runs it with these arguments. */
function generatorCommand(name, n) {
  const set = SETS[name];
  // In smoke mode the same settings on a few leaves: the set's --dims replaced by its smoke ones.
  const args = SMOKE ? [...set.args.filter((_, i, all) => !isDims(all, i)), '--dims', ...set.smokeDims] : set.args;
  const script = set.tool === 'riskloc' ? join(PEERS, 'riskloc', 'generate_dataset.py') : join(HERE, 'generate_derived.py');
  return [script, '--num', String(n), '--data-root', DATA, ...args];
}

async function generate(name, n) {
  const command = generatorCommand(name, n);
  const dir = join(DATA, name);
  const stamp = join(dir, 'command.json');
  const same = existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(command) && existsSync(join(dir, 'injection_info.csv'));
  if (same && process.env.BENCH_LOCALIZE_REGENERATE !== '1') {
    log(`${name}: reusing ${n} cases in ${dir} (made by the same command)`);
    return { command, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(DATA, 'logs'), { recursive: true });
  const started = performance.now();
  log(`${name}: generating ${n} cases …`);
  // generate_dataset.py imports its sibling utils/, so it runs from its own folder.
  await run(PYTHON, command, { logFile: join(DATA, 'logs', `generate-${name}.log`), cwd: join(PEERS, 'riskloc') });
  writeFileSync(stamp, JSON.stringify(command));
  log(`${name}: generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return { command, reused: false };
}

/** Runs one method over one set and returns its scored records. */
async function runMethod(setName, method, n) {
  const set = SETS[setName];
  const dir = join(DATA, setName);
  const out = join(DATA, `${setName}-${method}.jsonl`);
  rmSync(out, { force: true });
  const logFile = join(DATA, 'logs', `${setName}-${method}.log`);
  rmSync(logFile, { force: true });
  const common = ['--set-dir', dir, '--out', out, '--limit-seconds', String(LIMIT_S), '--cases', String(n), ...(set.derived ? ['--derived'] : [])];
  // A hard stop for a process that hangs outside the per-case limit (reading H's files takes minutes).
  const timeoutMs = n * (LIMIT_S + 600) * 1000;
  const read = () => (existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : []);
  try {
    if (method === 'ours') {
      // H's 24 million leaves as objects need a larger heap than Node's default.
      await run(process.execPath, ['--max-old-space-size=16384', join(HERE, 'ours.js'), ...common], { logFile, timeoutMs });
    } else {
      await run(PYTHON, [join(HERE, 'run_peer.py'), '--method', method, ...common], { logFile, timeoutMs });
    }
  } catch (error) {
    // The process died (out of memory, the hard stop): the cases it did not answer are errors.
    const done = new Set(read().map((r) => r.case));
    const lost = caseIds(dir).slice(0, n).filter((id) => !done.has(id));
    appendFileSync(out, lost.map((id) => `${JSON.stringify({ case: id, predicted: [], seconds: null, status: 'error', error: error.message })}\n`).join(''));
  }
  await run(PYTHON, [join(HERE, 'score.py'), '--set-dir', dir, '--predictions', out], { logFile });
  return read();
}

function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function summarize(records) {
  const sum = (key) => records.reduce((a, r) => a + (r[key] ?? 0), 0);
  const tp = sum('tp');
  const fp = sum('fp');
  const fn = sum('fn');
  const times = records.map((r) => r.seconds).filter((s) => typeof s === 'number').sort((a, b) => a - b);
  return {
    cases: records.length,
    tp, fp, fn,
    f1: 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : NaN,
    exact: records.filter((r) => r.exact).length / records.length,
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    p95: quantile(times, 0.95),
    timeouts: records.filter((r) => r.status === 'timeout').length,
    errors: records.filter((r) => r.status === 'error').length,
    firstError: records.find((r) => r.status === 'error')?.error,
  };
}

const seconds = (s) => (Number.isNaN(s) ? '–' : s < 0.1 ? `${(s * 1000).toFixed(1)} ms` : s < 10 ? `${s.toFixed(2)} s` : `${s.toFixed(0)} s`);
const pct = (x) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(0)} %`);

function table(results, labels) {
  const rows = ['| set | method | cases | F1 | exact match | mean time/case | p95 time/case | timeouts | errors |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const { set, method, summary, skipped } of results) {
    if (skipped) {
      rows.push(`| ${set} | ${labels[method]} | – | n/a | n/a | – | – | – | – |`);
      continue;
    }
    const s = summary;
    rows.push(`| ${set} | ${labels[method]} | ${s.cases} | ${s.f1.toFixed(3)} | ${pct(s.exact)} | ${seconds(s.mean)} | ${seconds(s.p95)} | ${s.timeouts || ''} | ${s.errors || ''} |`);
  }
  return rows.join('\n');
}

function failures(results, max = 3) {
  const lines = [];
  for (const { set, method, records } of results) {
    if (method !== 'ours' || !records) continue;
    const missed = records.filter((r) => !r.exact).slice(0, max);
    if (!missed.length) continue;
    lines.push(`- **${set}** (${records.filter((r) => !r.exact).length} of ${records.length} not exact):`);
    for (const r of missed) lines.push(`  - case ${r.case}: truth \`${r.truth.join('; ')}\` — predicted \`${r.predicted.join('; ') || '(nothing)'}\`${r.status !== 'ok' ? ` (${r.status})` : ''}`);
  }
  return lines.join('\n');
}

/** What a peer's error means, for the errors seen in these runs (read from their code). */
function explain(method, error = '') {
  if (/robustspot/.test(method) && error.startsWith('IndexError')) {
    return ': no leaf passed its first filter (influence degree above the knee of its distribution and contribution ability above 0; the authors\' ID_CA.py rounds the contribution ability down to two decimals, so on D, where each leaf is a small part of the total, every one is 0), and main() then takes the first of the empty list of first-round causes';
  }
  if (method === 'rl-autoroot' && error.includes('should have multiple elements')) {
    return ': its kernel density estimate (scipy\'s gaussian_kde) is given the deviation of a single leaf';
  }
  return '';
}

function git(dir, ...args) {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

function versions() {
  const r = spawnSync(PYTHON, ['-c', 'import sys, numpy, pandas, scipy, sklearn; print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__}, pandas {pandas.__version__}, scipy {scipy.__version__}, scikit-learn {sklearn.__version__}")'], { encoding: 'utf8' });
  return r.stdout.trim();
}

/** Without the peers, smoke mode still loads our localizer and runs it on one small planted case. */
async function smokeOursOnly() {
  const localizer = await loadLocalizer();
  const leaves = [];
  for (const a of ['a1', 'a2', 'a3']) for (const b of ['b1', 'b2', 'b3', 'b4']) for (const c of ['c1', 'c2']) {
    const before = 100 + leaves.length;
    leaves.push({ labels: { a, b, c }, before, after: a === 'a2' && b === 'b3' ? before * 0.3 : before });
  }
  const found = localizer.localize(leaves).map((e) => elementString(e.labels));
  log(`smoke without peers: ${localizer.name} on 24 leaves with a2&b3 planted answered ${JSON.stringify(found)}`);
}

async function main() {
  const problem = peersProblem();
  if (problem) {
    if (!SMOKE) {
      process.stderr.write(`${problem}\n`);
      process.exit(1);
    }
    log(`${problem}\n(smoke run: the peers are absent, so only our localizer is checked)`);
    await smokeOursOnly();
    return;
  }
  const started = new Date();
  const load = os.loadavg().map((v) => v.toFixed(1)).join(' ');
  const ours = (await loadLocalizer()).name;
  const labels = Object.fromEntries(Object.entries(METHODS).map(([k, m]) => [k, k === 'ours' ? `ours: ${ours}` : m.label]));
  log(`bench:localize: sets ${setNames.map((s) => `${s}×${counts[s]}`).join(', ')}; methods ${methodNames.join(', ')}; ${LIMIT_S} s per case at most; ours = ${ours}`);
  mkdirSync(join(DATA, 'logs'), { recursive: true });

  // Every set is made before any method runs, so a generator that fails does so in the first minutes.
  const made = {};
  const broken = [];
  for (const setName of setNames) {
    try {
      made[setName] = await generate(setName, counts[setName]);
    } catch (error) {
      broken.push(`${setName}: not generated (${error.message})`);
      log(broken.at(-1));
    }
  }
  const results = [];
  for (const setName of setNames.filter((s) => made[s])) {
    for (const method of methodNames) {
      if (METHODS[method].ratioOnly && !SETS[setName].derived) {
        results.push({ set: setName, method, skipped: true });
        continue;
      }
      const t = performance.now();
      try {
        const records = await runMethod(setName, method, counts[setName]);
        const summary = summarize(records);
        results.push({ set: setName, method, records, summary });
        log(`${setName} ${method}: F1 ${summary.f1.toFixed(3)}, exact ${pct(summary.exact)}, mean ${seconds(summary.mean)}, p95 ${seconds(summary.p95)}${summary.timeouts ? `, ${summary.timeouts} timeouts` : ''}${summary.errors ? `, ${summary.errors} errors (${summary.firstError})` : ''} [${((performance.now() - t) / 1000).toFixed(0)} s in all]`);
      } catch (error) {
        broken.push(`${setName} ${method}: not scored (${error.message})`);
        log(broken.at(-1));
      }
    }
  }
  if (broken.length) process.exitCode = 1;
  const elapsed = (Date.now() - started.getTime()) / 60_000;
  const tableMd = table(results, labels);
  log(`\n${tableMd}\n`);
  const failed = failures(results);
  if (failed) log(`Our misses (truth — predicted):\n${failed}\n`);
  if (NO_WRITE) return;

  const peers = ['riskloc', 'Squeeze', 'RobustSpot', 'kneed'].map((p) => `${p} \`${git(join(PEERS, p), 'rev-parse', '--short=12', 'HEAD')}\`${p === 'kneed' ? ` (${git(join(PEERS, p), 'describe', '--tags')}, the version Squeeze's requirements.txt pins)` : ''}`);
  const errorNotes = results.filter((r) => r.summary?.errors).map((r) => `${r.set} ${r.method}: ${r.summary.firstError}${explain(r.method, r.summary.firstError)}`);
  const md = [
    `Reproduce: \`npm run bench:localize\` from the repository root (builds, then \`node bench/localize.js\`), with the peers fetched and their Debian packages installed as README, Benchmarks, says.${['BENCH_LOCALIZE_CASES', 'BENCH_LOCALIZE_SETS', 'BENCH_LOCALIZE_METHODS', 'BENCH_LOCALIZE_LIMIT'].some((k) => process.env[k]) ? ` This run: ${['BENCH_LOCALIZE_CASES', 'BENCH_LOCALIZE_SETS', 'BENCH_LOCALIZE_METHODS', 'BENCH_LOCALIZE_LIMIT'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`).join(' ')}.` : ''}`,
    '',
    `- Run: ${started.toISOString()}, ${elapsed.toFixed(0)} minutes in all; ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, shared with other work (load average ${load} at the start, ${os.loadavg().map((v) => v.toFixed(1)).join(' ')} at the end); one method and one case at a time. Node ${process.versions.node}; ${versions()} (Debian's).`,
    `- Peers, fetched into ${PEERS}: ${peers.join(', ')}. Their code runs unmodified; bench/localize/run_peer.py calls it (np.bool and the other aliases numpy 1.24 removed are put back first). RobustSpot's forecaster (a mean of the minutes before) is replaced by the generated forecast.`,
    `- Ours: ${ours}.`,
    `- Sets (cases: ${setNames.map((s) => `${s} ${counts[s]}`).join(', ')}), fixed seeds:`,
    ...setNames.map((s) => `  - **${s}**: ${SETS[s].about}. \`python3 ${generatorCommand(s, counts[s]).map((a) => a.replace(DATA, 'bench/.tmp/localize').replace(PEERS, '$BENCH_LOCALIZE_PEERS').replace(ROOT, '')).join(' ')}\`${made[s]?.reused ? ' (the files of an earlier run by the same command)' : ''}`),
    `- Scoring: RiskLoc's utils/evaluation.py (root_cause_postprocessing, score_root_causes) on every method's answer; F1 from the set's summed TP, FP and FN; exact match = predicted set = true set. Time: the method's call per case (wall clock), not reading the files; at most ${LIMIT_S} s per case, after which the case is a timeout with no prediction.`,
    '',
    tableMd,
    '',
    ...(broken.length ? ['Not run:', ...broken.map((e) => `- ${e}`), ''] : []),
    ...(errorNotes.length ? ['Errors (the first of each row):', ...errorNotes.map((e) => `- ${e}`), ''] : []),
    ...(failed ? ['Cases ours did not match exactly (up to three per set; truth — predicted):', '', failed, ''] : []),
  ].join('\n');
  await writeResultsSection(TITLE, md);
  log(`bench/RESULTS.md: section "${TITLE}" written`);
}

await main();
