import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call } from './support/http.js';
import { startTestPlatform, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';
import { SMALL_TEXT } from '@svc/crawl/fetch/block-page';

/**
 * Crawl runs on separate `svc worker` processes: concurrent runs spread over both; a worker
 * killed (SIGKILL) while it fetches the page, while it is inside its write of the items, or while
 * it writes the knowledge base hands the run to the other, which completes it with every item
 * (and every chunk) stored once.
 */

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const LOCK_MS = 3000;
const SELECTORS = {
  listRow: 'ul.news-list > li.news-item',
  title: ':scope > h3.title > a',
  publishedAt: ':scope > h3.title + span.date',
  link: ':scope > h3.title > a::attr(href)',
};

let platform: TestPlatform;
let site: FixtureSite;
let db: pg.Client;
let token: string;
let gatewayKey: string;
const workers = new Map<string, ChildProcess>();

/** A separate `svc worker` process, as a deployment would run it. */
async function startWorker(name: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SVC, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: platform.databaseUrl,
      SVC_JWT_SECRET: TEST_JWT_SECRET,
      SVC_WORKER_NAME: name,
      SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      SVC_CRAWL_LOCK_LIFETIME_MS: String(LOCK_MS),
      SVC_CRAWL_CONCURRENCY: '1',
      SVC_ROUTER_URL: platform.router,
      SVC_CRAWL_GATEWAY_KEY: gatewayKey,
      SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      SVC_CRAWL_WEBHOOK_RETRY_MS: '1500',
      SVC_CRAWL_WEBHOOK_SWEEP_MS: '300',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  workers.set(name, child);
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await eventually(() => output.includes('crawl worker started') || child.exitCode !== null, 20_000, `worker ${name} to start`);
  if (child.exitCode !== null) throw new Error(`worker ${name} exited with ${child.exitCode}:\n${output}`);
  return child;
}

const headers = () => ({ authorization: `Bearer ${token}` });

async function createJob(path: string): Promise<string> {
  const reply = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
    headers: headers(),
    json: { jobName: `workers ${path}`, targetUrl: site.url(path), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: SELECTORS },
  });
  expect(reply.status).toBe(201);
  return reply.body.data.jobId;
}

async function trigger(jobId: string) {
  const reply = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: headers() });
  expect(reply.status).toBe(200);
  return reply.body.data as { executionId: string; allocatedAgent: string; status: string };
}

async function completed(executionId: string, timeoutMs = 60_000) {
  return eventually(async () => {
    const reply = await call(`${platform.bridge}/api/v1/crawl/results/${executionId}`, { headers: headers() });
    return reply.status === 200 ? reply.body.data : undefined;
  }, timeoutMs, `execution ${executionId} to complete`);
}

