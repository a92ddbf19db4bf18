// Two gateway processes on one PostgreSQL under 1,000 concurrent requests for a budget that fits
// 100 (issue #10). Each `svc llm` process is started as a deployment would run it, both on one
// fresh database, routing to the bench's fake upstream (own process). The budget fits exactly 100
// requests: the model charges output tokens only (0 per input token) and requests ask for
// max_tokens 1, so a request's reservation is one output token's price, and the fake's answer
// (1 completion token) costs exactly that. 1,000 requests are sent at once, 500 to each process; then both stop
// gracefully (SIGTERM: leases given back), a third process runs the start-up sweep, and the
// database is read: spending against the allocation, leases and reservations left, ledger lines.
//
// Run: `npm run bench:two-process` (builds first). Writes its section of bench/RESULTS.md
// (between the two-process markers); BENCH_NO_WRITE=1 prints only. SVC_BENCH_SMOKE=1: a smoke
// run (40 requests for a budget that fits 10, same checks), which writes nothing.
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort } from './free-port.js';
import { untilReady } from './until-ready.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SVC = join(ROOT, 'cli/bin/svc.js');
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MASTER_KEY = `sk-svc-master-bench-${randomBytes(12).toString('hex')}`;
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const REQUESTS = SMOKE ? 40 : 1000;
const FITS = SMOKE ? 10 : 100;
const MAX_TOKENS = 1;
const OUTPUT_PER_MTOK = 1000;
const WORST_USD = (MAX_TOKENS * OUTPUT_PER_MTOK) / 1e6;
const BEGIN = '<!-- two-process:begin -->';
const END = '<!-- two-process:end -->';
const log = (message) => process.stderr.write(`[two-process] ${message}\n`);

function startGateway(env, port) {
  const child = spawn(process.execPath, [SVC, 'llm'], { env: { ...env, SVC_LLM_PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (c) => (output += c));
  const url = `http://127.0.0.1:${port}`;
  const ready = untilReady(child, `${url}/ready`, { label: 'svc llm', output: () => output.slice(-2000), timeoutMs: 30_000 });
  return { child, url, ready };
}

const stopped = (child, signal = 'SIGTERM') => new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve();
  child.once('exit', resolve);
  child.kill(signal);
});

