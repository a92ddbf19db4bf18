// Model gateway overhead benchmark: `npm run bench` (builds, then runs this file).
//
// Measures, in one run, POST /v1/chat/completions against
//   - the fake OpenAI-compatible upstream called directly (the baseline),
//   - our platform (REST bridge -> router -> llm subgraph -> upstream), every request going
//     upstream (svcllm_options.cacheBypass), and separately a response-cache-hit variant,
//   - Portkey's open-source gateway (@portkey-ai/gateway) in front of the same upstream,
// at concurrency 1 and 64: p50/p99, added latency (minus direct), throughput and ratios. Then it
// splits our added latency: the llm subgraph and the router called directly (interleaved with
// the bridge and the upstream), the database and cache work timed alone with the platform's own
// services, SQL statements and Redis commands counted per request, CPU per request per process
// (/proc) and a CPU profile of the platform process. Prints a table and writes bench/RESULTS.md,
// whose interpretation is generated from the measured numbers.
//
// Processes: this one runs the platform (startPlatform(config, 'all')); the fake upstream
// (fake-upstream.js), the load generator (load-worker.js) and Portkey run in their own.
//
// Needs PostgreSQL (with pgvector, as for the tests) and Redis on loopback, like `npm test`:
// SVC_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) and SVC_TEST_REDIS_URL
// (default redis://127.0.0.1:6379). A fresh database and Redis prefix are used and removed.
// Knobs: BENCH_C1_REQUESTS (default 2000), BENCH_C64_SECONDS (default 10), BENCH_PROFILE=0 (no
// CPU profile), BENCH_PROFILE_TARGET (the target profiled, default svc; svcLimited for limits on),
// BENCH_NO_WRITE=1 (print the report instead of writing RESULTS.md), BENCH_PIN=0 (no CPU pinning).
// Cores: each gateway under test (this process, which runs the platform; Portkey; the bare proxy)
// is pinned to the last CPU and the load generator and fake upstream to the others (taskset, all
// threads), so every gateway gets the same dedicated core and none takes CPU from the load
// generator; PostgreSQL and Redis are left to the scheduler. A shorter unpinned c=64 pass of svc
// and Portkey follows, reported beside the pinned figures.
// SVC_BENCH_SMOKE=1: a smoke run (a few requests per target, no profile, no component timing, no
// RESULTS.md written), to check the benchmark still runs end to end; its figures mean nothing.
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { loadPlatformConfig, startPlatform, OPERATIONS_DIR } from '../cli/dist/src/index.js';
import { createCache, createLogger, loadOperations, openDatabase } from '../subgraphs/kit/dist/src/index.js';
import { freePort } from './free-port.js';
import { cpuTicks } from './proc-stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const C1_REQUESTS = SMOKE ? 8 : Number(process.env.BENCH_C1_REQUESTS ?? 2000);
const C64_MS = SMOKE ? 200 : Number(process.env.BENCH_C64_SECONDS ?? 10) * 1000;
const STREAM_REQUESTS = SMOKE ? 3 : Number(process.env.BENCH_STREAM_REQUESTS ?? 500);
const HIGH = 64;
// Many short rounds with a rotated order: drift on this shared machine then hits every target
// alike, and the ratios between targets move less from run to run than with a few long ones.
const ROUNDS_C1 = SMOKE ? 1 : 12; // twice through the 6 headline targets' positions
const ROUNDS_HIGH = SMOKE ? 1 : 8; // once through the 8 targets' positions
const SPLIT_REQUESTS = SMOKE ? 4 : Math.max(100, Math.round(C1_REQUESTS / 2));
/** Warm-up sizes (requests, ms, interleaved rounds): tiny in a smoke run. */
const WARM = SMOKE ? { requests: 2, ms: 50, rounds: 2, initialMs: 100 } : { requests: 100, ms: 500, rounds: 100, initialMs: 1500 };
/** Limits on the limited agent: high enough never to refuse a benchmark request. */
const BENCH_LIMITS = { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 };
const MASTER_KEY = `sk-svc-master-bench-${randomBytes(12).toString('hex')}`;
const AGENT = 'bench';
const LIMITED_AGENT = 'bench-limited';
const PORTKEY_SCRIPT = join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');
const PORTKEY_PRELOAD = new URL('./portkey-stream-preload.js', import.meta.url).href;

const log = (...args) => console.error('[bench]', ...args);
const round = (v, d = 2) => (Number.isFinite(v) ? Number(v.toFixed(d)) : v);
const fmt = (v, d = 2) => (v === undefined || v === null || Number.isNaN(v) ? '–' : Number(v).toFixed(d));
const signed = (v, d = 2) => (v === undefined || Number.isNaN(v) ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(d)}`);

// ---------------------------------------------------------------------------------------------
// What a request costs in round trips: count the SQL statements and Redis commands the platform
// (in this process) sends, by wrapping the pg client(s) and ioredis. Counting only while armed.

const counters = { armed: false, statements: 0, begins: 0, commits: 0, writes: 0, redis: 0 };
function resetCounters() {
  Object.assign(counters, { statements: 0, begins: 0, commits: 0, writes: 0, redis: 0 });
}
function instrumentClients() {
  const pgModules = new Set();
  // MikroORM may bring its own copy of pg; count both it and the top-level one.
  for (const from of [import.meta.url, (() => { try { return import.meta.resolve('@mikro-orm/postgresql'); } catch { return undefined; } })()]) {
    if (!from) continue;
    try {
      pgModules.add(createRequire(from)('pg'));
    } catch {
      // not resolvable from there
    }
  }
  for (const mod of pgModules) {
    const proto = mod.Client?.prototype;
    if (!proto || proto.svcBenchCounted) continue;
    const query = proto.query;
    proto.query = function countedQuery(config, ...rest) {
      if (counters.armed) {
        const text = (typeof config === 'string' ? config : config?.text ?? '').trimStart().slice(0, 10).toLowerCase();
        counters.statements++;
        if (text.startsWith('begin') || text.startsWith('start')) this.svcBenchInTx = true, counters.begins++;
        else if (text.startsWith('commit')) this.svcBenchInTx = false, counters.commits++;
        else if (text.startsWith('rollback')) this.svcBenchInTx = false;
        else if (/^(insert|update|delete|with)/.test(text)) {
          counters.writes++;
          if (!this.svcBenchInTx) counters.commits++; // autocommit write
        }
      }
      return query.call(this, config, ...rest);
    };
    proto.svcBenchCounted = true;
  }
  const send = Redis.prototype.sendCommand;
  if (!Redis.prototype.svcBenchCounted) {
    Redis.prototype.sendCommand = function countedCommand(...args) {
      if (counters.armed) counters.redis++;
      return send.apply(this, args);
    };
    Redis.prototype.svcBenchCounted = true;
  }
  return pgModules.size;
}
/** Counts per call of `fn`, run `times` times sequentially. */
async function countPerCall(fn, times) {
  resetCounters();
  counters.armed = true;
  for (let i = 0; i < times; i++) await fn();
  counters.armed = false;
  return perUnit({ ...counters }, times);
}
function perUnit(c, n) {
  return { statements: c.statements / n, begins: c.begins / n, commits: c.commits / n, writes: c.writes / n, redis: c.redis / n };
}

// ---------------------------------------------------------------------------------------------
// Processes and services

/**
 * Pins `gateways` (pids, all their threads) to the last CPU and `loads` to the others with
 * taskset; `unpin()` lets them all run anywhere again. Without taskset, with one CPU or with
 * BENCH_PIN=0 nothing is pinned, and `why` says so in the report.
 */
function pinCores(gateways, loads) {
  const cpus = os.cpus().length;
  const all = `0-${cpus - 1}`;
  const set = (list, pids) => {
    for (const pid of pids) {
      const r = spawnSync('taskset', ['-a', '-p', '-c', list, String(pid)], { encoding: 'utf8' });
      if (r.error || r.status !== 0) return r.error?.message ?? r.stderr.trim();
    }
    return undefined;
  };
  const none = (why) => ({ pinned: false, why, unpin() {} });
  if (process.env.BENCH_PIN === '0') return none('BENCH_PIN=0');
  if (cpus < 2) return none('one CPU');
  const gatewayCpu = String(cpus - 1);
  const loadCpus = cpus === 2 ? '0' : `0-${cpus - 2}`;
  const failed = set(gatewayCpu, gateways) ?? set(loadCpus, loads);
  if (failed) {
    set(all, [...gateways, ...loads]);
    return none(`taskset failed: ${failed}`);
  }
  return { pinned: true, gatewayCpu, loadCpus, unpin: () => set(all, [...gateways, ...loads]) };
}

function forkChild(file, name, options = {}, args = []) {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...options });
  const ready = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  return { child, ready };
}

/** The commit measured, and which platform directories had uncommitted changes at start. */
function platformRevision() {
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  };
  const commit = git('rev-parse', '--short=12', 'HEAD') || 'unknown';
  const changed = git('status', '--porcelain', '--', 'subgraphs', 'router', 'rest-bridge', 'cli', 'schema').split('\n').filter(Boolean).map((l) => l.slice(3));
  return { commit, dirty: changed.length ? changed.slice(0, 8).map((f) => `\`${f}\``).join(', ') + (changed.length > 8 ? ', …' : '') : '' };
}

async function createDatabase() {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL} (${error.message}); run bash scripts/provision.sh or set SVC_TEST_PG_URL`);
  }
  const name = `svc_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const version = (await admin.query('show server_version')).rows[0].server_version;
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  await check.query('create extension if not exists vector').catch((error) => log(`pgvector: ${error.message}`));
  await check.end();
  return { url, name, version };
}

async function dropDatabase(name) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  await admin.end();
}

async function redisInfo() {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    const info = await redis.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
  } catch (error) {
    throw new Error(`Redis is not reachable at ${REDIS_URL} (${error.message}); run bash scripts/provision.sh or set SVC_TEST_REDIS_URL`);
  } finally {
    redis.disconnect();
  }
}

