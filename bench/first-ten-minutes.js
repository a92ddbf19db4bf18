// A new user's first ten minutes, measured: fresh clone → `npm install` → `npm start` → the
// first answer to the README's question → the dashboard showing that completed report.
//
//   node bench/first-ten-minutes.js        (writes the "First ten minutes" section of bench/RESULTS.md;
//                                            BENCH_NO_WRITE=1 prints it instead)
//
// It clones this repository's committed HEAD into a temporary folder and runs everything there as
// the README says, with the machine's own `node`/`npm` first on PATH (BENCH_PATH overrides it,
// e.g. a Node 20 one, to see the first start fetch Node 24), on free ports and a fresh data
// folder; it then signs in to the dashboard in headless Chromium (Debian's, as the tests use) and
// waits for the report. A second `npm start` shows what a returning user waits. npm's download
// cache (~/.npm) is the machine's: package tarballs already fetched once are not fetched again.
// CPU heavy (a full install and build): run it alone.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = new URL('..', import.meta.url).pathname;
const QUESTION = 'Why did revenue drop last week? What if we increase search ad spend by 20%?';
const PATH = process.env.BENCH_PATH ?? process.env.PATH;
const seconds = (ms) => (ms / 1000).toFixed(1);
const freePort = () => new Promise((resolve) => {
  const server = createServer();
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});

