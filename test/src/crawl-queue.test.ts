import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_JWT_SECRET, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const SELECTORS = { listRow: 'ul.news-list > li.news-item', title: ':scope > h3.title > a', link: ':scope > h3.title > a::attr(href)' };

let platform: TestPlatform;
let site: FixtureSite;
let db: pg.Client;
let token: string;
const children: ChildProcess[] = [];

async function startWorker(name: string, lockMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SVC, 'worker'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: platform.databaseUrl, SVC_JWT_SECRET: TEST_JWT_SECRET, SVC_WORKER_NAME: name, SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_LOCK_LIFETIME_MS: String(lockMs), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  // A cold start of a worker process took over 20 s on a busy CI machine.
  await eventually(() => output.includes('crawl worker started') || child.exitCode !== null, 60_000, `worker ${name}`);
  if (child.exitCode !== null) throw new Error(`worker ${name} exited: ${output}`);
  return child;
}

const executionRow = async (id: string) => (await db.query('select status, allocated_agent from crawl.crawl_execution where id = $1', [id])).rows[0];

beforeAll(async () => {
  site = await startFixtureSite();
  // No in-process worker, and no worker process at first: nobody can take a run.
  platform = await startTestPlatform({ SVC_CRAWL_WORKER: 'false', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_TRIGGER_WAIT_MS: '700' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
}, 30_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await db?.end();
  await platform?.close();
  await site?.close();
});

describe('a run no worker takes', () => {
  it('answers 503 after the bounded wait, stays queued, and runs when a worker arrives; a gracefully stopped worker finishes its run and exits 0', async () => {
    site.serve('/q', { content: 'v1.html', delayMs: 2500 });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: { authorization: `Bearer ${token}` },
      json: { jobName: 'queued', targetUrl: site.url('/q'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: SELECTORS },
    });
    const jobId = created.body.data.jobId;
    const started = Date.now();
    const refused = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ code: 'UNAVAILABLE', message: expect.stringContaining('stays queued'), data: null });
    expect(refused.headers.get('retry-after')).toBe('10');
    const executionId = /execution ([0-9a-f-]{36})/.exec(refused.body.message)![1]!;
    expect(await executionRow(executionId)).toEqual({ status: 'QUEUED', allocated_agent: null });

    // A worker with a long lock arrives and takes the queued run. Stopped gracefully mid-run it
    // finishes (or releases) its run and exits 0; the run never waits for the 60 s lock to lapse.
    const first = await startWorker('patient-a', 60_000);
    await eventually(async () => (await executionRow(executionId))?.allocated_agent === 'patient-a', 20_000, 'worker a to take the queued run');
    await startWorker('patient-b', 60_000);
    const stoppedAt = Date.now();
    first.kill('SIGTERM');
    await eventually(async () => (await executionRow(executionId))?.status === 'COMPLETED', 30_000, 'the run to complete');
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(['patient-a', 'patient-b']).toContain((await executionRow(executionId)).allocated_agent);
    await eventually(() => first.exitCode !== null, 15_000, 'worker a to exit');
    expect(first.exitCode).toBe(0);
    const { rows: [counts] } = await db.query('select count(*)::int as items, count(distinct detail_url)::int as urls from crawl.crawl_item where job_id = $1', [jobId]);
    expect(counts.items).toBe(counts.urls);

    // CrawlItem is an entity other subgraphs can reference.
    const result = await call(`${platform.bridge}/api/v1/crawl/results/${executionId}`, { headers: { authorization: `Bearer ${token}` } });
    const item = result.body.data.items[0];
    const entity = await gql(`${platform.urls.crawl}`, 'query($r: [_Any!]!) { _entities(representations: $r) { ... on CrawlItem { id title detailUrl } } }', { r: [{ __typename: 'CrawlItem', id: item.id }] }, { authorization: `Bearer ${token}` });
    expect(entity.body.data._entities).toEqual([{ id: item.id, title: item.title, detailUrl: item.detailUrl }]);
  }, 180_000);
});
