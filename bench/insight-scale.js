// The analysis at a real business's size, on the path a user takes (issue 31): a CDN-shaped
// metric (data centre × province × ISP × channel, 15 daily points per series; a second metric on the same leaves) written to a CSV
// file and imported from it through POST /api/v1/insight/metrics/import (streamed), then "Why did edge gigabytes drop
// yesterday?" asked through POST /api/v1/insight/jobs and the report read back, at 1k, 10k and
// 100k series, on the embedded database (PGlite) and on PostgreSQL. One province carries 20 % of
// its level yesterday; each run checks the report names it.
//
//   npm run bench:insight-scale      (SVC_BENCH_SMOKE=1: 120 series on each database, nothing written)
//   BENCH_NO_WRITE=1 ...              prints instead of writing bench/RESULTS.md
//   BENCH_SIZES=1000,10000 ...        other sizes; BENCH_DATABASES=postgres to skip the embedded one
//   BENCH_REPORT_DIR=<dir> ...        also writes each run's finished job (report and steps) to
//                                     <dir>/<database>-<series>.json, to read it as a reviewer would
//
// Printed per run (each in a process of its own): import points/s, the job's seconds (asked to
// COMPLETED, wall clock), the process's peak resident memory (VmHWM; the whole platform runs in
// it, as `npm start` does; on the embedded database PGlite runs in a child process, whose peak
// is printed beside it, as PostgreSQL's memory is its own server's), and the
// queries the job sent that touch the metric tables (counted on pg's client): flat means the reads
// do not grow with the series. The slowest steps of each job are printed too.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { createBenchDatabase } from './bench-database.js';
import { writeResultsSection } from './results-section.js';
import { loadPlatformConfig, startPlatform } from '../cli/dist/src/index.js';
import { createLogger, issueToken } from '../subgraphs/kit/dist/src/index.js';

const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const NO_WRITE = SMOKE || process.env.BENCH_NO_WRITE === '1';
const SIZES = SMOKE ? [120] : (process.env.BENCH_SIZES ?? '1000,10000,13760,100000').split(',').map(Number);
const DATABASES = (process.env.BENCH_DATABASES ?? 'embedded,postgres').split(',');
const DAYS = 15;
const SECRET = 'bench-secret-that-is-long-enough-for-hs256-signing';
const DAY = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY) * DAY;

/** Label values for about `n` series: 5 data centres, then provinces, ISPs and channels in proportion. */
function dimensions(n) {
  const dc = 5;
  const rest = n / dc;
  const channel = Math.max(2, Math.round(Math.cbrt(rest) / 2));
  const isp = Math.max(2, Math.round(Math.sqrt(rest / channel) / 2));
  const province = Math.max(8, Math.round(rest / channel / isp));
  return { dc, province, isp, channel };
}

/** The CSV body, generated as it is sent: header, then one point a line, two metrics; province p07 at 20 % yesterday. */
function csv(dims) {
  async function* lines() {
    yield 'name,timestamp,value,dc,province,isp,channel\n';
    let k = 0;
    for (let a = 0; a < dims.dc; a++) for (let b = 0; b < dims.province; b++) for (let c = 0; c < dims.isp; c++) for (let d = 0; d < dims.channel; d++) {
      const level = 50 + ((k++ * 7919) % 100);
      const province = `p${String(b).padStart(2, '0')}`;
      let chunk = '';
      for (let day = DAYS; day >= 1; day--) {
        const value = level * (1 + 0.03 * Math.sin(day * 1.7 + (k % 13))) * (day === 1 && province === 'p07' ? 0.2 : 1);
        chunk += `edge_gigabytes,${TODAY - day * DAY},${value.toFixed(2)},dc${a},${province},isp${c},ch${d}\n`;
        // A second metric on the same leaves, so the job reads other metrics' label values (candidates at label level) at this size too.
        chunk += `edge_requests,${TODAY - day * DAY},${(value * 40 * (1 + 0.02 * Math.cos(day * 2.3 + (k % 7)))).toFixed(0)},dc${a},${province},isp${c},ch${d}\n`;
      }
      yield chunk;
    }
  }
  return Readable.from(lines());
}