async function deleteRedisPrefix(prefix) {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function startPortkey(port) {
  if (!existsSync(PORTKEY_SCRIPT)) throw new Error(`${PORTKEY_SCRIPT} is missing: run npm install (it is a root devDependency)`);
  // The preload only repairs Portkey's streamed answers on Node 24 (see portkey-stream-preload.js).
  const child = spawn(process.execPath, ['--import', PORTKEY_PRELOAD, PORTKEY_SCRIPT, `--port=${port}`, '--headless'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`Portkey gateway exited (${child.exitCode}): ${output.slice(-2000)}`);
    try {
      await fetch(`${url}/`);
      return { child, url };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill();
  throw new Error(`Portkey gateway did not start: ${output.slice(-2000)}`);
}

function stopChild(child, signal = 'SIGTERM') {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

// CPU time per process from /proc (Linux): attributes CPU per request to each party.
const TICK_MS = 10; // USER_HZ is 100 on Linux.
/** utime + stime of a process in ticks, 0 once it is gone. */
function ticksOf(pid) {
  try {
    return cpuTicks(pid);
  } catch {
    return 0;
  }
}
/** Processes whose command name is `comm` and, when given, whose title (cmdline) passes `filter`. */
function pidsNamed(comm, filter = () => true) {
  try {
    return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm && filter(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}
/** Busy ticks of the whole machine (all CPUs) from /proc/stat. */
function machineBusyTicks() {
  try {
    const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return 0;
  }
}
/** Per party: ticks per pid (processes come and go: PostgreSQL backends). */
function cpuSnapshot(parties) {
  const snap = { 'machine busy': new Map([[0, machineBusyTicks()]]) };
  for (const [name, list] of Object.entries(parties)) snap[name] = new Map(list().map((pid) => [pid, ticksOf(pid)]));
  return snap;
}
/** Ticks spent between two snapshots; a process born in between counts whole. */
function cpuDelta(before, after) {
  const delta = {};
  for (const [name, pids] of Object.entries(after)) {
    let sum = 0;
    for (const [pid, ticks] of pids) sum += ticks - (before[name]?.get(pid) ?? 0);
    delta[name] = sum;
  }
  return delta;
}

// ---------------------------------------------------------------------------------------------
// Load

let nextId = 0;
/** Runs a scenario in the load worker; `onMeasuring` runs when its warm-up ends and measuring starts. */
function runLoad(worker, scenario, onMeasuring = () => {}) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message?.id !== id) return;
      if (message.type === 'measuring') return onMeasuring();
      worker.off('message', onMessage);
      if (message.type === 'error') reject(new Error(message.message));
      else resolve(message.result);
    };
    worker.on('message', onMessage);
    worker.send({ type: 'run', id, scenario });
  });
}

/** Times an async function in this process: c=1 for `requests`, or `concurrency` loops for `ms`. */
async function timeInProcess(fn, { requests = Infinity, ms = Infinity, concurrency = 1, warmup = 50 }) {
  for (let i = 0; i < warmup; i++) await fn();
  const latencies = [];
  const t0 = performance.now();
  const deadline = t0 + ms;
  let started = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (started < requests && performance.now() < deadline) {
      started++;
      const s = performance.now();
      await fn();
      latencies.push(performance.now() - s);
    }
  }));
  const elapsed = performance.now() - t0;
  return summarise(latencies, elapsed);
}