beforeAll(async () => {
  site = await startFixtureSite();
  // The crawl service only enqueues here; the two `svc worker` processes run everything.
  platform = await startTestPlatform({ SVC_CRAWL_WORKER: 'false', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_LOCK_LIFETIME_MS: String(LOCK_MS), SVC_CRAWL_TRIGGER_WAIT_MS: '15000' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
  gatewayKey = (await call(`${platform.bridge}/admin/v1/keys`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, json: { agentCode: 'crawl-workers' } })).body.key;
  await Promise.all([startWorker('worker-a'), startWorker('worker-b')]);
}, 60_000);

afterAll(async () => {
  for (const child of workers.values()) if (child.exitCode === null) child.kill('SIGKILL');
  await db?.end();
  await platform?.close();
  await site?.close();
});

describe('crawl runs on separate worker processes', () => {
  it('spreads concurrent runs over both workers', async () => {
    site.serve('/spread', { content: 'v1.html', delayMs: 1200 });
    const jobs = await Promise.all([createJob('/spread'), createJob('/spread'), createJob('/spread'), createJob('/spread')]);
    const runs = await Promise.all(jobs.map(trigger));
    for (const run of runs) expect(['worker-a', 'worker-b']).toContain(run.allocatedAgent);
    expect(new Set(runs.map((r) => r.allocatedAgent))).toEqual(new Set(['worker-a', 'worker-b']));
    for (const run of runs) expect((await completed(run.executionId)).totalCount).toBe(7);
  }, 60_000);

  it('hands a run over to the other worker when its worker is killed, without storing any item twice', async () => {
    site.serve('/long', { content: 'v1.html', delayMs: 4000 });
    const jobId = await createJob('/long');
    const run = await trigger(jobId);
    const victim = workers.get(run.allocatedAgent)!;
    const survivor = run.allocatedAgent === 'worker-a' ? 'worker-b' : 'worker-a';
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    const result = await completed(run.executionId, 60_000);
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(result.totalCount).toBe(7);
    const { rows: [execution] } = await db.query('select status, allocated_agent from crawl.crawl_execution where id = $1', [run.executionId]);
    expect(execution).toEqual({ status: 'COMPLETED', allocated_agent: survivor });
    const { rows: [counts] } = await db.query('select count(*)::int as items, count(distinct detail_url)::int as urls from crawl.crawl_item where job_id = $1', [jobId]);
    expect(counts).toEqual({ items: 7, urls: 7 });
    const { rows: [listed] } = await db.query('select count(*)::int as n from crawl.execution_item where execution_id = $1', [run.executionId]);
    expect(listed.n).toBe(7);
  }, 90_000);
  it('hands a run over when its worker is killed in the middle of writing the knowledge base, with no item or chunk stored twice', async () => {
    for (const [name, child] of workers) if (child.exitCode !== null || child.signalCode !== null) await startWorker(name);
    // Six stories whose detail pages answer slowly: the worker has stored the items and is
    // indexing them one by one (fetch, chunk, embed, replace chunks, mark INDEXED) when it dies.
    // Each story is longer than the block-page rules' SMALL_TEXT: a page with less text is held
    // until every page is read and then indexed with the others in one burst (rag-sync.ts), so
    // the kill after two landed after all six whenever the poll lagged (CI failed that way three
    // times; slower pages could not help). Longer, each is indexed 2.5 s after the one before.
    const body = (i: number) => `Paragraph ${i}: the harbour works continue with new cranes, longer quays and night shifts for the crews. `.repeat(14);
    expect(body(0).length).toBeGreaterThan(SMALL_TEXT);
    const stories = Array.from({ length: 6 }, (_, i) => ({ path: `/kb/d/${i}`, title: `Story ${i} about harbour works`, body: body(i) }));
    site.serve('/kb/list', { content: { html: `<html><body><ul class="news">${stories.map((st) => `<li class="story"><a href="${st.path}">${st.title}</a></li>`).join('')}</ul></body></html>` } });
    for (const st of stories) site.serve(st.path, { content: { html: `<html><head><title>${st.title}</title></head><body><article><h1>${st.title}</h1><p>${st.body}</p></article></body></html>` }, delayMs: 2500 });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: headers(),
      json: { jobName: 'workers mid-write', targetUrl: site.url('/kb/list'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.news > li.story', title: ':scope > a', link: ':scope > a::attr(href)' }, enableRagSync: true },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.data.jobId as string;
    const run = await trigger(jobId);
    const indexed = async () => (await db.query("select count(*)::int as n from crawl.crawl_item where job_id = $1 and vector_sync_status = 'INDEXED'", [jobId])).rows[0].n as number;
    // Killed once it has written part of the knowledge base and not the rest.
    await eventually(async () => ((await indexed()) >= 2 ? true : undefined), 30_000, 'the first items to be indexed');
    const victim = workers.get(run.allocatedAgent)!;
    victim.kill('SIGKILL');
    const partly = await indexed();
    expect(partly).toBeLessThan(stories.length);
    // The run waits for the dead worker's lease to lapse, then its pages are fetched again: 90 s on a loaded host.
    const result = await completed(run.executionId, 90_000);
    expect(result.totalCount).toBe(stories.length);
    const { rows: [items] } = await db.query("select count(*)::int as items, count(distinct detail_url)::int as urls, count(*) filter (where vector_sync_status = 'INDEXED')::int as indexed from crawl.crawl_item where job_id = $1", [jobId]);
    expect(items).toEqual({ items: stories.length, urls: stories.length, indexed: stories.length });
    const { rows: [chunks] } = await db.query('select count(*)::int as chunks, count(distinct (item_id, chunk_index))::int as distinct_chunks, count(distinct item_id)::int as items from crawl.knowledge_chunk where item_id in (select id from crawl.crawl_item where job_id = $1)', [jobId]);
    expect(chunks.chunks).toBe(chunks.distinct_chunks);
    expect(chunks.items).toBe(stories.length);
  }, 150_000);

  it('kills a worker inside its write of the items, and the other worker completes the run with each item stored once', async () => {
    // The worker killed by the test before is replaced, so the run has somewhere to go.
    for (const [name, child] of workers) if (child.exitCode !== null || child.signalCode !== null) await startWorker(name);
    site.serve('/mid-write', 'v1.html');
    const jobId = await createJob('/mid-write');
    // The test holds the items table, so the worker's item write waits inside the statement.
    const holder = new pg.Client({ connectionString: platform.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table crawl.crawl_item in exclusive mode');
      const run = await trigger(jobId);
      const survivor = run.allocatedAgent === 'worker-a' ? 'worker-b' : 'worker-a';
      await eventually(async () => {
        const { rows } = await db.query(`select 1 from pg_locks where relation = 'crawl.crawl_item'::regclass and not granted`);
        return rows.length > 0;
      }, 20_000, 'the worker to be writing the items');
      workers.get(run.allocatedAgent)!.kill('SIGKILL');
      await holder.query('rollback');
      // The killed worker's statement may still commit on the server once the lock is free; what
      // counts is that the items exist once and the run ends complete, finished by the survivor.
      const result = await completed(run.executionId, 60_000);
      expect(result.totalCount).toBe(7);
      const { rows: [execution] } = await db.query('select status, allocated_agent, total_count from crawl.crawl_execution where id = $1', [run.executionId]);
      expect(execution).toEqual({ status: 'COMPLETED', allocated_agent: survivor, total_count: 7 });
      const { rows: [counts] } = await db.query('select count(*)::int as items, count(distinct detail_url)::int as urls from crawl.crawl_item where job_id = $1', [jobId]);
      expect(counts).toEqual({ items: 7, urls: 7 });
      const { rows: [listed] } = await db.query('select count(*)::int as n, count(distinct position)::int as places from crawl.execution_item where execution_id = $1', [run.executionId]);
      expect(listed).toEqual({ n: 7, places: 7 });
    } finally {
      await holder.end();
    }
  }, 90_000);

  it('delivers an execution\'s webhook once although the worker that ended the execution is killed before it could deliver it', async () => {
    // One worker only, so the run and its first delivery attempt are surely the victim's.
    for (const [name, child] of workers) if (child.exitCode === null && name !== 'worker-a') child.kill('SIGKILL');
    if (workers.get('worker-a')!.exitCode !== null || workers.get('worker-a')!.signalCode !== null) await startWorker('worker-a');
    const receiver = await startWebhookReceiver([503]);
    try {
      site.serve('/hooked', 'v1.html');
      const reply = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
        headers: headers(),
        json: { jobName: 'workers hooked', targetUrl: site.url('/hooked'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: SELECTORS, webhook: { url: receiver.url, secret: 'workers-webhook-secret-42', events: ['completed'] } },
      });
      expect(reply.status).toBe(201);
      const run = await trigger(reply.body.data.jobId);
      expect(run.allocatedAgent).toBe('worker-a');
      // The run ended and its delivery was tried once and refused: it waits for its retry.
      await eventually(async () => {
        const { rows } = await db.query(`select status, attempts from crawl.webhook_delivery where execution_id = $1`, [run.executionId]);
        return rows[0]?.attempts === 1 && rows[0].status === 'PENDING';
      }, 20_000, 'the first refused attempt');
      workers.get('worker-a')!.kill('SIGKILL');
      await startWorker('worker-b');
      await eventually(async () => {
        const { rows } = await db.query(`select status from crawl.webhook_delivery where execution_id = $1`, [run.executionId]);
        return rows[0]?.status === 'DELIVERED';
      }, 30_000, 'the other worker to deliver it');
      await new Promise((r) => setTimeout(r, 2000));
      const posts = receiver.received.filter((r) => r.body.executionId === run.executionId);
      expect(posts.map((r) => String(r.headers['x-svc-delivery']).split(':')[1])).toEqual(['1', '2']);
      expect(new Set(posts.map((r) => String(r.headers['x-svc-delivery']).split(':')[0])).size).toBe(1);
      const { rows: [row] } = await db.query(`select status, attempts, count(*) over ()::int as n from crawl.webhook_delivery where execution_id = $1`, [run.executionId]);
      expect(row).toEqual({ status: 'DELIVERED', attempts: 2, n: 1 });
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