/**
 * Counts the statements sent to PostgreSQL that read or write the metric tables, on every copy of
 * the pg driver in this process (MikroORM brings its own).
 */
let metricQueries = 0;
const require = createRequire(import.meta.url);
const drivers = new Set([pg, require(require.resolve('pg', { paths: [require.resolve('@mikro-orm/postgresql')] }))]);
for (const driver of drivers) {
  const query = driver.Client.prototype.query;
  driver.Client.prototype.query = function counted(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string' && text.includes('insight.metric_')) metricQueries++;
    return query.call(this, config, ...rest);
  };
}

/**
 * POSTs a file as it is read, held back by the socket as curl -T is: this process is the
 * platform's too, and fetch() with a stream body reads the whole file ahead into its queue
 * (150 MiB of a 3 M point file counted as the platform's).
 */
function upload(url, headers, file) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    pipeline(createReadStream(file), req).catch(reject);
  });
}

/** The process's peak resident memory so far (VmHWM), MiB. */
async function peakMiB() {
  const match = /VmHWM:\s+(\d+) kB/.exec(await readFile('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : process.memoryUsage().rss / 2 ** 20;
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM), MiB, or undefined once it is gone. */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return status ? { rss: kb('VmRSS'), hwm: kb('VmHWM') } : undefined;
}

/** This process's child processes running the embedded database (its server, or the initdb run of a first start). */
async function databaseProcesses() {
  const children = (await readFile(`/proc/self/task/${process.pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean);
  const out = [];
  for (const pid of children) if ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes('embedded-server')) out.push(pid);
  return out;
}

/**
 * The platform's memory, every process of it counted: this one (the services) and the embedded
 * database's (its server, and the cluster's initdb on a first start). Sampled every 100 ms, the
 * peak is the largest sum, over the processes alive at a sample, of each one's own peak so far
 * (VmHWM): an upper bound of their resident memory together that a spike between two samples
 * cannot escape, and that does not add up processes that never ran at the same time (the initdb
 * run ends before the server starts). The sum of the resident memories seen (VmRSS) is kept too.
 */
function platformMemory() {
  const peaks = new Map();
  let bound = 0;
  let seen = 0;
  const sample = async () => {
    let hwm = 0;
    let rss = 0;
    for (const pid of ['self', ...(await databaseProcesses())]) {
      const m = await memoryOf(pid);
      if (!m) continue;
      hwm += m.hwm;
      rss += m.rss;
      peaks.set(pid, Math.max(peaks.get(pid) ?? 0, m.hwm));
    }
    bound = Math.max(bound, hwm);
    seen = Math.max(seen, rss);
  };
  const timer = setInterval(() => void sample(), 100);
  return {
    async stop() {
      clearInterval(timer);
      await sample();
      const database = [...peaks].filter(([pid]) => pid !== 'self').map(([, m]) => m);
      return { bound, seen, services: peaks.get('self'), database: database.length ? Math.max(...database) : null };
    },
  };
}

async function withDatabase(kind, work) {
  if (kind === 'embedded') {
    const dir = await mkdtemp(join(tmpdir(), 'svc-bench-scale-'));
    try {
      return await work({ SVC_DATA_DIR: dir });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const database = await createBenchDatabase(`svc_bench_scale_${process.pid}_${Date.now() % 100000}`);
  try {
    return await work({ DATABASE_URL: database.url });
  } finally {
    await database.drop();
  }
}

async function run(kind, size) {
  return withDatabase(kind, async (env) => {
    const memory = platformMemory();
    const config = loadPlatformConfig({
      ...env, SVC_JWT_SECRET: SECRET, SVCLLM_MASTER_KEY: 'sk-svc-master-bench-key-0123456789', SVC_SEED_DEMO: 'false',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', SERVER_PORT: '0', SVC_ROUTER_PORT: '0', SVC_INSIGHT_PORT: '0', SVC_LLM_PORT: '0', SVC_CRAWL_PORT: '0', SVC_CMS_PORT: '0', SVC_DASHBOARD_PORT: '0',
    }, 'all');
    // BENCH_LOG_LEVEL=warn (say) shows what the platform logs, on standard error.
    const platform = await startPlatform(config, 'all', createLogger({ level: process.env.BENCH_LOG_LEVEL ?? 'silent', name: 'bench', destination: process.stderr }));
    try {
      const { accessToken } = await issueToken(SECRET, { subject: 'bench', roles: ['analyst'], tenants: ['cdn'], sites: [] }, 3600);
      const auth = { authorization: `Bearer ${accessToken}` };
      const startedMiB = await peakMiB();
      const dims = dimensions(size);
      const series = dims.dc * dims.province * dims.isp * dims.channel;
      // The file is written first, as a user holds it; the upload streams it from disk (what curl -T does).
      const file = join(await mkdtemp(join(tmpdir(), 'svc-bench-csv-')), 'points.csv');
      await pipeline(csv(dims), createWriteStream(file));
      const t0 = performance.now();
      const imported = await upload(`${platform.urls.bridge}/api/v1/insight/metrics/import`, { ...auth, 'content-type': 'text/csv' }, file);
      const importBody = JSON.parse(imported.text);
      if (imported.status !== 200) throw new Error(`import answered ${imported.status}: ${imported.text.slice(0, 400)}`);
      const importSeconds = (performance.now() - t0) / 1000;
      await rm(dirname(file), { recursive: true, force: true });
      const importedMiB = await peakMiB();
      const before = metricQueries;
      const t1 = performance.now();
      const created = await fetch(`${platform.urls.bridge}/api/v1/insight/jobs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'Why did edge gigabytes drop yesterday?' }) });
      const jobId = (await created.json()).data.jobId;
      let job;
      // A status read the platform refuses while the job runs is counted and read again: it is what a user would see.
      let refusedReads = 0;
      let firstRefusal = '';
      for (;;) {
        const reply = await fetch(`${platform.urls.bridge}/api/v1/insight/jobs/${jobId}`, { headers: auth });
        const body = await reply.json().catch(() => ({}));
        if (reply.ok && body.data) {
          job = body.data;
          if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status)) break;
        } else {
          refusedReads++;
          firstRefusal ||= `${reply.status} ${String(body.message ?? '').slice(0, 160)}`;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (refusedReads) process.stdout.write(`  status reads refused while the job ran: ${refusedReads} (first: ${firstRefusal})\n`);
      const jobSeconds = (performance.now() - t1) / 1000;
      if (process.env.BENCH_REPORT_DIR) {
        await mkdir(process.env.BENCH_REPORT_DIR, { recursive: true });
        await writeFile(join(process.env.BENCH_REPORT_DIR, `${kind}-${series}.json`), JSON.stringify(job, null, 2));
      }
      const queries = metricQueries - before;
      const found = job.status === 'COMPLETED' && String(job.report?.judgment ?? '').includes('province=p07');
      const slowest = (job.steps ?? []).filter((st) => typeof st.durationMs === 'number').sort((a, b) => b.durationMs - a.durationMs).slice(0, 3).map((st) => `${st.toolName ?? st.kind} ${(st.durationMs / 1000).toFixed(2)} s`).join(', ');
      process.stdout.write(`  slowest steps: ${slowest}\n`);
      process.stdout.write(`  peak resident memory: ${startedMiB.toFixed(0)} MiB started, ${importedMiB.toFixed(0)} MiB after the import, ${(await peakMiB()).toFixed(0)} MiB after the job\n`);
      const mem = await memory.stop();
      if (mem.database !== null) process.stdout.write(`  the embedded database's process: peak ${mem.database.toFixed(0)} MiB; the platform's processes together: at most ${mem.bound.toFixed(0)} MiB (${mem.seen.toFixed(0)} MiB seen)\n`);
      return { kind, series, points: importBody.data.points, importSeconds, jobSeconds, peakMiB: mem.services, databaseMiB: mem.database, platformMiB: mem.bound, sampledMiB: mem.seen, queries, status: job.status, found, error: job.error ?? null, refusedReads };
    } finally {
      await platform.close();
    }
  });
}