/** Runs a command to its end; resolves with its combined output and duration. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => (code === 0 ? resolve({ output, ms: Date.now() - started }) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

/** `npm start` until the banner; the moments each `svc:` line and the banner appeared. */
function start(dir, env) {
  const started = Date.now();
  const child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const lines = [];
  const seen = (chunk) => {
    output += chunk;
    for (const line of String(chunk).split('\n')) if (line.startsWith('svc:') || line.includes('is up:')) lines.push({ at: Date.now() - started, line: line.trim() });
  };
  child.stdout.on('data', seen);
  child.stderr.on('data', seen);
  const up = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up in 10 minutes:\n${output}`)), 600_000);
    const check = () => {
      if (output.includes('is up:')) {
        clearTimeout(timer);
        resolve(Date.now() - started);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    process.kill(-child.pid, 'SIGTERM'); // npm, bash and node: the whole group it started
  });
  return { up, lines, output: () => output, stop };
}

async function json(url, init) {
  const reply = await fetch(url, init);
  const body = await reply.json();
  if (!reply.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${reply.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * SVC_BENCH_SMOKE=1 (npm test's bench smoke run): no clone and no install; `npm start` in this
 * checkout with a fresh data folder, the question, the dashboard, nothing written.
 */
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';

async function main() {
  const dir = SMOKE ? ROOT : await mkdtemp(join(tmpdir(), 'svc-first-ten-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-first-ten-data-'));
  const ports = {};
  for (const name of ['SERVER_PORT', 'SVC_ROUTER_PORT', 'SVC_INSIGHT_PORT', 'SVC_LLM_PORT', 'SVC_CRAWL_PORT', 'SVC_CMS_PORT', 'SVC_DASHBOARD_PORT']) ports[name] = String(await freePort());
  const env = { PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', SVC_DATA_DIR: dataDir, ...ports };
  const load = [loadavg()[0]];
  const node = execFileSync('node', ['--version'], { env: { PATH }, encoding: 'utf8' }).trim();
  let platform;
  let browser;
  try {
    const branch = execFileSync('git', ['-C', ROOT, 'rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim();
    const clone = SMOKE ? { ms: 0, output: '' } : await run('git', ['clone', '--quiet', '--no-hardlinks', ...(branch === 'HEAD' ? [] : ['--branch', branch]), ROOT, dir], {});
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const install = SMOKE ? { ms: 0, output: '' } : await run('npm', ['install'], { cwd: dir, env });
    load.push(loadavg()[0]);
    platform = start(dir, env);
    const upMs = await platform.up;
    const firstLines = platform.lines.map((l) => `${seconds(l.at).padStart(6)} s  ${l.line}`);

    // The README's question, as its curl lines ask it.
    const bridge = `http://127.0.0.1:${ports.SERVER_PORT}`;
    const askedAt = Date.now();
    const token = (await json(`${bridge}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) })).data.accessToken;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-svc-tenant-id': 'demo' };
    const jobId = (await json(`${bridge}/api/v1/insight/jobs`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: QUESTION }) })).data.jobId;
    let job;
    for (;;) {
      job = (await json(`${bridge}/api/v1/insight/jobs/${jobId}`, { headers: auth })).data;
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status)) break;
      if (Date.now() - askedAt > 300_000) throw new Error(`the job did not finish in 5 minutes: ${job.status}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const answerMs = Date.now() - askedAt;

    // The dashboard showing that report.
    const shownFrom = Date.now();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(`http://127.0.0.1:${ports.SVC_DASHBOARD_PORT}/#job=${jobId}`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.report .judgment').waitFor({ timeout: 60_000 });
    await page.locator('.chart canvas').first().waitFor({ timeout: 60_000 });
    const dashboardMs = Date.now() - shownFrom;
    const reportTop = (await page.locator('.report .judgment').boundingBox()).y;
    const actionsTop = (await page.locator('.actions').boundingBox()).y;
    await mkdir(join(ROOT, 'bench', '.tmp'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'bench', '.tmp', 'first-ten-minutes.png') });
    await browser.close();
    browser = undefined;
    load.push(loadavg()[0]);
    await platform.stop();

    // A returning user: the same clone, started again.
    platform = SMOKE ? undefined : start(dir, env);
    const againMs = platform ? await platform.up : 0;
    await platform?.stop();
    platform = undefined;

    const warnings = install.output.split('\n').filter((l) => /npm warn/i.test(l));
    const total = clone.ms + install.ms + upMs + answerMs + dashboardMs;
    const md = [
      `### First ten minutes (${new Date().toISOString().slice(0, 10)}, \`node bench/first-ten-minutes.js\` on commit ${commit}, ${node} first on PATH, npm ${execFileSync('npm', ['--version'], { env: { PATH }, encoding: 'utf8' }).trim()}, 2 cores shared with other work: load average ${load.map((l) => l.toFixed(1)).join(' → ')})`,
      '',
      '| step | time |',
      '|---|---:|',
      `| \`git clone\` (local) | ${seconds(clone.ms)} s |`,
      `| \`npm install\` (npm's download cache warm) | ${seconds(install.ms)} s (${install.output.split('\n').length} lines of output, ${warnings.length} \`npm warn\` lines) |`,
      `| first \`npm start\` → the banner | ${seconds(upMs)} s |`,
      `| the README's question → the report (\`COMPLETED\`, offline model) | ${seconds(answerMs)} s (${job.steps.length} steps, status ${job.status}) |`,
      `| dashboard: sign in → that report and its charts on screen (1440×900) | ${seconds(dashboardMs)} s (answer at y=${Math.round(reportTop)} px, actions at y=${Math.round(actionsTop)} px) |`,
      `| **clone to the report on screen** | **${seconds(total)} s** |`,
      `| a second \`npm start\` → the banner | ${seconds(againMs)} s |`,
      '',
      'What the first `npm start` printed before its banner (seconds since it began):',
      '',
      '```',
      ...firstLines,
      '```',
      '',
    ].join('\n');
    process.stdout.write(`${md}\n`);
    if (!process.env.BENCH_NO_WRITE && !SMOKE) {
      const file = new URL('./RESULTS.md', import.meta.url);
      const existing = await readFile(file, 'utf8');
      const marker = '## First ten minutes';
      const section = `${marker}\n\n${md}`;
      await writeFile(file, existing.includes(marker) ? existing.replace(new RegExp(`${marker}[\\s\\S]*?(?=\\n## |\\n<!-- |$)`), section) : `${existing.trimEnd()}\n\n${section}`);
    }
  } finally {
    await browser?.close().catch(() => undefined);
    await platform?.stop().catch(() => undefined);
    if (!SMOKE) await rm(dir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
