import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ActionKind } from '@svc/insight/domain/action';
import { eventually } from './support/eventually.js';
import { proposeAction } from './support/propose-action.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Tenants and sites hold in the analysis service, tried as a hostile user would: tokens of
 * tenant t2 against the objects of tenant t1 (and of site `othersite` against site `demo`).
 */

let platform: TestPlatform;
let db: pg.Client;
const tokens: Record<string, string> = {};
let t1Job: string;

const bearer = (token: string, tenant?: string) => ({ authorization: `Bearer ${token}`, ...(tenant ? { 'x-svc-tenant-id': tenant } : {}) });
const jobs = () => `${platform.bridge}/api/v1/insight/jobs`;
const actions = () => `${platform.bridge}/api/v1/insight/actions`;

const propose = (jobId: string, kind: ActionKind, targetType: string, targetId: string, params: Record<string, unknown>) => proposeAction(db, jobId, kind, targetType, targetId, params);

async function ended(jobId: string, token: string, tenant?: string) {
  return eventually(async () => {
    const reply = await call(`${jobs()}/${jobId}`, { headers: bearer(token, tenant) });
    return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(reply.body.data?.status) ? reply.body.data : undefined;
  }, 60_000, `job ${jobId} to end`);
}

const day = (offset: number) => {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  return new Date(d.getTime() - offset * 86_400_000).toISOString();
};