function summarise(latencies, elapsedMs) {
  const sorted = Float64Array.from(latencies).sort();
  const q = (p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
  return { requests: sorted.length, p50: q(0.5), p99: q(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, throughput: (sorted.length / elapsedMs) * 1000 };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const startedAt = new Date();
  const gitInfo = platformRevision();
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const redisVersion = await redisInfo();
  const cleanups = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) {
      const started = performance.now();
      await step().catch((error) => log(`cleanup: ${error.message}`));
      if (performance.now() - started > 2000) log(`cleanup: ${step.toString().slice(0, 80)} took ${fmt((performance.now() - started) / 1000, 1)} s`);
    }
    cleanups.length = 0;
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

  const pgCopies = instrumentClients();
  if (!pgCopies) log('could not find the pg client to count statements; counts will read 0');
  try {
    // 1. Fake upstream, in its own process.
    const upstream = forkChild('./fake-upstream.js', 'fake upstream');
    cleanups.push(() => stopChild(upstream.child));
    const upstreamUrl = (await upstream.ready).url;
    log(`fake upstream ${upstreamUrl}`);
    // The floor: a bare Node.js proxy in front of the same upstream, in its own process.
    const bare = forkChild('./bare-proxy.js', 'bare proxy', {}, [upstreamUrl]);
    cleanups.push(() => stopChild(bare.child));
    const bareUrl = (await bare.ready).url;

    // 2. Our platform, in this process, on a fresh database.
    const db = await createDatabase();
    cleanups.push(() => dropDatabase(db.name));
    const configDir = await mkdtemp(join(os.tmpdir(), 'svc-bench-'));
    cleanups.push(() => rm(configDir, { recursive: true, force: true }));
    const configFile = join(configDir, 'gateway.json');
    await writeFile(configFile, JSON.stringify({
      providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: `${upstreamUrl}/v1` }],
      models: [{ name: 'bench-model', provider: 'fake', model: 'fake-model', inputPerMTok: 2.5, outputPerMTok: 10, maxOutputTokens: 256 }],
      aliases: { 'fast-track': ['bench-model'], 'deep-reasoning': ['bench-model'] },
    }));
    const redisPrefix = `svcbench:${process.pid}:${randomBytes(3).toString('hex')}:`;
    cleanups.push(() => deleteRedisPrefix(redisPrefix));
    const config = loadPlatformConfig({
      DATABASE_URL: db.url,
      REDIS_URL,
      SVC_REDIS_PREFIX: redisPrefix,
      SVC_JWT_SECRET: randomBytes(32).toString('base64url'),
      SVC_ADMIN_PASSWORD: randomBytes(12).toString('base64url'),
      SVCLLM_MASTER_KEY: MASTER_KEY,
      SVCLLM_CONFIG: configFile,
      SVC_SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
      SERVER_PORT: '0',
      SVC_ROUTER_PORT: '0',
      SVC_INSIGHT_PORT: '0',
      SVC_LLM_PORT: '0',
      SVC_CRAWL_PORT: '0',
      SVC_CMS_PORT: '0',
      SVC_DASHBOARD_PORT: '0',
      SVC_DATA_DIR: configDir,
    }, 'all');
    const platformLog = createLogger({ level: 'silent', name: 'bench' });
    const platform = await startPlatform(config, 'all', platformLog);
    cleanups.push(() => platform.close());
    const { bridge, router, llm } = platform.urls;
    log(`platform: bridge ${bridge}, router ${router}, llm ${llm}`);

    const admin = async (path, body) => {
      const res = await fetch(`${bridge}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${MASTER_KEY}` }, body: JSON.stringify(body) });
      const json = await res.json();
      if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    await admin('/admin/v1/budgets', { agentCode: AGENT, monthlyBudgetUsd: 1_000_000, hardLimitEnabled: true });
    const agentKey = (await admin('/admin/v1/keys', { agentCode: AGENT, name: 'bench' })).key;
    // The same, with rate limits switched on (a requests and a tokens per minute limit that never refuse).
    await admin('/admin/v1/budgets', { agentCode: LIMITED_AGENT, monthlyBudgetUsd: 1_000_000, hardLimitEnabled: true });
    await admin(`/admin/v1/agents/${LIMITED_AGENT}/limits`, BENCH_LIMITS);
    const limitedKey = (await admin('/admin/v1/keys', { agentCode: LIMITED_AGENT, name: 'bench' })).key;

    // 3. Portkey's gateway, in its own process, in front of the same upstream.
    const portkey = await startPortkey(await freePort());
    cleanups.push(() => stopChild(portkey.child));
    const portkeyVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')).version;
    log(`portkey ${portkeyVersion} ${portkey.url}`);

    // 4. Load generator, in its own process.
    const load = forkChild('./load-worker.js', 'load worker', { serialization: 'advanced' });
    cleanups.push(() => stopChild(load.child));
    await load.ready;
    const pinning = pinCores([process.pid, portkey.child.pid, bare.child.pid], [load.child.pid, upstream.child.pid]);
    log(pinning.pinned ? `pinned: gateways to CPU ${pinning.gatewayCpu}, load generator and fake upstream to CPU ${pinning.loadCpus}` : `not pinned (${pinning.why})`);

    // Every target gets the same chat request body.
    const chat = { model: 'fast-track', messages: [{ role: 'user', content: 'ping' }], max_tokens: 16 };
    const bypassBody = JSON.stringify({ ...chat, svcllm_options: { cacheBypass: true } });
    const cachedBody = JSON.stringify(chat);
    const operations = await loadOperations(OPERATIONS_DIR);
    const graphqlBody = (body) => JSON.stringify({ query: operations.get('ChatCompletion'), operationName: 'ChatCompletion', variables: { request: JSON.parse(body) } });
    const agentAuth = { authorization: `Bearer ${agentKey}` };
    const targets = {
      direct: { label: 'fake upstream, direct', url: `${upstreamUrl}/v1/chat/completions`, headers: { authorization: 'Bearer sk-fake' }, body: bypassBody },
      bare: { label: 'bare Node.js proxy (node:http + undici, forwards only)', url: `${bareUrl}/v1/chat/completions`, headers: { authorization: 'Bearer sk-fake' }, body: bypassBody, checkHeader: 'x-bare-proxy', expectHeader: '1' },
      svc: { label: 'svc gateway (bridge → llm native, one process), cacheBypass', url: `${bridge}/v1/chat/completions`, headers: agentAuth, body: bypassBody, checkHeader: 'x-svc-cache', expectHeader: 'BYPASS' },
      portkey: {
        label: `Portkey gateway ${portkeyVersion}`,
        url: `${portkey.url}/v1/chat/completions`,
        headers: { authorization: 'Bearer sk-fake', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamUrl}/v1` },
        body: bypassBody,
        checkHeader: 'x-portkey-provider',
        expectHeader: 'openai',
      },
      svcLimited: { label: 'svc gateway, cacheBypass, RPM + TPM limits on', url: `${bridge}/v1/chat/completions`, headers: { authorization: `Bearer ${limitedKey}` }, body: bypassBody, checkHeader: 'x-ratelimit-limit-requests', expectHeader: String(BENCH_LIMITS.requestsPerMinute) },
      svcHit: { label: 'svc gateway, response-cache hit (no upstream call)', url: `${bridge}/v1/chat/completions`, headers: agentAuth, body: cachedBody, checkHeader: 'x-svc-cache', expectHeader: 'HIT' },
      router: { label: 'hop split: router GraphQL (router → llm), cacheBypass', url: router, headers: agentAuth, body: graphqlBody(bypassBody) },
      llm: { label: 'hop split: llm subgraph GraphQL, cacheBypass', url: llm, headers: agentAuth, body: graphqlBody(bypassBody) },
    };

    // Sanity: each target answers the fake completion (and primes the response cache for svcHit).
    for (const [name, t] of Object.entries(targets)) {
      const res = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: t.body });
      const text = await res.text();
      const json = JSON.parse(text);
      const completion = json.data?.chatCompletion?.completion ?? json;
      if (res.status !== 200 || completion?.choices?.[0]?.message?.content !== 'pong') throw new Error(`${name}: unexpected answer ${res.status} ${text.slice(0, 500)}`);
    }

    // CPU accounting per party (Linux /proc).
    const cpuParties = {
      'svc platform (this process)': () => [process.pid],
      'Portkey': () => [portkey.child.pid],
      'bare proxy': () => [bare.child.pid],
      'fake upstream': () => [upstream.child.pid],
      'load generator': () => [load.child.pid],
      // Backends of our database, plus the server's background processes (titles without a client address).
      'PostgreSQL': () => pidsNamed('postgres', (title) => title.includes(` ${db.name} `) || !title.includes('(')),
      'Redis': () => pidsNamed('redis-server'),
    };

    // Warm every path up first (JIT, connection pools, query plans), unrecorded.
    log('warming up every target ...');
    for (const t of Object.values(targets)) {
      await runLoad(load.child, { url: t.url, headers: t.headers, body: t.body, concurrency: 8, durationMs: 1, warmupMs: WARM.initialMs, checkHeader: t.checkHeader, expectHeader: t.expectHeader });
    }

    const order = ['direct', 'bare', 'svc', 'svcLimited', 'portkey', 'svcHit', 'llm', 'router'];
    const results = Object.fromEntries(order.map((name) => [name, {}]));
    const finish = (name, concurrency, a, into = results) => {
      const result = { ...summarise(a.latencies, a.elapsedMs), requests: a.requests, errors: a.errors, headerMismatches: a.headerMismatches, firstError: a.firstError, elapsedMs: a.elapsedMs };
      result.throughput = (a.requests / a.elapsedMs) * 1000;
      if (a.counted) result.perRequest = perUnit(a.counted, a.requests);
      result.cpuMsPerRequest = {};
      if (a.cpuTicks) {
        result.cpuMsPerRequest = Object.fromEntries(Object.entries(a.cpuTicks).map(([k, ticks]) => [k, Math.max(0, ticks * TICK_MS) / a.requests]));
        // Machine-wide busy CPU not accounted to any party: other processes on the machine.
        result.cpuMsPerRequest['other processes'] = Math.max(0, result.cpuMsPerRequest['machine busy'] - Object.entries(result.cpuMsPerRequest).filter(([k]) => k !== 'machine busy').reduce((sum, [, v]) => sum + v, 0));
        // Percent of one core, like top: at most 100 × cores.
        result.machineBusyPercent = (100 * a.cpuTicks['machine busy'] * TICK_MS) / a.elapsedMs;
      }
      if (result.errors || result.headerMismatches) log(`  ${targets[name].label}: ${result.errors} errors, ${result.headerMismatches} header mismatches; first: ${result.firstError}`);
      log(`  ${targets[name].label}, c=${concurrency}: ${result.requests} requests, ${fmt(result.throughput, 0)} req/s, p50 ${fmt(result.p50, 3)} ms, p99 ${fmt(result.p99, 3)} ms`);
      (into[name] ??= {})[concurrency] = result;
    };

    // One target at a time (so its CPU can be counted and throughput has the machine to itself),
    // in rounds with a rotating order, merged per target, so slow drift does not favour whoever
    // runs first.
    const runRounds = async (names, concurrency, rounds, scenarioOf, into = results) => {
      const acc = {};
      for (let round = 0; round < rounds; round++) {
        const rotated = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
        log(`c=${concurrency}, round ${round + 1}/${rounds}`);
        for (const name of rotated) {
          const t = targets[name];
          const scenario = { url: t.url, headers: t.headers, body: t.body, concurrency, checkHeader: t.checkHeader, expectHeader: t.expectHeader, ...scenarioOf(name) };
          // CPU is counted over the measured phase only (not the warm-up).
          let before;
          const r = await runLoad(load.child, scenario, () => {
            before = cpuSnapshot(cpuParties);
            resetCounters();
            counters.armed = true;
          });
          counters.armed = false;
          const counted = { ...counters };
          const delta = cpuDelta(before, cpuSnapshot(cpuParties));
          const a = (acc[name] ??= { requests: 0, errors: 0, headerMismatches: 0, elapsedMs: 0, parts: [], cpuTicks: {}, counted: {} });
          for (const [k, v] of Object.entries(counted)) if (k !== 'armed') a.counted[k] = (a.counted[k] ?? 0) + v;
          a.requests += r.requests;
          a.errors += r.errors;
          a.headerMismatches += r.headerMismatches;
          a.firstError ??= r.firstError;
          a.elapsedMs += r.elapsedMs;
          a.parts.push(r.latencies);
          for (const [k, ticks] of Object.entries(delta)) a.cpuTicks[k] = (a.cpuTicks[k] ?? 0) + ticks;
        }
      }
      for (const name of names) {
        const a = acc[name];
        a.latencies = new Float64Array(a.parts.reduce((n, l) => n + l.length, 0));
        let offset = 0;
        for (const l of a.parts) a.latencies.set(l, offset), (offset += l.length);
        finish(name, concurrency, a, into);
      }
    };

    // Concurrency 1, the headline targets: back to back, each process kept hot by its own loop.
    const headline = ['direct', 'bare', 'svc', 'svcLimited', 'portkey', 'svcHit'];
    await runRounds(headline, 1, ROUNDS_C1, () => ({ requests: Math.ceil(C1_REQUESTS / ROUNDS_C1), durationMs: 60_000 / ROUNDS_C1, warmupRequests: WARM.requests }));

    // Concurrency 1, the hop split: direct, llm subgraph, router and bridge interleaved request by
    // request, so drift and other load hit them alike (the split subtracts medians of different runs).
    const splitNames = ['direct', 'llm', 'router', 'svc'];
    log(`c=1, hop split: ${SPLIT_REQUESTS} requests per target, interleaved`);
    const interleaved = await runLoad(load.child, { targets: splitNames.map((name) => ({ name, ...targets[name] })), requests: SPLIT_REQUESTS, warmupRounds: WARM.rounds, maxMs: 60_000 });
    const split = {};
    for (const name of splitNames) {
      const a = interleaved[name];
      split[name] = { ...summarise(a.latencies, a.elapsedMs), requests: a.requests, errors: a.errors + a.headerMismatches, elapsedMs: a.elapsedMs };
      if (split[name].errors) log(`  ${targets[name].label}: ${split[name].errors} errors; first: ${a.firstError}`);
      if (name === 'llm' || name === 'router') finish(name, 1, a);
    }
    log(`  interleaved p50: ${splitNames.map((n) => `${n} ${fmt(split[n].p50, 3)}`).join(', ')} ms`);

    // Concurrency 64: every target, the hop-split ones for half the time.
    await runRounds(order, HIGH, ROUNDS_HIGH, (name) => ({ durationMs: (name === 'llm' || name === 'router' ? C64_MS / 2 : C64_MS) / ROUNDS_HIGH, warmupMs: WARM.ms }));

    // Streaming: a 200-chunk stream through each target at c=1, time to the first byte and to [DONE].
    log('streaming, 200-chunk stream at c=1 ...');
    const streamBody = JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true }, svcllm_options: { cacheBypass: true } });
    const streaming = {};
    for (const name of ['direct', 'svc', 'portkey']) {
      const t = targets[name];
      try {
        const a = await runLoad(load.child, { url: t.url, headers: t.headers, body: streamBody, concurrency: 1, requests: STREAM_REQUESTS, warmupRequests: SMOKE ? 1 : 50 });
        streaming[name] = { done: summarise(a.latencies, a.elapsedMs), firstByte: summarise(a.firstBytes, a.elapsedMs), errors: a.errors, requests: a.requests };
        log(`  ${t.label}: first byte p50 ${fmt(streaming[name].firstByte.p50, 3)} ms, [DONE] p50 ${fmt(streaming[name].done.p50, 3)} ms`);
      } catch (error) {
        // Kept in the report: a target that cannot stream this upstream is a finding, not a crash.
        streaming[name] = { failed: error.message.slice(0, 200) };
        log(`  ${t.label}: streaming failed: ${streaming[name].failed}`);
      }
    }

    // Where the platform process spends its CPU: a sampling profile of a separate c=64 run.
    let profile;
    if (process.env.BENCH_PROFILE !== '0' && !SMOKE) {
      const t = targets[process.env.BENCH_PROFILE_TARGET ?? 'svc'];
      if (!t) throw new Error(`BENCH_PROFILE_TARGET names no target: ${process.env.BENCH_PROFILE_TARGET} (one of ${Object.keys(targets).join(', ')})`);
      log(`CPU profile of the platform process, ${t.label} at c=${HIGH} ...`);
      profile = { ...(await profilePlatform(() => runLoad(load.child, { url: t.url, headers: t.headers, body: t.body, concurrency: HIGH, durationMs: 4000, warmupMs: 500 }))), label: t.label };
    }

    // 5. The per-request PostgreSQL and Redis work of a cacheBypass request, timed on its own in
    // this process with the platform's own services (same code, same database, same agent row).
    // The same c=64 targets with nothing pinned (shorter, one round), for comparison: every
    // process then takes whichever core is free, and the figures move more between runs.
    const unpinned = {};
    if (pinning.pinned) {
      pinning.unpin();
      await runRounds(['svc', 'svcLimited', 'portkey'], HIGH, 2, () => ({ durationMs: C64_MS / 4, warmupMs: WARM.ms }), unpinned);
    }

    if (!SMOKE) log('per-request database and cache work ...');
    const components = SMOKE ? undefined : await measureComponents({ dbUrl: db.url, poolMax: config.DB_POOL_MAX, agentKey, redisPrefix, log: platformLog });

    const report = buildReport({ startedAt, results, targets, components, portkeyVersion, pgVersion: db.version, redisVersion, poolMax: config.DB_POOL_MAX, loadAtStart, split, profile, gitInfo, streaming, pinning, unpinned });
    console.log(report.console);
    if (SMOKE) log('smoke run (SVC_BENCH_SMOKE=1): RESULTS.md left as it is');
    else if (process.env.BENCH_NO_WRITE === '1') console.log(`\n${report.markdown}`);
    else {
      // Only the gateway part is rewritten: the Crawling section below it belongs to bench:crawl.
      const existing = await readFile(RESULTS_FILE, 'utf8').catch(() => '');
      const crawling = existing.indexOf('\n# Crawling\n');
      await writeFile(RESULTS_FILE, crawling >= 0 ? `${report.markdown.replace(/\s*$/, '')}\n${existing.slice(crawling)}` : report.markdown);
      log(`wrote ${RESULTS_FILE}`);
    }
  } finally {
    await cleanup();
  }
}

/** Area of the code a profiled function belongs to: an npm package, a svc workspace, or Node itself. */
function areaOf(url, functionName) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8 garbage collector';
    if (functionName === '(program)') return 'V8/native (program)';
    if (functionName === 'runMicrotasks') return 'V8 promise microtasks';
    if (/^write(Buffer|v|Utf8String|Latin1String|AsciiString)$/.test(functionName)) return 'native: socket writes';
    return `native: ${functionName}`;
  }
  if (url.startsWith('wasm://')) return 'undici (Node fetch)'; // llhttp, undici's HTTP parser
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const [first, second] = url.slice(nm + '/node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (url.startsWith('node:internal/deps/undici')) return 'undici (Node fetch)';
  if (url.startsWith('node:')) {
    const mod = url.replace(/^node:(internal\/)?/, '').split('/')[0].replace(/^_http_.*/, 'http').replace(/^(stream_base_commons|streams?)$/, 'streams');
    return `Node core: ${mod}`;
  }
  const ws = /\/work\/main\/(subgraphs\/[^/]+|[^/]+)\//.exec(url) ?? /\/((?:subgraphs\/)?(?:kit|llm|insight|cms|router|rest-bridge|cli))\/dist\//.exec(url);
  if (ws) return `svc: ${ws[1]}`;
  return url;
}

/** Samples this process's CPU while `run` runs; self time by area and by function, idle excluded. */
async function profilePlatform(run) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 250 });
    await session.post('Profiler.start');
    const result = await run();
    const { profile } = await session.post('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const areas = new Map();
    const functions = new Map();
    let busy = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      const node = byId.get(profile.samples[i]);
      const dt = profile.timeDeltas[i + 1] ?? 0;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)' || functionName === '(root)') continue;
      busy += dt;
      const area = areaOf(url, functionName);
      areas.set(area, (areas.get(area) ?? 0) + dt);
      const fn = url ? `${functionName || '(anonymous)'} (${url.startsWith('node:') ? url : area}${url.includes('/work/main/') && !url.includes('node_modules') ? ` ${url.replace(/^.*\/work\/main\//, '')}` : ''}:${lineNumber + 1})` : functionName || '(anonymous native)';
      functions.set(fn, (functions.get(fn) ?? 0) + dt);
    }
    const top = (map, n) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) => ({ name, percent: (100 * us) / busy }));
    const wallUs = profile.endTime - profile.startTime;
    return { requests: result.requests, busyPercent: (100 * busy) / wallUs, busyMsPerRequest: busy / 1000 / (result.requests || 1), areas: top(areas, 18), functions: top(functions, 15) };
  } finally {
    session.disconnect();
  }
}

async function measureComponents({ dbUrl, poolMax, agentKey, redisPrefix, log: silent }) {
  const dist = join(ROOT, 'subgraphs/llm/dist/src');
  let budgetModule, keyModule, stores, leaseTtlMs, migrations, limiterModules;
  try {
    budgetModule = await import(pathToFileURL(join(dist, 'service/budget-service.js')).href);
    keyModule = await import(pathToFileURL(join(dist, 'service/key-service.js')).href);
    leaseTtlMs = (await import(pathToFileURL(join(dist, 'service/budget-leases.js')).href)).LEASE_TTL_MS;
    stores = {};
    for (const name of ['alert-store', 'budget-store', 'key-store', 'lease-store', 'usage-store']) Object.assign(stores, await import(pathToFileURL(join(dist, `store/${name}.js`)).href));
    migrations = (await import(pathToFileURL(join(dist, 'store/migrations.js')).href)).LLM_MIGRATIONS;
    limiterModules = {
      windows: await import(pathToFileURL(join(dist, 'store/rate-window-redis.js')).href),
      limiter: await import(pathToFileURL(join(dist, 'service/rate-limiter.js')).href),
    };
  } catch (error) {
    log(`skipping component timing: ${error.message}`);
    return undefined;
  }
  const orm = await openDatabase({ url: dbUrl, schema: 'llm', entities: [], migrations, poolMax, log: silent });
  const cache = createCache({ redisUrl: REDIS_URL, prefix: `${redisPrefix}components:` });
  try {
    // The stores as llm-subgraph.ts builds them, the lease TTL at its default.
    const budgetStores = { budgets: stores.createBudgetStore(orm), usage: stores.createUsageStore(orm), alerts: stores.createAlertStore(orm), leases: stores.createLeaseStore(orm, { ttlMs: leaseTtlMs }) };
    const budgets = budgetModule.createBudgetService(budgetStores, { enqueue: async () => {} }, silent);
    const keys = keyModule.createKeyService(stores.createKeyStore(orm), MASTER_KEY, silent);
    const usage = { kind: 'chat', requestedModel: 'fast-track', model: 'bench-model', deployment: 'fake', promptTokens: 8, completionTokens: 1, costUsd: 0.00003, cached: false, outcome: 'ok' };
    const completion = JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1_700_000_000, model: 'bench-model', choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }], usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 } });
    const perRequest = async () => {
      await keys.authenticate(agentKey);
      const reservation = await budgets.reserve(AGENT, 0.0026, randomUUID());
      await budgets.settle(reservation, { ...usage, requestId: reservation.id });
    };
    const n = Math.max(200, Math.round(C1_REQUESTS / 2));
    // reserve and settle timed separately, in the same loop (holds never pile up).
    const reserveMs = [];
    const settleMs = [];
    for (let i = 0; i < n + 20; i++) {
      const t0 = performance.now();
      const reservation = await budgets.reserve(AGENT, 0.0026, randomUUID());
      const t1 = performance.now();
      await budgets.settle(reservation, { ...usage, requestId: reservation.id });
      const t2 = performance.now();
      if (i >= 20) reserveMs.push(t1 - t0), settleMs.push(t2 - t1);
    }
    // Floors: one bare round trip, and a committed one-row UPDATE with and without waiting for the
    // WAL flush (synchronous_commit), on a scratch table of the benchmark database.
    const raw = new pg.Client({ connectionString: dbUrl });
    await raw.connect();
    let roundTrip, commitOn, commitOff;
    try {
      await raw.query('create table bench_probe (id int primary key, v bigint not null)');
      await raw.query('insert into bench_probe values (1, 0)');
      roundTrip = await timeInProcess(() => raw.query('select 1'), { requests: n });
      commitOn = await timeInProcess(() => raw.query('update bench_probe set v = v + 1 where id = 1'), { requests: n });
      await raw.query('set synchronous_commit = off');
      commitOff = await timeInProcess(() => raw.query('update bench_probe set v = v + 1 where id = 1'), { requests: n });
    } finally {
      await raw.end();
    }
    // Statements and Redis commands per call of each step (counted, not timed).
    const counts = { auth: await countPerCall(() => keys.authenticate(agentKey), 50) };
    // The rate limiter's two Redis scripts, alone: admission (awaited on the request path) and
    // settlement (sent after the answer), for one agent with an RPM and a TPM limit.
    const windows = limiterModules.windows.createRedisRateWindows(REDIS_URL, `${redisPrefix}limiter:`, silent);
    const limitScopes = [{ id: 'agent:bench-components', limits: { ...BENCH_LIMITS, maxConcurrent: null } }];
    await new Promise((resolve) => setTimeout(resolve, 200)); // connected
    const admitMs = [];
    const settleLimitMs = [];
    for (let i = 0; i < n + 20; i++) {
      const t0 = performance.now();
      const decision = await windows.admit(limitScopes, 30, `m${i}`, 30_000);
      const t1 = performance.now();
      await windows.settle(limitScopes, `m${i}`, decision.second, 30, 25);
      const t2 = performance.now();
      if (i >= 20) admitMs.push(t1 - t0), settleLimitMs.push(t2 - t1);
    }
    await windows.close();
    const reserveCounts = [];
    const settleCounts = [];
    for (let i = 0; i < 50; i++) {
      resetCounters();
      counters.armed = true;
      const r = await budgets.reserve(AGENT, 0.0026, randomUUID());
      counters.armed = false;
      reserveCounts.push({ ...counters });
      resetCounters();
      counters.armed = true;
      await budgets.settle(r, { ...usage, requestId: r.id });
      counters.armed = false;
      settleCounts.push({ ...counters });
    }
    const sumCounts = (list) => list.reduce((t, c) => { for (const k of ['statements', 'begins', 'commits', 'writes', 'redis']) t[k] += c[k]; return t; }, { statements: 0, begins: 0, commits: 0, writes: 0, redis: 0 });
    counts.reserve = perUnit(sumCounts(reserveCounts), 50);
    counts.settle = perUnit(sumCounts(settleCounts), 50);
    counts.cacheSet = await countPerCall(() => cache.set('bench-completion', completion, 60), 20);
    return {
      counts,
      roundTrip,
      commitOn,
      commitOff,
      auth: await timeInProcess(() => keys.authenticate(agentKey), { requests: n }),
      reserve: summarise(reserveMs, reserveMs.reduce((a, b) => a + b, 0)),
      limiterAdmit: summarise(admitMs, admitMs.reduce((a, b) => a + b, 0)),
      limiterSettle: summarise(settleLimitMs, settleLimitMs.reduce((a, b) => a + b, 0)),
      settle: summarise(settleMs, settleMs.reduce((a, b) => a + b, 0)),
      cacheSet: await timeInProcess(() => cache.set('bench-completion', completion, 60), { requests: n }),
      dbTotal1: await timeInProcess(perRequest, { requests: n }),
      dbTotalHigh: await timeInProcess(perRequest, { ms: C64_MS / 2, concurrency: HIGH, warmup: 20 }),
    };
  } finally {
    await cache.close();
    await orm.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function buildReport({ startedAt, results, targets, components, portkeyVersion, pgVersion, redisVersion, poolMax, loadAtStart, split, profile, gitInfo, streaming, pinning, unpinned }) {
  const cpu = os.cpus();
  const names = ['direct', 'bare', 'svc', 'svcLimited', 'portkey', 'svcHit', 'llm', 'router'];
  // Average share of the machine used by processes outside the benchmark (rows with CPU accounting).
  let otherMs = 0;
  let totalMs = 0;
  for (const n of names) for (const c of [1, HIGH]) {
    const r = results[n][c];
    if (r.cpuMsPerRequest['other processes'] === undefined) continue;
    otherMs += r.cpuMsPerRequest['other processes'] * r.requests;
    totalMs += r.elapsedMs * cpu.length;
  }
  const otherBusy = (100 * otherMs) / totalMs;
  const machine = `${cpu.length} cores (${cpu[0]?.model?.trim() ?? 'unknown CPU'}), ${round(os.totalmem() / 2 ** 30, 1)} GiB RAM, ${os.type()} ${os.release()}`;
  const direct = results.direct;
  const rows = [];
  const consoleRows = [];
  for (const c of [1, HIGH]) {
    for (const name of names) {
      const r = results[name][c];
      // The c=1 hop-split rows come from the interleaved run: compare them with its own direct.
      const base = c === 1 && (name === 'llm' || name === 'router') ? split.direct : direct[c];
      const addedP50 = name === 'direct' ? undefined : r.p50 - base.p50;
      const addedP99 = name === 'direct' ? undefined : r.p99 - base.p99;
      const gatewayCpu = name === 'portkey' ? r.cpuMsPerRequest['Portkey'] : name === 'bare' ? r.cpuMsPerRequest['bare proxy'] : name === 'direct' ? undefined : r.cpuMsPerRequest['svc platform (this process)'];
      const pgCpu = r.cpuMsPerRequest['PostgreSQL'];
      rows.push(`| ${targets[name].label}${c === 1 && (name === 'llm' || name === 'router') ? ' (interleaved run)' : ''} | ${c} | ${r.requests} | ${r.errors + r.headerMismatches} | ${fmt(r.throughput, 0)} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} | ${name === 'direct' ? '–' : signed(addedP50, 3)} | ${name === 'direct' ? '–' : signed(addedP99, 3)} | ${fmt(gatewayCpu, 3)} | ${fmt(pgCpu, 3)} |`);
      consoleRows.push([targets[name].label.slice(0, 58).padEnd(58), String(c).padStart(3), fmt(r.throughput, 0).padStart(8), fmt(r.p50, 3).padStart(9), fmt(r.p99, 3).padStart(9), (name === 'direct' ? '–' : signed(addedP50, 3)).padStart(9), (name === 'direct' ? '–' : signed(addedP99, 3)).padStart(9), String(r.errors + r.headerMismatches).padStart(6)].join(' '));
    }
  }

  const svc = results.svc;
  const pk = results.portkey;
  const ratio = (a, b) => a / b;
  const p50Added1 = svc[1].p50 - direct[1].p50;
  const p50TargetMet = p50Added1 < 1;
  const thrMet1 = svc[1].throughput >= pk[1].throughput;
  const thrMetHigh = svc[HIGH].throughput >= pk[HIGH].throughput;

  // Hop split at c=1 (medians; differences of medians are an approximation of each hop's share).
  // From the interleaved run, where direct, llm, router and bridge saw the same conditions.
  const splitTotal = split.svc.p50 - split.direct.p50;
  const llmAdded = split.llm.p50 - split.direct.p50;
  const routerHop = split.router.p50 - split.llm.p50;
  const bridgeHop = split.svc.p50 - split.router.p50;
  const dbTotal = components?.dbTotal1.p50;
  const cacheSet = components?.cacheSet.p50;
  const llmRest = components ? llmAdded - dbTotal - cacheSet : undefined;
  const pct = (part) => `${fmt((100 * part) / splitTotal, 0)} %`;

  const cmd = 'npm run bench';
  const md = [];
  md.push('# Model gateway overhead benchmark');
  md.push('');
  md.push(`Reproduce: \`${cmd}\` from the repository root (builds, then runs \`node bench/gateway-overhead.js\`; needs PostgreSQL with pgvector and Redis on loopback, as \`npm test\` does — \`bash scripts/provision.sh\`). Takes about 4 minutes. Knobs: \`BENCH_C1_REQUESTS\` (default 2000), \`BENCH_C64_SECONDS\` (default 10), \`BENCH_PROFILE=0\` (skip the CPU profile), \`BENCH_PIN=0\` (no CPU pinning), \`BENCH_NO_WRITE=1\` (print only).`);
  md.push('');
  md.push(`- Date: ${startedAt.toISOString()}`);
  md.push(pinning.pinned
    ? `- Machine: ${machine}. **Cores:** each gateway under test (the svc platform process, Portkey, the bare proxy) runs pinned to CPU ${pinning.gatewayCpu} with all its threads, the load generator and the fake upstream to CPU ${pinning.loadCpus} (\`taskset\`); PostgreSQL and Redis are not pinned. So every gateway gets the same one core of its own and none takes CPU from the load generator; unpinned, the figures moved by a fifth between runs minutes apart. A shorter unpinned pass at concurrency ${HIGH} is reported under Targets for comparison.`
    : `- Machine: ${machine}. **Everything shares these ${cpu.length} cores** (not pinned: ${pinning.why}): the load generator, the fake upstream, the gateway under test, PostgreSQL and Redis.`);
  md.push(`- Platform measured: commit \`${gitInfo.commit}\`${gitInfo.dirty ? ` **plus uncommitted changes** in ${gitInfo.dirty}` : ' (clean tree)'}, built by \`npm run bench\` just before the run.`);
  md.push(`- Node ${process.version}; PostgreSQL ${pgVersion}; Redis ${redisVersion}; @portkey-ai/gateway ${portkeyVersion}.`);
  md.push(`- Run parameters: every target is first warmed up for 1.5 s at concurrency 8. Concurrency 1: ${C1_REQUESTS} requests per target, one target at a time in ${ROUNDS_C1} rounds with a rotated order (100 warm-up requests before each), rounds merged. Hop split at concurrency 1: direct, llm subgraph, router and bridge **interleaved** request by request (rotating start), ${SPLIT_REQUESTS} each after 100 unrecorded rounds, so drift and other load hit them alike; its rows are compared with its own direct baseline (each process then wakes from idle for every request, so all four are a little slower than in back-to-back runs). Concurrency ${HIGH}: one target at a time, ${C64_MS / 1000} s per target (hop-split rows: ${C64_MS / 2000} s) in ${ROUNDS_HIGH} rounds with a rotated order, ${WARM.ms / 1000} s warm-up before each, rounds merged.`);
  md.push('- **A shared machine**: other engineers\' builds and tests run on the same cores during the day, so absolute figures vary between runs; compare rows of one run, which share the conditions.');
  md.push(`- Load average at start: ${loadAtStart}${otherBusy > 2 ? `. **Other processes were busy during the run** (${fmt(otherBusy, 0)} % of the machine on average, see the CPU table): the figures are noisier than on an idle machine.` : '.'}`);
  md.push('');
  md.push('## Set-up');
  md.push('');
  md.push('- **Fake upstream** (`bench/fake-upstream.js`, own process): node:http, answers every POST with the same 254-byte `chat.completion` with `usage`, no delay.');
  md.push(`- **svc gateway**: the whole platform started in-process by \`startPlatform(config, 'all')\` (bridge, router, insight, llm, cms in one Node process, as \`npm start\` does) on a fresh PostgreSQL database and a fresh Redis prefix, \`LOG_LEVEL=silent\`, \`DB_POOL_MAX=${poolMax}\` (default). \`SVCLLM_CONFIG\` routes \`bench-model\` (openai-compatible provider on the fake, priced at $2.50 / $10 per MTok, so every request is metered) and both aliases to it. An agent key and a $1,000,000 hard-limited budget are created through \`POST /admin/v1/keys\` and \`/admin/v1/budgets\` with the master key. Requests: \`POST /v1/chat/completions\` on the bridge, \`model: "fast-track"\`, \`svcllm_options: {cacheBypass: true}\` so each one goes upstream and is reserved, settled and written to the ledger (the \`x-svc-cache: BYPASS\` header is checked on every response). The cache-hit row sends the same request without \`cacheBypass\` (\`x-svc-cache: HIT\` checked).`);
  md.push('- **Portkey**: `node node_modules/@portkey-ai/gateway/build/start-server.js --port=<free> --headless` with `NODE_ENV=production` (own process), routed per request with `x-portkey-provider: openai` and `x-portkey-custom-host: <fake>/v1`; no Portkey config, cache, retries or logging store. It is started with `--import bench/portkey-stream-preload.js`, which re-wraps an upstream `text/event-stream` response with a mutable copy of its headers: without it every streamed request to Portkey 1.15.2 on Node 24 answers 500 (Portkey-AI/gateway#1389/#1550: it appends its `x-portkey-*` headers to the upstream fetch response\'s immutable ones; the fix proposed upstream, #1551, copies the response likewise). Non-streamed answers pass through untouched.');
  md.push('- **Bare Node.js proxy** (`bench/bare-proxy.js`, own process): the floor for any gateway written in Node.js on this machine. node:http reads the client\'s JSON, drops `svcllm_options`, POSTs it upstream with undici (a keep-alive pool, as the svc providers use) and answers the parsed and re-serialised completion; no key check, validation, routing, limits, budget or metering.');
  md.push('- **Load generator** (`bench/load-worker.js`, own process): node:http keep-alive agent with exactly *c* sockets and *c* requests always in flight; per-request latency from write to the end of the response body. Identical request body for every target.');
  md.push('- Added latency = target percentile − direct percentile at the same concurrency. CPU columns: CPU time of the gateway process (for svc: the whole platform process) and of PostgreSQL during the measured phase, divided by requests (from /proc, 10 ms ticks).');
  md.push('');
  md.push('## Results');
  md.push('');
  md.push('| target | c | requests | errors | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | gateway CPU ms/req | PostgreSQL CPU ms/req |');
  md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  md.push(...rows);
  md.push('');
  const counted = results.svc[1].perRequest;
  const countedHit = results.svcHit[1].perRequest;
  if (counted) {
    md.push(`Round trips per request inside the platform, counted during the concurrency-1 runs: cacheBypass **${fmt(counted.statements, 1)} SQL statements** (${fmt(counted.begins, 1)} BEGIN, ${fmt(counted.writes, 1)} writes, ${fmt(counted.commits, 1)} commits) and **${fmt(counted.redis, 1)} Redis commands**; cache hit ${fmt(countedHit.statements, 1)} SQL statements and ${fmt(countedHit.redis, 1)} Redis commands; and the request crosses one HTTP server in the platform (the bridge, which hands the OpenAI paths to the llm service's handler in the same process) before the one call to the upstream; the settlement's statement runs after the answer. (Background jobs polling the database during the run are counted too; they add well under 0.1 per request.)`);
    md.push('');
  }
  md.push('CPU time per request by party, measured phase only (ms; from /proc, 10 ms ticks, so small values are coarse). PostgreSQL = the backends of the benchmark database plus the server\'s background processes; Redis is the shared server; "other" = machine-wide busy time not spent by any listed party, i.e. unrelated processes on the machine:');
  md.push('');
  const parties = ['svc platform (this process)', 'Portkey', 'bare proxy', 'fake upstream', 'load generator', 'PostgreSQL', 'Redis', 'other processes'];
  md.push(`| target | c | ${parties.map((p) => p.replace(' (this process)', '')).join(' | ')} | machine busy, % of one core (max ${cpu.length * 100}) |`);
  md.push(`|---|---:|${parties.map(() => '---:').join('|')}|---:|`);
  for (const c of [1, HIGH]) for (const n of names) {
    const r = results[n][c];
    if (r.machineBusyPercent === undefined) continue; // interleaved rows: CPU not separable per target
    md.push(`| ${targets[n].label} | ${c} | ${parties.map((p) => fmt(r.cpuMsPerRequest[p], 3)).join(' | ')} | ${fmt(r.machineBusyPercent, 0)} |`);
  }
  md.push('');
  md.push('Throughput ratios (svc with cacheBypass):');
  md.push('');
  md.push('| c | svc / Portkey | svc, limits on / Portkey | svc / direct | Portkey / direct | svc cache hit / Portkey |');
  md.push('|---:|---:|---:|---:|---:|---:|');
  for (const c of [1, HIGH]) md.push(`| ${c} | ${fmt(ratio(svc[c].throughput, pk[c].throughput), 2)} | ${fmt(ratio(results.svcLimited[c].throughput, pk[c].throughput), 2)} | ${fmt(ratio(svc[c].throughput, direct[c].throughput), 2)} | ${fmt(ratio(pk[c].throughput, direct[c].throughput), 2)} | ${fmt(ratio(results.svcHit[c].throughput, pk[c].throughput), 2)} |`);
  md.push('');
  md.push('## Streaming (200-chunk stream, concurrency 1)');
  md.push('');
  md.push(`The same request with \`stream: true\` (and \`stream_options.include_usage\`); the fake upstream answers 200 one-token chunks, the usage chunk and \`[DONE]\` at once. ${STREAM_REQUESTS} requests per target after 50 unrecorded; added = target − direct. Portkey 1.15.2 holds every stream's first chunk for 25 ms (its stream reader, for OpenAI-style streams, waits \`setTimeout(25)\` before the first event it forwards), so its first-byte and [DONE] times include that wait.`);
  md.push('');
  md.push('| target | first byte p50 / p99 ms | added first byte p50 / p99 | [DONE] p50 / p99 ms | added [DONE] p50 / p99 | errors |');
  md.push('|---|---:|---:|---:|---:|---:|');
  for (const name of ['direct', 'svc', 'portkey']) {
    const r = streaming[name];
    const d = streaming.direct;
    if (r.failed) {
      md.push(`| ${targets[name].label.replace(', cacheBypass', '')} | failed: ${r.failed.replace(/\|/g, '/')} | | | | |`);
      continue;
    }
    const added = (m, q) => (name === 'direct' ? '–' : `+${fmt(r[m][q] - d[m][q], 3)}`);
    md.push(`| ${targets[name].label.replace(', cacheBypass', '')} | ${fmt(r.firstByte.p50, 3)} / ${fmt(r.firstByte.p99, 3)} | ${added('firstByte', 'p50')} / ${added('firstByte', 'p99')} | ${fmt(r.done.p50, 3)} / ${fmt(r.done.p99, 3)} | ${added('done', 'p50')} / ${added('done', 'p99')} | ${r.errors} |`);
  }
  md.push('');
  md.push('## Targets');
  md.push('');
  md.push(`| target | measured | met |`);
  md.push('|---|---|---|');
  md.push(`| p50 added latency under 1 ms at concurrency 1 | ${fmt(p50Added1, 3)} ms (Portkey: ${fmt(pk[1].p50 - direct[1].p50, 3)} ms) | ${p50TargetMet ? 'yes' : '**no**'} |`);
  md.push(`| throughput at least Portkey's, concurrency 1 | ${fmt(svc[1].throughput, 0)} vs ${fmt(pk[1].throughput, 0)} req/s (×${fmt(ratio(svc[1].throughput, pk[1].throughput), 2)}) | ${thrMet1 ? 'yes' : '**no**'} |`);
  md.push(`| throughput at least Portkey's, concurrency ${HIGH} | ${fmt(svc[HIGH].throughput, 0)} vs ${fmt(pk[HIGH].throughput, 0)} req/s (×${fmt(ratio(svc[HIGH].throughput, pk[HIGH].throughput), 2)}) | ${thrMetHigh ? 'yes' : '**no**'} |`);
  // Issue #22: the same targets with rate limits on, against Portkey in the same run.
  const pkAdded = pk[1].p50 - direct[1].p50;
  for (const [name, what] of [['svc', 'limits off'], ['svcLimited', 'RPM + TPM limits on']]) {
    const r = results[name];
    const added = r[1].p50 - direct[1].p50;
    md.push(`| added p50 at concurrency 1 at most 0.5× Portkey's, ${what} | ${fmt(added, 3)} ms vs ${fmt(pkAdded, 3)} ms (×${fmt(added / pkAdded, 2)}) | ${added <= 0.5 * pkAdded ? 'yes' : '**no**'} |`);
    md.push(`| throughput at concurrency ${HIGH} at least 2.5× Portkey's, ${what} | ${fmt(r[HIGH].throughput, 0)} vs ${fmt(pk[HIGH].throughput, 0)} req/s (×${fmt(ratio(r[HIGH].throughput, pk[HIGH].throughput), 2)}) | ${r[HIGH].throughput >= 2.5 * pk[HIGH].throughput ? 'yes' : '**no**'} |`);
  }
  if (unpinned.svc) {
    const upk = unpinned.portkey[HIGH].throughput;
    for (const [name, what] of [['svc', 'limits off'], ['svcLimited', 'RPM + TPM limits on']]) {
      const t = unpinned[name][HIGH].throughput;
      md.push(`| *not pinned, for comparison:* throughput at concurrency ${HIGH} at least 2.5× Portkey's, ${what} (2 rounds of ${C64_MS / 4000} s) | ${fmt(t, 0)} vs ${fmt(upk, 0)} req/s (×${fmt(t / upk, 2)}) | ${t >= 2.5 * upk ? 'yes' : '**no**'} |`);
    }
  }
  md.push('');
  md.push(...limiterCost(results, components));
  md.push('');
  md.push('## GraphQL paths and components (concurrency 1, medians)');
  md.push('');
  md.push('The REST OpenAI paths no longer go through the router or the llm service\'s GraphQL: the bridge hands them to the llm service\'s own HTTP handler (in one process, without a socket). The hop rows below time the GraphQL paths that GraphQL clients use, for comparison with the REST path; "REST bridge hop (bridge − router)" is therefore not a hop of the REST path, and comes out negative.');
  md.push('');
  md.push(`Each hop measured by calling it directly with the same request (GraphQL \`ChatCompletion\` operation, the one the bridge sends) in the interleaved run — p50: direct ${fmt(split.direct.p50, 3)} ms, llm subgraph ${fmt(split.llm.p50, 3)} ms, router ${fmt(split.router.p50, 3)} ms, bridge ${fmt(split.svc.p50, 3)} ms — and subtracting; the database and cache work timed on its own with the platform's compiled \`createKeyService\` / \`createBudgetService\` / \`createCache\` against the same database, agent row and Redis. Differences of medians only approximate each part.`);
  md.push('');
  md.push('| component | p50 ms | share of added p50 |');
  md.push('|---|---:|---:|');
  md.push(`| REST bridge hop (bridge − router) | ${fmt(bridgeHop, 3)} | ${pct(bridgeHop)} |`);
  md.push(`| router hop (router − llm subgraph): Apollo gateway query planning/execution + one more HTTP round trip | ${fmt(routerHop, 3)} | ${pct(routerHop)} |`);
  md.push(`| llm subgraph (llm − direct), of which: | ${fmt(llmAdded, 3)} | ${pct(llmAdded)} |`);
  if (components) {
    md.push(`| &nbsp;&nbsp;PostgreSQL: key check + reservation + settlement (below) | ${fmt(dbTotal, 3)} | ${pct(dbTotal)} |`);
    md.push(`| &nbsp;&nbsp;Redis: response-cache write | ${fmt(cacheSet, 3)} | ${pct(cacheSet)} |`);
    md.push(`| &nbsp;&nbsp;rest: subgraph HTTP + Apollo Server execution + upstream call via fetch + JSON | ${fmt(llmRest, 3)} | ${pct(llmRest)} |`);
  }
  md.push(`| **total added (bridge − direct), interleaved run** | **${fmt(splitTotal, 3)}** | 100 % |`);
  md.push('');
  if (components) {
    const c = components.counts;
    const cnt = (x) => `${fmt(x.statements, 1)} (${fmt(x.begins, 1)} BEGIN, ${fmt(x.commits, 1)} commits)${x.redis ? `; Redis ${fmt(x.redis, 1)}` : ''}`;
    md.push('Database and cache work of a cacheBypass request, step by step, timed alone in this process with the platform\'s own services (same pool size, same agent row). Statements are counted by wrapping the pg client (BEGIN/COMMIT included; "commits" = COMMITs plus autocommitted writes, each waiting for the WAL flush):');
    md.push('');
    md.push('| step | SQL statements per call (counted) | p50 ms | p99 ms |');
    md.push('|---|---|---:|---:|');
    md.push(`| key check (\`keys.authenticate\`, repeated key) | ${cnt(c.auth)} | ${fmt(components.auth.p50, 3)} | ${fmt(components.auth.p99, 3)} |`);
    md.push(`| reservation (\`budgets.reserve\`) | ${cnt(c.reserve)} | ${fmt(components.reserve.p50, 3)} | ${fmt(components.reserve.p99, 3)} |`);
    md.push(`| settlement (\`budgets.settle\`, ledger and threshold check included) | ${cnt(c.settle)} | ${fmt(components.settle.p50, 3)} | ${fmt(components.settle.p99, 3)} |`);
    md.push(`| all three, sequential (c=1) | ${fmt(c.auth.statements + c.reserve.statements + c.settle.statements, 1)} | ${fmt(components.dbTotal1.p50, 3)} | ${fmt(components.dbTotal1.p99, 3)} |`);
    md.push(`| all three, ${HIGH} concurrent loops, same agent | | ${fmt(components.dbTotalHigh.p50, 3)} | ${fmt(components.dbTotalHigh.p99, 3)} |`);
    md.push(`| Redis SET of the completion (\`cache.set\`) | Redis ${fmt(c.cacheSet.redis, 1)} | ${fmt(components.cacheSet.p50, 3)} | ${fmt(components.cacheSet.p99, 3)} |`);
    md.push(`| *floor:* one bare round trip, raw \`pg\` client | \`SELECT 1\` | ${fmt(components.roundTrip.p50, 3)} | ${fmt(components.roundTrip.p99, 3)} |`);
    md.push(`| *floor:* committed one-row UPDATE, raw \`pg\`, \`synchronous_commit=on\` (the platform's setting) | 1 | ${fmt(components.commitOn.p50, 3)} | ${fmt(components.commitOn.p99, 3)} |`);
    md.push(`| *floor:* the same with \`synchronous_commit=off\` (no wait for the WAL flush) | 1 | ${fmt(components.commitOff.p50, 3)} | ${fmt(components.commitOff.p99, 3)} |`);
    md.push('');
    md.push(`The database work alone sustains **${fmt(components.dbTotalHigh.throughput, 0)} req/s** with ${HIGH} concurrent requests on one agent (${fmt(components.dbTotal1.throughput, 0)} req/s sequentially): that is a ceiling for metered requests of one agent on this machine, whatever the HTTP layers cost.`);
    md.push('');
  }
  if (profile) {
    md.push(`## Where the platform process spends its CPU (concurrency ${HIGH})`);
    md.push('');
    md.push(`Sampling CPU profile (node:inspector, 250 µs) of the platform process during a separate 4 s run of ${profile.label} at c=${HIGH} (${profile.requests} requests; the profiler slows it somewhat, so only the shares matter). The event loop was busy ${fmt(profile.busyPercent, 0)} % of the time, ${fmt(profile.busyMsPerRequest, 2)} ms per request on the main thread. Self time, idle excluded:`);
    md.push('');
    md.push('| area (npm package, svc workspace or Node) | share of busy time |');
    md.push('|---|---:|');
    for (const a of profile.areas) md.push(`| ${a.name} | ${fmt(a.percent, 1)} % |`);
    md.push('');
    md.push('| hottest functions (self time) | share |');
    md.push('|---|---:|');
    for (const f of profile.functions) md.push(`| \`${f.name.replaceAll('|', '\\|')}\` | ${fmt(f.percent, 1)} % |`);
    md.push('');
  }
  md.push('## Interpretation');
  md.push('');
  md.push(...interpretation({ results, components, profile, split, splitTotal, p50Added1, p50TargetMet, thrMetHigh, bridgeHop, routerHop, llmAdded, dbTotal, cacheSet, llmRest }));
  md.push('');

  const header = ['target'.padEnd(58), '  c', '   req/s', '   p50 ms', '   p99 ms', '  +p50 ms', '  +p99 ms', 'errors'].join(' ');
  const consoleText = [
    '',
    header,
    ...consoleRows,
    '',
    `limits on: c=1 p50 ${fmt(results.svcLimited[1].p50, 3)} ms (limits off ${fmt(svc[1].p50, 3)} ms), c=${HIGH} ${fmt(results.svcLimited[HIGH].throughput, 0)} req/s (×${fmt(ratio(results.svcLimited[HIGH].throughput, pk[HIGH].throughput), 2)} Portkey)`,
    `svc/Portkey throughput: c=1 ×${fmt(ratio(svc[1].throughput, pk[1].throughput), 2)}, c=${HIGH} ×${fmt(ratio(svc[HIGH].throughput, pk[HIGH].throughput), 2)}; svc/direct: c=1 ×${fmt(ratio(svc[1].throughput, direct[1].throughput), 2)}, c=${HIGH} ×${fmt(ratio(svc[HIGH].throughput, direct[HIGH].throughput), 2)}`,
    `p50 added at c=1: ${fmt(p50Added1, 3)} ms (target < 1 ms: ${p50TargetMet ? 'met' : 'MISSED'}); interleaved split of ${fmt(splitTotal, 3)} ms: bridge ${fmt(bridgeHop, 3)}, router ${fmt(routerHop, 3)}, llm subgraph ${fmt(llmAdded, 3)}${components ? ` (PostgreSQL ${fmt(dbTotal, 3)}, Redis ${fmt(cacheSet, 3)}, rest ${fmt(llmRest, 3)})` : ''}`,
    unpinned.svc ? `not pinned (2 rounds): c=${HIGH} svc ×${fmt(ratio(unpinned.svc[HIGH].throughput, unpinned.portkey[HIGH].throughput), 2)}, limits on ×${fmt(ratio(unpinned.svcLimited[HIGH].throughput, unpinned.portkey[HIGH].throughput), 2)} Portkey` : '',
    components ? `database work alone: ${fmt(components.dbTotal1.p50, 3)} ms p50 sequential, ${fmt(components.dbTotalHigh.throughput, 0)} req/s at c=${HIGH}` : '',
  ].join('\n');
  return { markdown: md.join('\n'), console: consoleText };
}

