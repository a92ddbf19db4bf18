import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.js';

/**
 * The database server stopped and restarted under load: the whole platform runs on a
 * PostgreSQL server of this test's own, clients keep submitting forms and reading analysis jobs
 * and content, and the server is killed (`pg_ctl stop -m immediate`) and started again. While
 * it is down every refused request is a 503 with Retry-After in the service's own shape, none
 * waits longer than the documented connect timeout (5 s) plus slack, nothing is a 500; once it
 * is back the same platform (no restart) serves again, every submission that was
 * acknowledged with 201 is in the database, and no connection of a transaction the outage cut
 * short stays checked out (the platform then stops without abandoning any).
 */

const LIMIT_MS = 8_000;
let database: PrivatePostgres;
let platform: TestPlatform | undefined;
const lines: string[] = [];
let admin: string;

interface Outcome {
  kind: 'submit' | 'jobs' | 'delivery';
  status: number;
  ms: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
  at: number;
}

beforeAll(async () => {
  database = await startPrivatePostgres();
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  platform = await startTestPlatform({ SVC_FORM_RATE_LIMIT_PER_MINUTE: '10000', SVC_INSIGHT_WORKER: 'false' }, { databaseUrl: database.url, logTo: sink });
  admin = await platform.token({ subject: 'root' });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await database?.close();
});

let sequence = 0;
async function once(kind: Outcome['kind']): Promise<Outcome> {
  const bridge = platform!.bridge;
  const started = performance.now();
  const at = Date.now();
  const reply =
    kind === 'submit'
      ? await call(`${bridge}/api/v1/forms/contact/submit`, { headers: { 'X-Svc-Site-Key': 'demo' }, json: { applicantName: `Load ${++sequence}`, email: 'load@example.com', company: 'Load Ltd', inquiryType: 'SALES', message: 'Under load' } })
      : kind === 'jobs'
        ? await call(`${bridge}/api/v1/insight/jobs`, { headers: { authorization: `Bearer ${admin}`, 'x-svc-tenant-id': 'demo' } })
        : await call(`${bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo' } });
  return { kind, status: reply.status, ms: performance.now() - started, retryAfter: reply.headers.get('retry-after'), body: (reply.body ?? {}) as Record<string, unknown>, at };
}

describe('PostgreSQL stopped and restarted under load', () => {
  it('answers 503 with Retry-After while it is down, recovers without a restart, and loses no acknowledged submission', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const client = async (kind: Outcome['kind']) => {
      while (running) outcomes.push(await once(kind));
    };
    const clients = [client('submit'), client('submit'), client('jobs'), client('delivery')];

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const killedAt = Date.now();
    await database.kill();
    await eventually(async () => (outcomes.some((o) => o.at > killedAt && o.kind === 'submit' && o.status === 503) && outcomes.some((o) => o.at > killedAt && o.kind === 'jobs' && o.status === 503) ? true : undefined), 20_000, 'refusals while the database is down');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const restartedAt = Date.now();
    await database.start();
    await eventually(async () => (outcomes.some((o) => o.at > restartedAt && o.kind === 'submit' && o.status === 201) && outcomes.some((o) => o.at > restartedAt && o.kind === 'jobs' && o.status === 200) ? true : undefined), 30_000, 'service after the restart');
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(clients);

    // What clients got: successes or 503s with Retry-After in each service's shape, nothing else, none slow.
    const unexpected = outcomes.filter((o) => ![200, 201, 503].includes(o.status)).map((o) => `${o.kind} ${o.status} ${JSON.stringify(o.body).slice(0, 200)}`);
    expect(unexpected).toEqual([]);
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.length).toBeGreaterThan(2);
    for (const o of refused) {
      expect({ kind: o.kind, retryAfter: o.retryAfter }).toEqual({ kind: o.kind, retryAfter: expect.stringMatching(/^\d+$/) });
      if (o.kind === 'jobs') expect(o.body).toMatchObject({ code: 503, data: null });
      else expect(o.body).toMatchObject({ status: 503, title: expect.any(String) });
    }
    expect(outcomes.filter((o) => o.ms > LIMIT_MS).map((o) => `${o.kind} ${o.status} ${Math.round(o.ms)} ms`)).toEqual([]);
    // Before the kill, everything that also finished before it succeeded.
    expect(outcomes.filter((o) => o.at + o.ms < killedAt && o.status !== 200 && o.status !== 201)).toEqual([]);

    // Nothing acknowledged was lost.
    const acknowledged = outcomes.filter((o) => o.kind === 'submit' && o.status === 201).map((o) => (o.body.data as { submissionId: string }).submissionId);
    expect(acknowledged.length).toBeGreaterThan(5);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const { rows } = await db.query('select id::text from cms.form_submission where id = any($1::uuid[])', [acknowledged]);
      expect(rows.map((r) => r.id).sort()).toEqual([...acknowledged].sort());
    } finally {
      await db.end();
    }

    // Transactions the outage cut short gave their connections back: the pools close at once.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await platform!.close();
    platform = undefined;
    expect(lines.filter((l) => l.includes('abandoned'))).toEqual([]);
  }, 90_000);
});
