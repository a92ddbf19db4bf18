// What waking a process costs (issue #33): the CPU a server process spends on one request when
// requests come back to back, against when it has been idle a few milliseconds before each, as
// a subgraph is between the calls of a federated query at concurrency 1.
//
// Contenders, each in a process of its own: a bare node:http server answering a fixed JSON body
// of 200 small objects (a child of this script), and `svc cms` alone (NODE_ENV=production, demo
// seed on, a fresh PostgreSQL database) asked `{ __typename }` and the `_entities` query the
// router sends for the demo site's first 4 contents. Per contender and gap (0, 1, 4 and 10 ms):
// 1,500 requests one after another over one keep-alive connection, waiting the gap after each
// answer; CPU is utime + stime of the server process (/proc/<pid>/stat) per request. Two rounds,
// the second in reverse order; the table has both.
//
//   npm run bench:wake-cost      about 3 minutes; prints a markdown table (bench/RESULTS.md,
//                                graph performance, quotes it with the date and host)
//   SVC_BENCH_SMOKE=1 ...        20 requests per cell, gaps 0 and 1 ms: checks the script runs
import { spawn, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { cpuTicks } from './proc-stats.js';
import { untilReady } from './until-ready.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const REQUESTS = SMOKE ? 20 : 1500;
const GAPS_MS = SMOKE ? [0, 1] : [0, 1, 4, 10];
/** The gap of the table's ratio column: a subgraph's idle time between calls of a federated query at concurrency 1. */
const RATIO_GAP = GAPS_MS.includes(4) ? 4 : GAPS_MS.at(-1);
const TICKS_PER_SECOND = 100;

if (process.argv.includes('--child=bare')) {
  const body = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, slug: `content-${i}`, status: 'PUBLISHED' })) });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  await main();
}

function post(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const [{ default: pg }, kit, { createBenchDatabase }] = await Promise.all([
    import('pg'),
    import('../subgraphs/kit/dist/src/index.js'),
    import('./bench-database.js'),
  ]);
  const database = await createBenchDatabase(`svc_wake_${process.pid}`);
  const dir = await mkdtemp(join(os.tmpdir(), 'svc-wake-'));
  const children = [];
  try {
    const secret = randomBytes(32).toString('base64url');
    const cmsPort = await freePort();
    const cms = spawn(process.execPath, [join(ROOT, 'cli/bin/svc.js'), 'cms'], {
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), NODE_ENV: 'production', LOG_LEVEL: 'warn',
        DATABASE_URL: database.url, REDIS_URL: process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', SVC_REDIS_PREFIX: `svc-wake-${process.pid}:`,
        SVC_DATA_DIR: dir, SVC_JWT_SECRET: secret, SVC_SEED_DEMO: 'true', SVC_CMS_PORT: String(cmsPort),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(cms);
    const cmsUrl = `http://127.0.0.1:${cmsPort}`;
    await untilReady(cms, `${cmsUrl}/ready`, { label: 'svc cms' });
    const bare = fork(SELF, ['--child=bare'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, NODE_ENV: 'production' } });
    children.push(bare);
    const barePort = await new Promise((resolve) => bare.once('message', resolve));

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const contents = (await db.query("select c.id from cms.content c join cms.site s on s.id = c.site_id where s.site_key = 'demo' order by c.slug limit 4")).rows.map((r) => r.id);
    await db.end();
    const { accessToken } = await kit.issueToken(secret, { subject: 'wake-bench', roles: ['admin'], tenants: '*', sites: '*' }, 3600);
    const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${accessToken}`, 'x-svc-tenant-id': 'demo' };
    const entities = 'query($representations:[_Any!]!){_entities(representations:$representations){...on Content{__typename id slug contentStatus:status}}}';
    const contenders = [
      { label: 'bare node:http (200 objects of JSON)', pid: bare.pid, url: `http://127.0.0.1:${barePort}/`, body: '{}', check: (t) => t.startsWith('{"data":[') },
      { label: 'svc cms, `{ __typename }`', pid: cms.pid, url: `${cmsUrl}/graphql`, body: JSON.stringify({ query: '{ __typename }' }), check: (t) => t === '{"data":{"__typename":"Query"}}\n' || t === '{"data":{"__typename":"Query"}}' },
      { label: 'svc cms, `_entities` of 4 contents', pid: cms.pid, url: `${cmsUrl}/graphql`, body: JSON.stringify({ query: entities, variables: { representations: contents.map((id) => ({ __typename: 'Content', id })) } }), check: (t) => (JSON.parse(t).data?._entities ?? []).filter(Boolean).length === contents.length },
    ];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const results = new Map();
    for (const c of contenders) {
      const first = await post(agent, c.url, headers, c.body);
      if (first.status !== 200 || !c.check(first.text)) throw new Error(`${c.label} answered ${first.status}: ${first.text.slice(0, 300)}`);
      for (let i = 0; i < (SMOKE ? 5 : 300); i++) await post(agent, c.url, headers, c.body);
    }
    for (const round of [0, 1]) {
      const order = round === 0 ? contenders : [...contenders].reverse();
      for (const c of order) {
        for (const gap of round === 0 ? GAPS_MS : [...GAPS_MS].reverse()) {
          const before = cpuTicks(c.pid);
          for (let i = 0; i < REQUESTS; i++) {
            const answer = await post(agent, c.url, headers, c.body);
            if (answer.status !== 200) throw new Error(`${c.label}: HTTP ${answer.status}`);
            if (gap) await new Promise((r) => setTimeout(r, gap));
          }
          const ms = ((cpuTicks(c.pid) - before) * 1000) / TICKS_PER_SECOND / REQUESTS;
          const key = `${c.label}|${gap}`;
          results.set(key, [...(results.get(key) ?? []), ms]);
          process.stderr.write(`[wake] ${c.label}, gap ${gap} ms, round ${round + 1}: ${ms.toFixed(3)} ms CPU a request\n`);
        }
      }
    }
    agent.destroy();
    const cell = (label, gap) => results.get(`${label}|${gap}`).map((v) => v.toFixed(3)).join(', ');
    const mean = (label, gap) => results.get(`${label}|${gap}`).reduce((a, b) => a + b, 0) / 2;
    const lines = [
      `Made by \`npm run bench:wake-cost\` (\`node bench/wake-cost.js\`), ${new Date().toISOString()}; ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}; Node ${process.versions.node}. CPU ms a request of the server process, rounds 1 and 2; ${REQUESTS.toLocaleString('en-US')} requests one after another per cell over one keep-alive connection, the gap waited after each answer.`,
      '',
      `| server, request | ${GAPS_MS.map((g) => `gap ${g} ms`).join(' | ')} | gap ${RATIO_GAP} ms ÷ gap 0 |`,
      `|---|${GAPS_MS.map(() => '---:').join('|')}|---:|`,
      ...contenders.map((c) => `| ${c.label} | ${GAPS_MS.map((g) => cell(c.label, g)).join(' | ')} | ${mean(c.label, 0) > 0 ? `${(mean(c.label, RATIO_GAP) / mean(c.label, 0)).toFixed(2)}×` : '–'} |`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