/** What the rate limiter costs per request: limits on minus limits off, same run. */
function limiterCost(results, components) {
  const { svc, svcLimited: lim } = results;
  const cpu = (r) => r.cpuMsPerRequest['svc platform (this process)'];
  const redis = (r) => r.perRequest?.redis;
  return [
    '### What the rate limiter costs',
    '',
    `The limited agent has a requests-per-minute and a tokens-per-minute limit too high to refuse anything; far below them, requests are admitted from slices of 0.5 % of each limit that the admission script reserves in Redis about once a second per scope (\`SLICE\` in \`subgraphs/llm/src/domain/rate-limits.ts\`), a request that ends within its second settles in the slice, and the others go to Redis as they would near a limit (one atomic script call over the key's and the agent's windows before the upstream call, the settlement script after the answer); every answer carries the six \`x-ratelimit-*\` headers. Limits on minus limits off, same run:`,
    '',
    '| measure | limits off | limits on | cost of the limiter |',
    '|---|---:|---:|---:|',
    `| p50 at concurrency 1, ms | ${fmt(svc[1].p50, 3)} | ${fmt(lim[1].p50, 3)} | ${signed(lim[1].p50 - svc[1].p50, 3)} |`,
    `| p99 at concurrency 1, ms | ${fmt(svc[1].p99, 3)} | ${fmt(lim[1].p99, 3)} | ${signed(lim[1].p99 - svc[1].p99, 3)} |`,
    `| throughput at concurrency ${HIGH}, req/s | ${fmt(svc[HIGH].throughput, 0)} | ${fmt(lim[HIGH].throughput, 0)} | ${signed((100 * (lim[HIGH].throughput - svc[HIGH].throughput)) / svc[HIGH].throughput, 1)} % |`,
    `| platform CPU per request at concurrency ${HIGH}, ms | ${fmt(cpu(svc[HIGH]), 3)} | ${fmt(cpu(lim[HIGH]), 3)} | ${signed(cpu(lim[HIGH]) - cpu(svc[HIGH]), 3)} |`,
    `| Redis commands per request (counted at concurrency 1) | ${fmt(redis(svc[1]), 1)} | ${fmt(redis(lim[1]), 1)} | ${signed((redis(lim[1]) ?? NaN) - (redis(svc[1]) ?? NaN), 1)} |`,
    ...(components?.limiterAdmit
      ? ['', `Timed alone in this process (sequential, same Redis, so mostly admitted from and settled in slices): an admission takes ${fmt(components.limiterAdmit.p50, 3)} ms at p50 (${fmt(components.limiterAdmit.p99, 3)} ms p99), a settlement ${fmt(components.limiterSettle.p50, 3)} ms (${fmt(components.limiterSettle.p99, 3)} ms p99); only the admission is awaited before the upstream call. Differences of the end-to-end rows above include the noise of a shared machine.`]
      : []),
  ];
}