/** One run in a process of its own (so its peak memory is its own), answered as a JSON line. */
async function inChild(kind, size) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_RUN: `${kind}:${size}` }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    process.stdout.write(String(chunk).split('\n').filter((l) => l && !l.startsWith('RESULT ')).map((l) => `${l}\n`).join(''));
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (code !== 0 || !line) throw new Error(`the ${kind} run at ${size} series exited with ${code}`);
  return JSON.parse(line.slice('RESULT '.length));
}

async function main() {
  if (process.env.BENCH_RUN) {
    const [kind, size] = process.env.BENCH_RUN.split(':');
    const row = await run(kind, Number(size));
    // Written through before the process exits (a pipe's writes are asynchronous).
    await new Promise((resolve) => process.stdout.write(`RESULT ${JSON.stringify(row)}\n`, resolve));
    return;
  }
  const rows = [];
  for (const kind of DATABASES) {
    for (const size of SIZES) {
      const row = await inChild(kind, size);
      rows.push(row);
      process.stdout.write(`${kind} ${row.series} series: import ${Math.round(row.points / row.importSeconds)} points/s, job ${row.jobSeconds.toFixed(2)} s (${row.status}${row.found ? ', names province=p07' : `, does not name the cause${row.error ? `: ${row.error}` : ''}`}), peak ${row.platformMiB.toFixed(0)} MiB for the platform's processes (services ${row.peakMiB.toFixed(0)}${row.databaseMiB === null ? '' : `, embedded database ${row.databaseMiB.toFixed(0)}`}), ${row.queries} metric queries\n`);
    }
  }
  const growth = (kind, key) => {
    const mine = rows.filter((r) => r.kind === kind);
    return mine.slice(1).map((r, i) => `×${(r[key] / mine[i][key]).toFixed(2)}`).join(', ') || '-';
  };
  const md = [
    `Run ${new Date().toISOString().slice(0, 10)} with \`npm run bench:insight-scale\` (2 shared cores, load average ${loadavg()[0].toFixed(1)}): import through \`POST /api/v1/insight/metrics/import\` (CSV, ${DAYS} daily points a series; two metrics on the same series labels, edge_gigabytes and edge_requests, so "series" counts one metric's and "points" both), then "Why did edge gigabytes drop yesterday?" through the API until the report is written (the job reads edge_requests' label values as candidates too). Targets: 13,760 series in ≤ 3 s of job time, 100,000 in ≤ 15 s, peak memory ≤ 1 GiB, metric queries per job flat; import ≥ 100,000 points/s on PostgreSQL.`,
    '',
    '| database | series | points | import points/s | job s | peak RSS MiB of the platform\'s processes together (bound) | the same, as sampled | services process alone | embedded database process alone | metric queries / job | report names the cause | status reads refused |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
    ...rows.map((r) => `| ${r.kind} | ${r.series.toLocaleString('en-US')} | ${r.points.toLocaleString('en-US')} | ${Math.round(r.points / r.importSeconds).toLocaleString('en-US')} | ${r.jobSeconds.toFixed(2)} | ${r.platformMiB.toFixed(0)} | ${r.sampledMiB.toFixed(0)} | ${r.peakMiB.toFixed(0)} | ${r.databaseMiB === null ? '-' : r.databaseMiB.toFixed(0)} | ${r.queries} | ${r.found ? 'yes' : `no (${r.status})`} | ${r.refusedReads} |`),
    '',
    ...DATABASES.map((kind) => `Growth from one size to the next, ${kind}: job time ${growth(kind, 'jobSeconds')}; metric queries ${growth(kind, 'queries')}; peak memory of the platform's processes ${growth(kind, 'platformMiB')}.`),
    '',
  ].join('\n');
  process.stdout.write(`${md}\n`);
  if (!NO_WRITE) await writeResultsSection('Analysis at scale', md);
  if (rows.some((r) => !r.found)) throw new Error('a run did not name the planted cause');
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