async function main() {
  const upstream = fork(fileURLToPath(new URL('./fake-upstream.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const upstreamUrl = (await new Promise((resolve) => upstream.once('message', resolve))).url;
  const name = `svc_bench2_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const dbUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const dir = await mkdtemp(join(os.tmpdir(), 'svc-bench2-'));
  const children = [];
  try {
    const configFile = join(dir, 'gateway.json');
    await writeFile(configFile, JSON.stringify({
      providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: `${upstreamUrl}/v1` }],
      models: [{ name: 'output-priced', provider: 'fake', model: 'fake-model', inputPerMTok: 0, outputPerMTok: OUTPUT_PER_MTOK, maxOutputTokens: 256 }],
      aliases: { 'fast-track': ['output-priced'], 'deep-reasoning': ['output-priced'] },
    }));
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      DATABASE_URL: dbUrl,
      SVC_REDIS_PREFIX: `svcbench2:${process.pid}:`,
      SVC_JWT_SECRET: randomBytes(32).toString('base64url'),
      SVCLLM_MASTER_KEY: MASTER_KEY,
      SVCLLM_CONFIG: configFile,
      LOG_LEVEL: 'warn',
    };
    // The first process migrates the database; the second starts once it is up.
    const a = startGateway(env, await freePort());
    children.push(a.child);
    await a.ready;
    const b = startGateway(env, await freePort());
    children.push(b.child);
    await b.ready;
    const graphql = async (query, variables) => {
      const res = await fetch(`${a.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${MASTER_KEY}` }, body: JSON.stringify({ query, variables }) });
      const json = await res.json();
      if (json.errors) throw new Error(JSON.stringify(json.errors));
      return json.data;
    };
    const key = (await graphql('mutation { createApiKey(agentCode: "two-process") { key } }')).createApiKey.key;
    const allocation = FITS * WORST_USD;
    await graphql('mutation($input: SetBudgetInput!) { setBudget(input: $input) { agentCode } }', { input: { agentCode: 'two-process', monthlyBudgetUsd: allocation, hardLimitEnabled: true } });

    const body = JSON.stringify({ model: 'fast-track', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: 'ping' }], svcllm_options: { cacheBypass: true } });
    const dispatcher = new Agent({ connections: 600, pipelining: 0 });
    const statuses = new Map();
    const started = performance.now();
    await Promise.all(Array.from({ length: REQUESTS }, async (_, i) => {
      const target = i % 2 === 0 ? a.url : b.url;
      const res = await request(`${target}/v1/chat/completions`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body }).catch((error) => ({ statusCode: `error: ${error.code ?? error.message}`, body: null }));
      await res.body?.text();
      const k = `${i % 2 === 0 ? 'A' : 'B'} ${res.statusCode}`;
      statuses.set(k, (statuses.get(k) ?? 0) + 1);
    }));
    const elapsedMs = performance.now() - started;
    await dispatcher.close();
    await Promise.all([stopped(a.child), stopped(b.child)]);
    // A third start runs the sweep, as after any restart.
    const c = startGateway(env, await freePort());
    children.push(c.child);
    await c.ready;
    await stopped(c.child);

    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const { rows: [period] } = await db.query("select spent_usd::float8 as spent, reserved_usd::float8 as reserved from llm.budget_period where agent_code = 'two-process'");
    const { rows: [leases] } = await db.query("select count(*)::int as n from llm.budget_lease where agent_code = 'two-process'");
    const { rows: ledger } = await db.query("select outcome, count(*)::int as n, sum(cost_usd)::float8 as usd from llm.usage_ledger where agent_code = 'two-process' group by outcome order by outcome");
    await db.end();
    const count = (label) => [...statuses].filter(([k]) => k.endsWith(label)).reduce((n, [, v]) => n + v, 0);
    const result = {
      date: new Date().toISOString(),
      allocation,
      admitted: count(' 200'),
      refused: count(' 429'),
      other: REQUESTS - count(' 200') - count(' 429'),
      perProcess: Object.fromEntries([...statuses].sort()),
      elapsedMs,
      spent: period.spent,
      reserved: period.reserved,
      leases: leases.n,
      ledger,
    };
    log(JSON.stringify(result));
    if (process.env.BENCH_NO_WRITE !== '1' && !SMOKE) writeSection(result);
    if (result.spent > allocation + 1e-9 || result.leases !== 0 || result.reserved !== 0 || result.other !== 0) {
      log('FAILED: spending past the allocation, a lease or reservation left, or answers other than 200/429');
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    upstream.kill();
    const cleanup = new pg.Client({ connectionString: PG_ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    await cleanup.end();
    await rm(dir, { recursive: true, force: true });
  }
}

function writeSection(r) {
  const usd = (v) => `$${v.toFixed(6)}`;
  const md = [
    BEGIN,
    '## Two gateway processes, one database (issue #10)',
    '',
    `Reproduce: \`npm run bench:two-process\` (\`bench/gateway-two-process.js\`). ${r.date}. Two \`svc llm\` processes on one fresh PostgreSQL database, routing to the fake upstream; one agent with a hard-limited budget that fits exactly ${FITS} requests (${usd(r.allocation)}: the model charges only output tokens and each request asks for max_tokens ${MAX_TOKENS}, so its reservation, $${OUTPUT_PER_MTOK}/MTok × ${MAX_TOKENS}, is exactly what its answer costs). ${REQUESTS} requests sent at once, alternating between the processes; then both stopped with SIGTERM and a third start ran the sweep.`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| admitted (200) | **${r.admitted}** |`,
    `| refused by the hard limit (429) | ${r.refused} |`,
    `| any other answer | ${r.other} |`,
    `| answers per process | ${Object.entries(r.perProcess).map(([k, v]) => `${k}: ${v}`).join(', ')} |`,
    `| wall time for all ${REQUESTS} | ${r.elapsedMs.toFixed(0)} ms |`,
    `| allocation / spent after the sweep | ${usd(r.allocation)} / ${usd(r.spent)} |`,
    `| reserved after the sweep / leases left | ${usd(r.reserved)} / ${r.leases} |`,
    `| ledger lines | ${r.ledger.map((l) => `${l.outcome}: ${l.n} (${usd(l.usd)})`).join(', ')} |`,
    '',
    `${r.admitted === FITS ? `Exactly ${FITS} admitted across the two processes: no money stranded in one process's lease while the other refused, and none spent past the allocation.` : `${r.admitted} admitted where ${FITS} fit: ${r.admitted < FITS ? "money stayed in one process's lease while the other refused (leases are given back when idle, after the burst)" : 'more than fit: a bug'}.`}`,
    END,
  ].join('\n');
  const text = readFileSync(RESULTS_FILE, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next = start >= 0 && end > start ? text.slice(0, start) + md + text.slice(end + END.length) : `${text.trimEnd()}\n\n${md}\n`;
  writeFileSync(RESULTS_FILE, next);
  log(`wrote the two-process section of ${RESULTS_FILE}`);
}

main().catch((error) => {
  log(error.stack ?? String(error));
  process.exit(1);
});