beforeAll(async () => {
  platform = await startTestPlatform({ SVC_INSIGHT_SWEEP_MS: '1000' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  tokens.t1Analyst = await platform.token({ subject: 'ana1', roles: ['analyst'], tenants: ['t1'], sites: ['demo'] });
  tokens.t1Reviewer = await platform.token({ subject: 'rev1', roles: ['reviewer'], tenants: ['t1'], sites: ['demo'] });
  tokens.t1OtherSiteReviewer = await platform.token({ subject: 'rev1b', roles: ['reviewer'], tenants: ['t1'], sites: ['othersite'] });
  tokens.t2Reviewer = await platform.token({ subject: 'rev2', roles: ['reviewer'], tenants: ['t2'], sites: ['demo'] });
  tokens.t2AnalystReviewer = await platform.token({ subject: 'ar2', roles: ['analyst', 'reviewer'], tenants: ['t2'], sites: ['demo'] });
  tokens.multi = await platform.token({ subject: 'multi', roles: ['analyst', 'reviewer'], tenants: ['t1', 't2'], sites: ['demo'] });
  tokens.admin = await platform.token({ subject: 'root' });
  const created = await call(jobs(), { headers: bearer(tokens.t1Analyst), json: { prompt: 'How is revenue doing?' } });
  expect(created.status).toBe(202);
  t1Job = created.body.data.jobId;
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('jobs belong to their tenant', () => {
  it('names the tenant a token with several tenants must choose, and refuses one it does not hold', async () => {
    const missing = await call(jobs(), { headers: bearer(tokens.multi) });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('X-Svc-Tenant-Id');
    const foreign = await call(jobs(), { headers: bearer(tokens.multi, 't3') });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('"t3"');
    expect((await call(jobs(), { headers: bearer(tokens.multi, 't1') })).body.data.jobs.map((j: { jobId: string }) => j.jobId)).toContain(t1Job);
  });

  it('hides a job from another tenant\'s reviewer: read, list, stream and cancel are 404 or empty, and nothing changes', async () => {
    const t2 = tokens.t2AnalystReviewer;
    expect((await call(`${jobs()}/${t1Job}`, { headers: bearer(t2) })).status).toBe(404);
    expect((await call(jobs(), { headers: bearer(t2) })).body.data.jobs).toEqual([]);
    expect((await call(`${jobs()}/${t1Job}/events`, { headers: { ...bearer(t2), accept: 'text/event-stream' } })).status).toBe(404);
    expect((await call(`${jobs()}/${t1Job}/cancel`, { method: 'POST', headers: bearer(t2), json: {} })).status).toBe(404);
    const viaGraph = await gql(platform.router, 'query($id: ID!) { insightJob(jobId: $id) { prompt } }', { id: t1Job }, bearer(t2));
    expect(viaGraph.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    // The multi-tenant token naming t2 sees nothing of t1 either.
    expect((await call(`${jobs()}/${t1Job}`, { headers: bearer(tokens.multi, 't2') })).status).toBe(404);
    // The subgraph's own stream route answers 404 with status 404, not 200.
    const direct = await fetch(`${platform.urls.insight!.replace(/\/graphql$/, '')}/events/jobs/${t1Job}`, { headers: bearer(t2) });
    expect(direct.status).toBe(404);
    const job = await ended(t1Job, tokens.t1Analyst);
    expect(job.status).toBe('COMPLETED');
  });

  it('acts for the tenant it was created in: the default admin\'s job reads the knowledge base and the catalog of that tenant', async () => {
    const created = await call(jobs(), { headers: bearer(tokens.admin, 'demo'), json: { prompt: 'Why did revenue drop last week?' } });
    expect(created.status).toBe(202);
    const job = await ended(created.body.data.jobId, tokens.admin, 'demo');
    expect(job.status).toBe('COMPLETED');
    const search = job.steps.find((s: { kind: string; toolName: string }) => s.kind === 'TOOL_RESULT' && s.toolName === 'search_knowledge');
    expect(search.resultSummary).not.toMatch(/X-Svc-Tenant-Id|failed/);
    expect(job.report.judgment).toMatch(/^revenue /);
  });

  it('relays ?lastEventId= like the Last-Event-ID header (EventSource cannot set headers)', async () => {
    const reply = await fetch(`${jobs()}/${t1Job}/events?lastEventId=2`, { headers: { ...bearer(tokens.t1Analyst), accept: 'text/event-stream' } });
    expect(reply.status).toBe(200);
    const ids = [...(await reply.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(3);
  });
});

describe('decisions hold the tenant and the site', () => {
  it('refuses another tenant\'s reviewer (404, nothing executed) and records the authenticated subject', async () => {
    const crawler = await platform.token({ subject: 'crawler', roles: ['crawler'], tenants: ['t1'] });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: bearer(crawler),
      json: { jobName: 'news', targetUrl: 'https://example.com/news', robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'li', title: 'a' } },
    });
    expect(created.status).toBe(201);
    const trigger = await propose(t1Job, 'CRAWL_TRIGGER', 'CrawlJob', created.body.data.jobId, { tenantId: 't1' });
    const cross = await call(`${actions()}/${trigger}/approve`, { headers: bearer(tokens.t2Reviewer), json: { reviewedBy: 'someone-else' } });
    expect(cross.status).toBe(404);
    expect((await call(`${actions()}/${trigger}`, { headers: bearer(tokens.t2Reviewer) })).status).toBe(404);
    expect((await call(actions(), { headers: bearer(tokens.t2Reviewer) })).body.data).toEqual([]);
    expect((await db.query('select status from insight.action where id = $1', [trigger])).rows[0].status).toBe('PROPOSED');
    expect((await db.query('select count(*)::int as n from crawl.crawl_execution where job_id = $1', [created.body.data.jobId])).rows[0].n).toBe(0);

    const own = await call(`${actions()}/${trigger}/reject`, { headers: bearer(tokens.t1Reviewer), json: { reviewedBy: 'someone-else', comment: 'not now' } });
    expect(own.status).toBe(200);
    expect(own.body.data.decision).toMatchObject({ reviewedBy: 'rev1', reviewerSubject: 'rev1', comment: 'not now' });
  });

  it('refuses a reviewer of the tenant without the content\'s site (403), and the draft stays unpublished', async () => {
    const contents = await gql(platform.router, '{ contents(siteKey: "demo") { id slug latestVersion publishedVersion } }', {}, bearer(tokens.admin));
    const about = contents.body.data.contents.find((c: { slug: string }) => c.slug === 'about');
    const publish = await propose(t1Job, 'CONTENT_PUBLISH', 'Content', about.id, { siteKey: 'demo', version: about.latestVersion });
    const refused = await call(`${actions()}/${publish}/approve`, { headers: bearer(tokens.t1OtherSiteReviewer), json: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('"demo"');
    expect((await db.query('select status from insight.action where id = $1', [publish])).rows[0].status).toBe('PROPOSED');
  });

  it('executes with the reviewer\'s grants only: grants recorded without the action\'s tenant fail the execution', async () => {
    const budget = await propose(t1Job, 'BUDGET_CHANGE', 'Agent', 'marketing', { monthlyBudgetUsd: 12, hardLimitEnabled: false });
    const crawl = await propose(t1Job, 'CRAWL_TRIGGER', 'CrawlJob', randomUUID(), { tenantId: 't1' });
    // A decision recorded as if by a reviewer of t2 only (as a row written before this fix could be).
    await db.query(
      `update insight.action set status = 'APPROVED', reviewed_by = 'rev2', reviewer_subject = 'rev2', reviewer_grants = '{"tenants":["t2"],"sites":["demo"]}', decided_at = now() - interval '1 minute' where id = $1`,
      [crawl],
    );
    expect((await call(`${actions()}/${budget}/approve`, { headers: bearer(tokens.t1Reviewer), json: {} })).status).toBe(200);
    const failed = await eventually(async () => {
      const reply = await call(`${actions()}/${crawl}`, { headers: bearer(tokens.t1Reviewer) });
      return reply.body.data.status === 'EXECUTION_FAILED' ? reply.body.data : undefined;
    }, 30_000, 'the sweep to refuse the execution');
    expect(failed.outcome).toMatchObject({ code: 'FORBIDDEN', error: expect.stringContaining('tenant "t1"') });
  });
});

describe('metrics belong to their tenant', () => {
  const ingest = (token: string, series: unknown[]) => call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(token), json: { series } });

  it('keeps one tenant\'s series, values and catalog from another, and deletes only the own', async () => {
    const t1Writer = await platform.token({ subject: 'w1', roles: ['analyst'], tenants: ['t1'] });
    const t2Writer = await platform.token({ subject: 'w2', roles: ['analyst'], tenants: ['t2'] });
    expect((await ingest(t1Writer, [{ name: 'orders', points: [{ timestamp: day(1), value: 424242 }] }])).status).toBe(200);
    expect((await ingest(t2Writer, [{ name: 'orders', points: [{ timestamp: day(1), value: 0 }] }])).status).toBe(200);
    const read = async (token: string) => (await gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { points { value } } }', { q: { name: 'orders', from: day(2), to: day(0) } }, bearer(token))).body.data.metricSeries;
    expect(await read(t1Writer)).toEqual([{ points: [{ value: 424242 }] }]);
    expect(await read(t2Writer)).toEqual([{ points: [{ value: 0 }] }]);
    const catalog = await gql(platform.router, '{ metrics { name } }', {}, bearer(t2Writer));
    expect(catalog.body.data.metrics.map((m: { name: string }) => m.name)).not.toContain('revenue');

    const removed = await call(`${platform.bridge}/api/v1/insight/metrics/orders`, { method: 'DELETE', headers: bearer(t2Writer) });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ series: 1, points: 1 });
    expect((await call(`${platform.bridge}/api/v1/insight/metrics/orders`, { method: 'DELETE', headers: bearer(t2Writer) })).status).toBe(404);
    expect(await read(t1Writer)).toEqual([{ points: [{ value: 424242 }] }]);
    const reviewer = await call(`${platform.bridge}/api/v1/insight/metrics/orders`, { method: 'DELETE', headers: bearer(tokens.t1Reviewer) });
    expect(reviewer.status).toBe(403);
  });

  it('is not steered by another tenant\'s series: the demo tenant\'s revenue question stays on its own revenue', async () => {
    const t1Writer = await platform.token({ subject: 'w1', roles: ['analyst'], tenants: ['t1'] });
    const points = Array.from({ length: 60 }, (_, i) => ({ timestamp: day(60 - i), value: 5 }));
    expect((await ingest(t1Writer, [{ name: 'aaa.revenue', points }])).status).toBe(200);
    const demo = await platform.token({ subject: 'dana', roles: ['analyst'], tenants: ['demo'] });
    const created = await call(jobs(), { headers: bearer(demo), json: { prompt: 'Why did revenue drop last week?' } });
    const job = await ended(created.body.data.jobId, demo);
    expect(job.status).toBe('COMPLETED');
    const plan = job.steps.find((s: { kind: string }) => s.kind === 'PLAN');
    expect(plan.detail).toMatch(/^Subject: revenue\b/);
    expect(JSON.stringify(job.report)).not.toContain('aaa.revenue');
  });

  it('refuses numbers that cannot be summed (422 naming the value), and a series no model can fit fails its step, not the job', async () => {
    const t3 = await platform.token({ subject: 'w3', roles: ['analyst'], tenants: ['t3'] });
    const huge = await ingest(t3, [{ name: 'revenue', points: [{ timestamp: day(1), value: 1.5e308 }] }]);
    expect(huge.status).toBe(422);
    expect(huge.body.errors[0]).toMatchObject({ pointer: '/series/0/points/0/value', detail: expect.stringContaining('1.5e+308') });
    // Such values stored before the bound (written straight to the table) must not break an analysis.
    expect((await ingest(t3, [{ name: 'revenue', points: Array.from({ length: 90 }, (_, i) => ({ timestamp: day(90 - i), value: 100 + (i % 7) })) }])).status).toBe(200);
    await db.query(`update insight.metric_point set value = 1.5e308 where tenant_id = 't3' and series_id in (select id from insight.metric_series where tenant_id = 't3' and name = 'revenue')`);
    const created = await call(jobs(), { headers: bearer(t3), json: { prompt: 'Why did revenue drop last week?' } });
    expect(created.status).toBe(202);
    const job = await ended(created.body.data.jobId, t3);
    expect(job.status).toBe('COMPLETED');
    const failedSteps = job.steps.filter((s: { kind: string; resultSummary: string | null }) => s.kind === 'TOOL_RESULT' && /failed|not a finite|Could not fit|could not be read/.test(s.resultSummary ?? ''));
    expect(job.report.judgment).not.toMatch(/NaN|∞|Infinity/);
    expect(failedSteps.length).toBeGreaterThan(0);
  });
});

describe('numbers and messages', () => {
  it('answers an overflowing literal or variable with 400 through the router, without terminal codes', async () => {
    const literal = await gql(platform.router, '{ metricSeries(query: {name: "revenue", from: 1e309}) { name } }', {}, bearer(tokens.t1Analyst));
    expect(literal.status).toBe(400);
    expect(literal.body.errors![0]!.message).toContain('1e309');
    const variable = await call(`${platform.router}`, { headers: { ...bearer(tokens.t1Analyst), 'content-type': 'application/json' }, body: '{"query":"query($q: JSONObject!) { metricSeries(query: $q) { name } }","variables":{"q":{"name":"revenue","from":1e309}}}' });
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].message).toMatch(/out of range/);
  });

  it('carries no terminal escape codes in any error message of any service', async () => {
    const bad = [
      call(platform.router, { headers: { ...bearer(tokens.t1Analyst), 'content-type': 'application/json' }, body: '{"query":"{ metricSeries(query: {name: \\"x\\", from: 1e999}) { name } }"}' }),
      call(platform.router, { headers: { ...bearer(tokens.t1Analyst), 'content-type': 'application/json' }, body: '{"query":"{ nope }"}' }),
      call(platform.router, { headers: { ...bearer(tokens.t1Analyst), 'content-type': 'application/json' }, body: '{"query":"{ metricSeries(query: 5) { name } }"}' }),
      call(`${platform.bridge}/api/v1/insight/metrics`, { headers: { ...bearer(tokens.t1Analyst), 'content-type': 'application/json' }, body: '{"series":[{"name":"x","points":[{"timestamp":"\\u001b[31m","value":1e999}]}]}' }),
      call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(tokens.admin, 't1'), json: { jobName: '\u001b[31mred', targetUrl: 'ftp://x' } }),
      call(`${platform.bridge}/api/v1/contents/%1b%5b31m`, { headers: { 'x-svc-site-key': 'demo' } }),
      call(`${platform.bridge}/v1/chat/completions`, { headers: bearer('sk-svc-nope'), json: { model: '\u001b[31m' } }),
      ...Object.values(platform.urls).filter((u) => u.endsWith('/graphql')).map((u) => call(u, { headers: { ...bearer(tokens.admin, 't1'), 'content-type': 'application/json' }, body: '{"query":"{ a(b: 1e999) }"}' })),
    ];
    // A message may quote the caller's input escaped (\\u001b as text); it never holds the character itself.
    const texts = (value: unknown): string[] => (typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(texts) : []);
    for (const reply of await Promise.all(bad)) {
      expect(reply.status).toBeLessThan(500);
      expect(texts(reply.body).some((t) => /error|invalid|not|must|cannot|required|unknown/i.test(t))).toBe(true);
      expect(texts(reply.body).filter((t) => t.includes('\u001b'))).toEqual([]);
    }
  });
});
