import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call } from './support/http.js';
import { freePort } from './support/ports.js';

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * Starts `svc all` exactly as a person would, with no database or Redis configured. The ports
 * were free a moment ago; the process's own port-0 listeners (the embedded database's socket)
 * or another test can take one first, so a start that finds its port taken is tried again.
 */
async function startEmbedded(dataDir: string, extra: Record<string, string> = {}): ReturnType<typeof startOnce> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(dataDir, extra);
    } catch (error) {
      // svc reports a taken port in one line (cli/src/start-failure.ts), not as EADDRINUSE.
      if (attempt >= 3 || !/the port is in use|EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(dataDir: string, extra: Record<string, string> = {}) {
  const ports = { SERVER_PORT: await freePort(), SVC_ROUTER_PORT: await freePort(), SVC_INSIGHT_PORT: await freePort(), SVC_LLM_PORT: await freePort(), SVC_CRAWL_PORT: await freePort(), SVC_CMS_PORT: await freePort(), SVC_DASHBOARD_PORT: await freePort() };
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
  for (const [k, v] of Object.entries(ports)) env[k] = String(v);
  const child = spawn(process.execPath, [SVC, 'all'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    // A wait for readiness, not a speed check (bench:first-ten-minutes measures that): generous, for a loaded machine.
    const timer = setTimeout(() => reject(new Error(`svc all did not come up in 60 s:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('is up:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc all exited with ${code}:\n${output}`));
    });
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return { ports, bridge: `http://127.0.0.1:${ports.SERVER_PORT}`, dashboard: `http://127.0.0.1:${ports.SVC_DASHBOARD_PORT}/`, output: () => output, stop };
}

describe('npx svc all on embedded defaults (PGlite + pgvector, in-process cache)', () => {
  it('starts with nothing configured, serves seeded content, warns about default credentials, and stops cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    dirs.push(dataDir);
    const first = await startEmbedded(dataDir);
    expect(first.output()).toContain('DEFAULT CREDENTIALS IN USE');
    // The banner is the README's, on this start's ports (column padding aside).
    const readme = await readFile(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
    const shown = /When it is up it prints[^`]*```\n([\s\S]*?)```/.exec(readme)![1]!;
    const portOf: Record<string, number> = { '3000': first.ports.SVC_DASHBOARD_PORT, '8084': first.ports.SERVER_PORT, '4000': first.ports.SVC_ROUTER_PORT, '4001': first.ports.SVC_INSIGHT_PORT, '4002': first.ports.SVC_LLM_PORT, '4003': first.ports.SVC_CRAWL_PORT, '4004': first.ports.SVC_CMS_PORT };
    const squash = (text: string) => text.replace(/[ \t]+/g, ' ');
    expect(squash(first.output())).toContain(squash(shown.replace(/127\.0\.0\.1:(\d+)/g, (_, port: string) => `127.0.0.1:${portOf[port]}`)));
    expect(first.output()).toContain(first.dashboard);
    const page = await fetch(first.dashboard);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await (await fetch(`${first.dashboard}session`)).json()).toMatchObject({ defaultCredentials: true });
    const content = await call(`${first.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' } });
    expect(content.status).toBe(200);
    expect(content.body.data).toMatchObject({ slug: 'welcome', status: 'PUBLISHED', version: 1 });
    const login = await call(`${first.bridge}/api/v1/auth/token`, { json: { username: 'admin', password: 'admin' } });
    expect(login.status).toBe(200);
    const receipt = await call(`${first.bridge}/api/v1/forms/contact/submit`, {
      json: { applicantName: 'Ada', email: 'ada@example.com', inquiryType: 'GENERAL', message: 'hi' },
      headers: { 'X-Svc-Site-Key': 'demo' },
    });
    expect(receipt.status).toBe(201);
    expect(await first.stop()).toBe(0);
    expect((await stat(join(dataDir, 'jwt-secret'))).mode & 0o777).toBe(0o600);

    // A second start reuses the data directory: the token signed before still verifies.
    const second = await startEmbedded(dataDir);
    const purge = await call(`${second.bridge}/api/v1/deploy/purge-cache`, {
      json: { siteKey: 'demo', contentSlug: 'welcome' },
      headers: { authorization: `Bearer ${login.body.data.accessToken}` },
    });
    expect(purge.status).toBe(200);
    expect(purge.body.data.layers[0]).toMatchObject({ layer: 'memory', ok: true });
    expect(await second.stop()).toBe(0);
  }, 150_000);

  it('manages accounts with svc users against the running process, and throttles login in PGlite', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    dirs.push(dataDir);
    const platform = await startEmbedded(dataDir, { SVC_LOGIN_USERNAME_ATTEMPTS: '2' });
    const users = (args: string[], stdin = '') =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [SVC, 'users', ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_BRIDGE_URL: platform.bridge }, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
        child.stdin!.end(stdin);
        child.on('close', (code) => resolve({ code, out }));
      });
    const login = (password: string) => call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'emma', password } });
    const crawlJobs = (token: string) => call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: { authorization: `Bearer ${token}`, 'X-Svc-Tenant-Id': 'demo' } });

    expect(await users(['add', 'emma', '--roles', 'crawler', '--tenants', 'demo'], 'emma-first-password\n')).toMatchObject({ code: 0 });
    const old = (await login('emma-first-password')).body.data.accessToken as string;
    expect((await crawlJobs(old)).status).toBe(200);
    expect(await users(['passwd', 'emma'], 'emma-second-password\n')).toMatchObject({ code: 0 });
    expect((await crawlJobs(old)).status).toBe(401);
    expect((await users(['list'])).out).toMatch(/^emma\s+crawler\s+demo\s+active$/m);

    for (const guess of ['guess-1', 'guess-2']) expect((await login(guess)).status).toBe(401);
    const throttled = await login('emma-second-password');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await login('emma-second-password')).status).toBe(200);
    expect(await platform.stop()).toBe(0);
  }, 150_000);

  it('runs a burst of 60 analysis jobs with no job scheduler error (each query whole on the one PGlite backend)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-burst-'));
    dirs.push(dir);
    const platform = await startEmbedded(dir);
    const login = await call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'admin', password: 'admin' } });
    const headers = { authorization: `Bearer ${login.body.data.accessToken}`, 'x-svc-tenant-id': 'demo' };
    const before = platform.output().length;
    const created = await Promise.all(Array.from({ length: 60 }, (_, i) => call(`${platform.bridge}/api/v1/insight/jobs`, { headers, json: { prompt: `How is revenue doing? (${i})` } })));
    expect(created.map((r) => r.status)).toEqual(Array(60).fill(202));
    const deadline = Date.now() + 240_000;
    for (;;) {
      const page = await call(`${platform.bridge}/api/v1/insight/jobs?first=100`, { headers });
      const open = (page.body.data.jobs as { status: string }[]).filter((j) => j.status === 'PENDING' || j.status === 'RUNNING').length;
      if (open === 0) break;
      if (Date.now() > deadline) throw new Error(`${open} of 60 jobs still open after 4 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const logged = platform.output().slice(before);
    expect(logged.split('\n').filter((line) => /job scheduler error|prepared statement|portal "" does not exist/.test(line))).toEqual([]);
    expect(await platform.stop()).toBe(0);
  }, 300_000);
});