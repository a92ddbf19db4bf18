import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';
import { PG_ADMIN_URL } from './support/services.js';

/**
 * Dependencies that go away: with Redis unreachable the platform answers at once, delivering
 * uncached and refusing purges with 503; with its database refusing connections every service
 * answers 503 with Retry-After in its own error shape, /ready says so, and once the database is
 * back the platform serves again without a restart. Logs report each outage briefly.
 */

let platform: TestPlatform;
let admin: string;
let agentKey: string;
const lines: string[] = [];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A port where nothing listens: Redis is "down". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  platform = await startTestPlatform({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` }, { logTo: sink });
  admin = await platform.token({ subject: 'root' });
  agentKey = (await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(TEST_MASTER_KEY), json: { agentCode: 'faults' } })).body.key;
});
afterAll(async () => {
  await platform?.close();
});

const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
};

describe('Redis unreachable', () => {
  it('delivers content uncached and answers models at once', async () => {
    for (let i = 0; i < 5; i++) {
      const { value, ms } = await timed(() => call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo' } }));
      expect(value.status).toBe(200);
      expect(ms).toBeLessThan(2000);
    }
    const chat = await timed(() => call(`${platform.bridge}/v1/chat/completions`, { headers: bearer(agentKey), json: { model: 'auto-route', messages: [{ role: 'user', content: 'Hello there' }] } }));
    expect(chat.value.status).toBe(200);
    expect(chat.ms).toBeLessThan(2000);
  });

  it('still rate-limits form submissions, per process', async () => {
    const submit = () => call(`${platform.bridge}/api/v1/forms/contact/submit`, { headers: { 'X-Svc-Site-Key': 'demo', 'X-Forwarded-For': '203.0.113.9' }, json: { applicantName: 'Ada', email: 'ada@example.com', inquiryType: 'SALES', message: 'Hi' } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await submit()).status);
    expect(statuses[0]).toBe(201);
    expect(statuses).toContain(429);
  });

  it('refuses a cache purge with 503 and Retry-After rather than pretend it happened', async () => {
    const purge = await call(`${platform.bridge}/api/v1/deploy/purge-cache`, { headers: bearer(admin), json: { siteKey: 'demo', contentSlug: 'welcome' } });
    expect(purge.status).toBe(503);
    expect(purge.headers.get('retry-after')).toBe('5');
  });

  it('reports the degraded cache in /ready and logs the outage once per service', async () => {
    const ready = await call(platform.urls.cms!.replace('/graphql', '/ready'));
    expect(ready.status).toBe(200);
    expect(ready.body.dependencies).toEqual({ postgres: 'up', redis: 'down (degraded)' });
    const redisLines = lines.filter((l) => /redis/i.test(l));
    expect(redisLines.length).toBeGreaterThan(0);
    expect(redisLines.length).toBeLessThanOrEqual(4);
  });
});

describe('the database refusing connections', () => {
  let adminDb: pg.Client;
  const database = () => new URL(platform.databaseUrl).pathname.slice(1);
  const cut = async (allow: boolean) => {
    await adminDb.query(`alter database ${pg.escapeIdentifier(database())} allow_connections ${allow}`);
    if (!allow) await adminDb.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database()]);
  };

  beforeAll(async () => {
    adminDb = new pg.Client({ connectionString: PG_ADMIN_URL });
    await adminDb.connect();
  });
  afterAll(async () => {
    await cut(true).catch(() => undefined);
    await adminDb?.end();
  });

  it('answers 503 with Retry-After in each service\'s shape, and serves again once it is back', async () => {
    await cut(false);
    try {
      const delivery = await timed(() => call(`${platform.bridge}/api/v1/contents/about`, { headers: { 'X-Svc-Site-Key': 'demo' } }));
      expect(delivery.value.status).toBe(503);
      expect(delivery.value.headers.get('retry-after')).toBe('5');
      expect(delivery.value.body).toMatchObject({ status: 503, title: expect.any(String) });
      expect(delivery.ms).toBeLessThan(8000);
      const jobs = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(admin), 'x-svc-tenant-id': 'demo' } });
      expect(jobs.status).toBe(503);
      expect(jobs.body).toMatchObject({ code: 503, data: null });
      const graph = await gql(platform.router, '{ contents(siteKey: "demo") { id } }', {}, bearer(admin));
      expect(graph.body.errors![0]!.extensions).toMatchObject({ code: 'UNAVAILABLE' });
      const ready = await call(platform.urls.cms!.replace('/graphql', '/ready'));
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('5');
    } finally {
      await cut(true);
    }
    await eventually(async () => ((await call(`${platform.bridge}/api/v1/contents/about`, { headers: { 'X-Svc-Site-Key': 'demo' } })).status === 200 ? true : undefined), 20_000, 'delivery to recover');
    expect((await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(admin), 'x-svc-tenant-id': 'demo' } })).status).toBe(200);
    expect(lines.filter((l) => l.includes('unexpected error in operation')).length).toBe(0);
  });
});