/** Statements derived from the measured numbers, so a re-run keeps the text true. */
function interpretation({ results, components, profile, split, splitTotal, p50Added1, p50TargetMet, thrMetHigh, bridgeHop, routerHop, llmAdded, dbTotal, cacheSet, llmRest }) {
  const out = [];
  const { direct, svc, portkey: pk, svcHit } = results;
  const h = HIGH;
  const counted = svc[1].perRequest;
  const pkAdded1 = pk[1].p50 - direct[1].p50;
  const share = (v) => `${fmt((100 * v) / splitTotal, 0)} %`;
  out.push(`- **Latency at concurrency 1.** Our gateway adds ${fmt(p50Added1, 3)} ms at p50 and ${fmt(svc[1].p99 - direct[1].p99, 3)} ms at p99; Portkey adds ${fmt(pkAdded1, 3)} ms / ${fmt(pk[1].p99 - direct[1].p99, 3)} ms${pkAdded1 >= 1 ? ' (so on this machine Portkey does not get under 1 ms either)' : ''}. ${p50TargetMet ? 'The 1 ms p50 target is met.' : `The 1 ms p50 target is **missed**: ${fmt(p50Added1, 3)} ms measured, ×${fmt(p50Added1, 1)} the budget.`}`);
  const bare = results.bare;
  if (bare?.[1]) {
    const bareAdded1 = bare[1].p50 - direct[1].p50;
    out.push(`- **The floor for a Node.js gateway** (a bare proxy that forwards only, own process): it adds ${fmt(bareAdded1, 3)} ms at p50 at concurrency 1 (×${fmt(bareAdded1 / pkAdded1, 2)} Portkey's) and reaches ${fmt(bare[h].throughput, 0)} req/s at c=${h} with ${fmt(bare[h].cpuMsPerRequest['bare proxy'], 3)} ms CPU per request. What our gateway does beyond forwarding (key check, request validation, routing, rate limits, budget hold, metering, ledger, cache write) costs ${fmt(p50Added1 - bareAdded1, 3)} ms of its p50 at concurrency 1 and ${fmt(svc[h].cpuMsPerRequest['svc platform (this process)'] - bare[h].cpuMsPerRequest['bare proxy'], 3)} ms CPU per request at c=${h}; the rest of its added latency is the extra loopback hop and the process wake-ups every gateway pays on this machine.`);
  }
  const parts = [
    ['the router hop (Apollo Gateway: parse, validate, plan, graphql-armor, a `fetch` to the subgraph, result merge)', routerHop],
    ['the REST bridge hop (HTTP server, route table, a `fetch` to the router, envelope)', bridgeHop],
    ...(components
      ? [
          ['database work in the llm subgraph (key check, reservation, settlement)', dbTotal],
          ['the rest of the llm subgraph (its HTTP server, Apollo Server execution, routing, the upstream `fetch`, JSON)', llmRest],
          ['the Redis response-cache write', cacheSet],
        ]
      : [['the llm subgraph (all of it)', llmAdded]]),
  ].sort((a, b) => b[1] - a[1]);
  out.push(`- **The GraphQL paths, for comparison** (the REST path skips the router and Apollo; interleaved run, ${fmt(splitTotal, 3)} ms added in total), largest first: ${parts.map(([what, v]) => `${what}: ${fmt(v, 3)} ms (${share(v)})`).join('; ')}. Every hop is a loopback HTTP round trip plus a parse and re-serialise of the whole request and completion, all on the one event loop of the platform process.`);
  if (components) {
    const c = components.counts;
    const rt = components.roundTrip.p50;
    const flush = Math.max(0, components.commitOn.p50 - components.commitOff.p50);
    const stmts = c.auth.statements + c.reserve.statements + c.settle.statements;
    const commits = c.auth.commits + c.reserve.commits + c.settle.commits;
    const floor = stmts * rt + commits * flush;
    out.push(`- **Database work.** ${counted ? `A cacheBypass request sends ${fmt(counted.statements, 1)} SQL statements and ${fmt(counted.redis, 1)} Redis commands (counted in the c=1 run). ` : ''}Timed alone, key check + reservation + settlement take ${fmt(dbTotal, 3)} ms at p50 for ${fmt(stmts, 1)} statements with ${fmt(commits, 1)} commits. A bare round trip costs ${fmt(rt, 3)} ms and a commit waits ≈ ${fmt(flush, 3)} ms for the WAL flush (committed UPDATE ${fmt(components.commitOn.p50, 3)} ms vs ${fmt(components.commitOff.p50, 3)} ms with \`synchronous_commit=off\`), so the floor for this work is ≈ ${fmt(floor, 2)} ms; the remaining ≈ ${fmt(dbTotal - floor, 2)} ms are the client layers (MikroORM \`em.fork().execute\`, query building, pg) and the work inside PostgreSQL. The Redis write costs ${fmt(cacheSet, 3)} ms.`);
  }
  out.push(`- **Without the upstream call and the reservation** (response-cache hit: ${results.svcHit[1].perRequest ? `${fmt(results.svcHit[1].perRequest.statements, 1)} SQL statements and ${fmt(results.svcHit[1].perRequest.redis, 1)} Redis commands per request, ` : ''}the same three hops) a request takes ${fmt(svcHit[1].p50, 3)} ms at p50, ${fmt(svcHit[1].p50 - direct[1].p50, 3)} ms more than a direct upstream call.`);
  const cpuSvc = svc[h].cpuMsPerRequest['svc platform (this process)'];
  const cpuPk = pk[h].cpuMsPerRequest['Portkey'];
  const cpuPg = svc[h].cpuMsPerRequest['PostgreSQL'];
  const platformCores = (cpuSvc * svc[h].throughput) / 1000;
  const busy = svc[h].machineBusyPercent;
  out.push(`- **Throughput at concurrency ${h}.** svc ${fmt(svc[h].throughput, 0)} req/s vs Portkey ${fmt(pk[h].throughput, 0)} req/s (×${fmt(svc[h].throughput / pk[h].throughput, 2)}), the bare upstream ${fmt(direct[h].throughput, 0)} req/s; at least Portkey's: ${thrMetHigh ? 'met' : '**missed**'}, at least 2.5×: ${svc[h].throughput >= 2.5 * pk[h].throughput ? 'met' : '**missed**'}. CPU per request: the platform process ${fmt(cpuSvc, 3)} ms plus PostgreSQL ${fmt(cpuPg, 3)} ms, against ${fmt(cpuPk, 3)} ms for Portkey (one HTTP in, one HTTP out, no persistence). During the svc run the machine was ${fmt(busy, 0)} % busy (of ${os.cpus().length * 100} %) and the platform process used ${fmt(platformCores * 100, 0)} % of one core (GC threads included)${platformCores > 0.85 ? ': its one event loop, which serves bridge, router and subgraph, is close to what it can give' : ''}. At this concurrency the added latency is mostly queueing (latency ≈ c / throughput), not per-hop cost.`);
  if (profile) {
    const sumOf = (re) => profile.areas.filter((a) => re.test(a.name)).reduce((t, a) => t + a.percent, 0);
    out.push(`- **CPU profile of the platform process** (c=${h}): ${profile.areas.slice(0, 5).map((a) => `${a.name} ${fmt(a.percent, 0)} %`).join(', ')} of the busy time. Grouped: socket writes ${fmt(sumOf(/socket writes/), 0)} % (every HTTP message and every SQL statement is at least one write system call), the \`fetch\` clients (undici) ${fmt(sumOf(/undici/), 0)} %, database client layers (MikroORM, Kysely, pg) ${fmt(sumOf(/mikro-orm|kysely|^pg/), 0)} %, GraphQL (Apollo Server, Apollo Gateway, graphql-js) ${fmt(sumOf(/apollo|^graphql/), 0)} %, garbage collection ${fmt(sumOf(/garbage/), 0)} %; our own code (svc workspaces) ${fmt(sumOf(/^svc:/), 0)} %. The cost is spread over plumbing: fewer hops and fewer round trips help, not micro-optimising one function.`);
  }
  if (components) {
    const dbHigh = components.dbTotalHigh.throughput;
    const llmCores = (results.llm[h].cpuMsPerRequest['svc platform (this process)'] * results.llm[h].throughput) / 1000;
    if (components.counts.reserve.statements + components.counts.settle.statements >= 0.5) out.push(`- **Budget row.** Every request of one agent updates the same \`llm.budget_period\` row when reserving and when settling, so those updates serialise on its row lock. The database work alone, ${h} concurrent loops on one agent, reaches ${fmt(dbHigh, 0)} req/s (p50 ${fmt(components.dbTotalHigh.p50, 3)} ms). The llm subgraph called directly (no bridge, no router) reaches ${fmt(results.llm[h].throughput, 0)} req/s at c=${h} with its process at ${fmt(llmCores * 100, 0)} % of one core and the machine ${fmt(results.llm[h].machineBusyPercent, 0)} % busy${llmCores >= 0.85 ? '' : results.llm[h].throughput >= 0.8 * dbHigh ? ': without the hops the event loop has room to spare, and the database side is what limits' : results.llm[h].machineBusyPercent > 0.85 * os.cpus().length * 100 ? ': without the hops the event loop has room to spare, and the machine\'s cores (shared with PostgreSQL and the load generator) are what limits' : ''}. Removing the hops alone would gain about ×${fmt(Math.min(dbHigh, results.llm[h].throughput) / svc[h].throughput, 1)} here.`);
  }
  // Options, each only where the measurements say it still applies.
  const options = [];
  if (bridgeHop + routerHop > 0.2) options.push(`Serve \`POST /v1/chat/completions\` without the GraphQL chain (${fmt(bridgeHop + routerHop, 2)} ms of the p50 and two of the three HTTP servers): the bridge already proxies streamed completions straight to the llm subgraph (\`/stream/chat/completions\`); doing the same for non-streamed ones, or mounting the gateway's REST routes in the llm process, removes the router hop and a JSON round trip.`);
  if (components) {
    const c = components.counts;
    if (c.auth.statements >= 0.5) options.push(`Stop writing on every key check (${fmt(c.auth.statements, 1)} statements per call now): cache verified keys in memory for a few seconds and touch \`last_used_at\` at most once a minute.`);
    if (c.reserve.statements + c.settle.statements > 2.5) options.push(`Fewer statements for money: reservation and settlement as one statement each (CTEs), the threshold state returned by the settlement (now ${fmt(c.reserve.statements, 1)} + ${fmt(c.settle.statements, 1)} statements).`);
    if (c.reserve.statements + c.settle.statements >= 0.5) options.push(`Answer before settling, if the settlement is awaited on the request path: the reservation already enforces the hard limit and the sweeper recovers holds of crashed requests (the ledger would lag the answer by milliseconds). That takes ${fmt(components.settle.p50, 3)} ms off the p50.`);
    if (c.reserve.statements + c.settle.statements >= 0.5) options.push(`Take the reservation off PostgreSQL's request path: lease budget to each process in chunks (one UPDATE per lease, not per request) or reserve in Redis with a Lua script that checks the limit, and write the ledger in batches. That removes the ${fmt(components.reserve.p50, 3)} ms reservation from the p50 and the shared-row serialisation that caps one agent at ≈ ${fmt(components.dbTotalHigh.throughput, 0)} req/s here.`);
  }
  if (counted && counted.redis >= 0.5) options.push(`Skip the response-cache write when the caller asked for \`cacheBypass\` (${fmt(counted.redis, 1)} Redis commands per bypass request now; not awaited, but its key, serialisation and command are several per cent of the platform's CPU at c=${HIGH}). That changes documented behaviour: a bypass stores the fresh answer, as nginx's \`proxy_cache_bypass\` and LiteLLM's \`no-cache\` do.`);
  options.push('With more cores, run the gateway as several processes (`node:cluster` or replicas); pinned to one core here, each gateway is measured on the same compute.');
  out.push('- **Options still open** (where the measurements say they apply):');
  options.forEach((o, i) => out.push(`  ${i + 1}. ${o}`));
  if (components) {
    const remaining = llmRest;
    if (!p50TargetMet) out.push(`- **What 1 ms would take** (estimate from the figures above, not measured): without the router and bridge hops the added latency would be about the llm subgraph's own ${fmt(llmAdded, 3)} ms; of that, ${fmt(dbTotal, 3)} ms is database work and ${fmt(remaining, 3)} ms the rest. ${llmAdded < 1 ? 'Removing the hops alone would reach the target.' : remaining < 1 ? `Reaching the target needs both: no GraphQL chain and (almost) no database round trip awaited per request${remaining > 0.8 ? `, and even then the ${fmt(remaining, 2)} ms left leave almost nothing to spare` : ''}.` : 'Even with no database work on the request path, the subgraph\'s own handling exceeds the budget: a leaner HTTP path is needed as well.'}`);
  }
  return out;
}

main().then(
  // agenda keeps a 30 s timer of its job processor alive after its stop (the platform's worker):
  // once everything is closed and the report is out, do not wait for it.
  () => process.stdout.write('', () => process.stderr.write('', () => process.exit(process.exitCode ?? 0))),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
