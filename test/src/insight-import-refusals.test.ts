import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { issueToken } from '@svc/kit';
import { request } from 'node:http';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { TEST_JWT_SECRET } from './support/platform.js';
import { createTestDatabase } from './support/services.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';

/**
 * Bad import files past one write batch (200,000 points) and past the file's limits, sent to
 * `svc insight` in its own process as a deployment runs it: each is refused with the documented
 * 422 naming its line, nothing of it is stored, and the process keeps answering. A refusal found
 * while an earlier batch was being written once ended the process (an unhandled rejection of
 * the batch read ahead), taking every tenant's services with it.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: pg.Client;
let insight: ServiceProcess;
let token: string;

const day = (d: number) => 1_790_000_000_000 + d * 86_400_000;
/** A CSV of `bays` × `days` good points (lines 2 … bays·days + 1), with `edit` changing lines by number. */
function csv(bays: number, days: number, edit: (lines: string[]) => void = () => undefined): string {
  const lines = ['name,timestamp,value,bay'];
  for (let bay = 0; bay < bays; bay++) for (let d = 0; d < days; d++) lines.push(`hoist_lifts,${day(d)},${d},b${bay}`);
  edit(lines);
  return lines.join('\n');
}
const upload = (body: string, type = 'text/csv') =>
  call(`${insight.url}/api/v1/insight/metrics/import`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type, 'x-svc-tenant-id': 't1' }, body });
const storedRows = async () =>
  (await db.query<{ series: number; points: number }>(`select (select count(*)::int from insight.metric_series where tenant_id = 't1') as series, (select count(*)::int from insight.metric_point where tenant_id = 't1') as points`)).rows[0];

/** The refusal came as the 422, the process still serves, nothing was stored and nothing was left unhandled. */
async function expectRefusedAndServing(reply: Awaited<ReturnType<typeof upload>>, errors: unknown) {
  expect(reply.status).toBe(422);
  expect(reply.body).toMatchObject({ code: 422, data: null, message: expect.stringContaining('not imported') });
  expect(reply.body.errors).toEqual(errors);
  expect(await storedRows()).toEqual({ series: 0, points: 0 });
  expect(insight.child.exitCode).toBeNull();
  expect((await fetch(`${insight.url}/ready`)).status).toBe(200);
  expect(insight.output()).not.toMatch(/unhandled|uncaught/i);
}

beforeAll(async () => {
  database = await createTestDatabase();
  insight = await startServiceProcess('insight', database.url, { SVC_INSIGHT_WORKER: 'false', SVC_SEED_DEMO: 'false' });
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  token = (await issueToken(TEST_JWT_SECRET, { subject: 'ivy', roles: ['analyst'], tenants: ['t1'], sites: [] }, 600)).accessToken;
}, 90_000);
afterAll(async () => {
  await db?.end();
  await insight?.stop();
  await database?.drop();
});

describe('bad import files past one batch, sent to svc insight', () => {
  it('a bad value on line 250,002 of 300,011', async () => {
    const body = csv(3000, 100, (lines) => {
      for (let i = 0; i < 10; i++) lines.push(`hoist_lifts,${day(200 + i)},1,b0`);
      lines[250_001] = 'hoist_lifts,1790000000000,twelve,b2500';
    });
    await expectRefusedAndServing(await upload(body), [{ pointer: '/line/250002/value', detail: expect.stringContaining('"twelve"') }]);
  }, 120_000);

  it('an NDJSON line that is not JSON after 240,000 good ones', async () => {
    const lines: string[] = [];
    for (let bay = 0; bay < 2500; bay++) for (let d = 0; d < 100; d++) lines.push(JSON.stringify({ name: 'hoist_lifts', labels: { bay: `b${bay}` }, timestamp: day(d), value: d }));
    lines[240_000] = '{"name": "hoist_lifts",';
    await expectRefusedAndServing(await upload(lines.join('\n'), 'application/x-ndjson'), [{ pointer: '/line/240001', detail: expect.stringContaining('not a JSON object') }]);
  }, 120_000);

  it('1,000,001 series, one past the limit', async () => {
    const body = csv(1_000_001, 1);
    await expectRefusedAndServing(await upload(body), [{ pointer: '/line/1000002', detail: expect.stringContaining('at most 1,000,000 series') }]);
  }, 240_000);

  it('a line past the length limit, and a line of the wrong width, after 220,000 good ones', async () => {
    const body = csv(2300, 100, (lines) => {
      lines[220_001] = `hoist_lifts,${day(1)},1,${'x'.repeat(20_000)}`;
      lines[225_001] = `hoist_lifts,${day(1)},1,b1,extra`;
    });
    await expectRefusedAndServing(await upload(body), [
      { pointer: '/line/220002', detail: expect.stringContaining('at most 16384 characters') },
      { pointer: '/line/225002', detail: 'expected 4 cells as the header has, got 5' },
    ]);
  }, 120_000);

  it('more bad lines than are reported, from line 210,000 on: the first 20, and reading stops there', async () => {
    const body = csv(3000, 100, (lines) => {
      for (let i = 0; i < 30; i++) lines[210_000 + i * 1000] = `hoist_lifts,not-a-time,1,b1`;
    });
    const reply = await upload(body);
    await expectRefusedAndServing(reply, Array.from({ length: 20 }, (_, i) => ({ pointer: `/line/${210_001 + i * 1000}/timestamp`, detail: expect.any(String) })));
    expect(reply.body.message).toContain('the first 20 problems');
  }, 120_000);

  it('a client that drops the connection after 250,000 lines: nothing stored, still serving', async () => {
    const body = Buffer.from(csv(2500, 100));
    const closed = new Promise<void>((resolve) => {
      const req = request(`${insight.url}/api/v1/insight/metrics/import`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv', 'x-svc-tenant-id': 't1' } });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(body, () => req.destroy());
    });
    await closed;
    // The import's transaction is rolled back once the server sees the body end early: it says so.
    await eventually(() => insight.output().includes('metric import abandoned: the client closed the connection'), 60_000, 'the abandoned import to be logged');
    expect(await storedRows()).toEqual({ series: 0, points: 0 });
    expect(insight.child.exitCode).toBeNull();
    expect((await fetch(`${insight.url}/ready`)).status).toBe(200);
    expect(insight.output()).not.toMatch(/unhandled|uncaught/i);
  }, 120_000);
});
