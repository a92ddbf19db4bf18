import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ActionKind } from '@svc/insight/domain/action';
import { eventually } from './support/eventually.js';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { proposeAction } from './support/propose-action.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

/**
 * Approved actions are carried out once, by a worker, as a mutation through the router on
 * the target subgraph with the action id as its idempotency key; the outcome is recorded.
 * Actions are inserted as a job's report would propose them, then decided through the API.
 */

let platform: TestPlatform;
let site: FixtureSite;
let db: pg.Client;
let reviewer: string;
let admin: string;
let jobId: string;
let reviewerHook: Awaited<ReturnType<typeof startWebhookReceiver>>;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const actionUrl = (id: string) => `${platform.bridge}/api/v1/insight/actions/${id}`;

const propose = (kind: ActionKind, targetType: string, targetId: string, params: Record<string, unknown>) => proposeAction(db, jobId, kind, targetType, targetId, params);

async function outcome(id: string) {
  return eventually(async () => {
    const reply = await call(actionUrl(id), { headers: bearer(reviewer) });
    return ['EXECUTED', 'EXECUTION_FAILED'].includes(reply.body.data.status) ? reply.body.data : undefined;
  }, 30_000, `action ${id} to be executed`);
}

async function keyed(schema: string, key: string): Promise<number> {
  const { rows } = await db.query(`select count(*)::int as n from ${schema}.idempotent_change where key = $1`, [key]);
  return rows[0].n;
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.serve('/news', { content: { html: '<ul class="n"><li class="i"><a href="/a">A story</a></li></ul>' } });
  reviewerHook = await startWebhookReceiver();
  platform = await startTestPlatform({
    SVC_INSIGHT_SWEEP_MS: '1500',
    SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    SVC_INSIGHT_REVIEW_WEBHOOK_URL: reviewerHook.url,
    SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: 'reviewer-webhook-secret-0123456789',
  });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  reviewer = await platform.token({ subject: 'rev', roles: ['reviewer'], tenants: ['demo'], sites: ['demo'] });
  admin = await platform.token({ subject: 'root' });
  const analyst = await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['demo'], sites: [] });
  const job = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(analyst), json: { prompt: 'How is revenue doing?' } });
  jobId = job.body.data.jobId;
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
  await site?.close();
  await reviewerHook?.close();
});

describe('executing approved actions', () => {
  it('changes a budget once under 20 simultaneous approvals: one 200, nineteen 409', async () => {
    const id = await propose('BUDGET_CHANGE', 'Agent', 'marketing', { monthlyBudgetUsd: 42, hardLimitEnabled: true });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${actionUrl(id)}/approve`, { headers: bearer(reviewer), json: { reviewedBy: `reviewer-${i}` } })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    const done = await outcome(id);
    expect(done.status).toBe('EXECUTED');
    expect(done.outcome.budget).toMatchObject({ agentCode: 'marketing', allocatedUsd: 42, hardLimitEnabled: true });
    expect(await keyed('llm', id)).toBe(1);
    const budgets = await gql(platform.router, '{ budgets { agentCode allocatedUsd } }', {}, bearer(admin));
    expect(budgets.body.data.budgets).toContainEqual({ agentCode: 'marketing', allocatedUsd: 42 });
  });

  it('still makes exactly one change when the worker died between the target\'s commit and the outcome', async () => {
    const id = await propose('BUDGET_CHANGE', 'Agent', 'sales', { monthlyBudgetUsd: 7, hardLimitEnabled: false });
    expect((await call(`${actionUrl(id)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    await outcome(id);
    // The outcome write is lost: the action is APPROVED again, as a killed worker would leave it.
    await db.query(`update insight.action set status = 'APPROVED', outcome = null, executed_at = null, decided_at = now() - interval '1 minute' where id = $1`, [id]);
    const again = await outcome(id);
    expect(again.status).toBe('EXECUTED');
    expect(again.outcome.budget).toMatchObject({ agentCode: 'sales', allocatedUsd: 7 });
    expect(await keyed('llm', id)).toBe(1);
    const { rows } = await db.query(`select execution_attempts from insight.action where id = $1`, [id]);
    expect(rows[0].execution_attempts).toBe(2);
  });

  it('publishes a draft and edits one, acting for the approver with only the site it needs', async () => {
    const contents = await gql(platform.router, '{ contents(siteKey: "demo") { id slug latestVersion } }', {}, bearer(admin));
    const about = contents.body.data.contents.find((c: { slug: string }) => c.slug === 'about');
    const edit = await propose('CONTENT_DRAFT_UPDATE', 'Content', about.id, { siteKey: 'demo', input: { title: 'About us, shorter' } });
    expect((await call(`${actionUrl(edit)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    const edited = await outcome(edit);
    expect(edited.status).toBe('EXECUTED');
    const draftVersion = edited.outcome.content.latestVersion;
    expect(draftVersion).toBe(about.latestVersion + 1);
    const publish = await propose('CONTENT_PUBLISH', 'Content', about.id, { siteKey: 'demo', version: draftVersion });
    expect((await call(`${actionUrl(publish)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    const published = await outcome(publish);
    expect(published.outcome.content).toMatchObject({ slug: 'about', publishedVersion: draftVersion, status: 'PUBLISHED' });
    expect(await keyed('cms', publish)).toBe(1);
    const delivered = await call(`${platform.bridge}/api/v1/contents/about`, { headers: { 'x-svc-site-key': 'demo' } });
    expect(delivered.body.data).toMatchObject({ title: 'About us, shorter', version: draftVersion });
  });

  it('triggers a crawl and changes its selectors in the requester\'s tenant', async () => {
    const crawler = await platform.token({ subject: 'crawler', roles: ['crawler'], tenants: ['demo'], sites: [] });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(crawler), json: { jobName: 'news', targetUrl: site.url('/news'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.n > li.i', title: 'a' } } });
    expect(created.status).toBe(201);
    const crawlJobId = created.body.data.jobId;
    const trigger = await propose('CRAWL_TRIGGER', 'CrawlJob', crawlJobId, { tenantId: 'demo' });
    expect((await call(`${actionUrl(trigger)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    const triggered = await outcome(trigger);
    expect(triggered.status).toBe('EXECUTED');
    expect(triggered.outcome.execution).toMatchObject({ jobId: crawlJobId, executionId: expect.any(String) });
    const { rows } = await db.query('select count(*)::int as n from crawl.crawl_execution where job_id = $1', [crawlJobId]);
    expect(rows[0].n).toBe(1);
    const change = await propose('CRAWL_SELECTOR_CHANGE', 'CrawlJob', crawlJobId, { tenantId: 'demo', selectors: { listRow: 'ul.n > li', title: 'a' } });
    expect((await call(`${actionUrl(change)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    expect((await outcome(change)).outcome.job).toMatchObject({ jobId: crawlJobId, selectorVersion: 2, selectors: { listRow: 'ul.n > li' } });
  });

  it('records the target\'s refusal as EXECUTION_FAILED with its error', async () => {
    const id = await propose('BUDGET_CHANGE', 'Agent', 'marketing', { monthlyBudgetUsd: -5 });
    expect((await call(`${actionUrl(id)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
    const failed = await outcome(id);
    expect(failed.status).toBe('EXECUTION_FAILED');
    expect(failed.outcome).toMatchObject({ code: 'BAD_USER_INPUT', error: expect.stringContaining('monthlyBudgetUsd') });
  });

  it('refuses to approve an action whose parameters changed after it was proposed', async () => {
    const id = await propose('BUDGET_CHANGE', 'Agent', 'ops', { monthlyBudgetUsd: 10 });
    await db.query(`update insight.action set params = '{"monthlyBudgetUsd": 10000}' where id = $1`, [id]);
    const reply = await call(`${actionUrl(id)}/approve`, { headers: bearer(reviewer), json: {} });
    expect(reply.status).toBe(409);
    expect(reply.body.message).toContain('parameters changed');
  });

  it('sends a reviewer notice whose queue entry was lost (written with the report, found by the sweep)', async () => {
    const id = await propose('CRAWL_TRIGGER', 'CrawlJob', randomUUID(), {});
    await db.query(`insert into insight.review_notice (job_id, next_attempt_at) values ($1, now() - interval '10 seconds') on conflict (job_id) do update set status = 'PENDING', next_attempt_at = excluded.next_attempt_at`, [jobId]);
    const notice = await eventually(async () => reviewerHook.received.find((r) => r.body.jobId === jobId && r.body.actions.some((a: { actionId: string }) => a.actionId === id)), 15_000, 'the sweep to send the notice');
    expect(notice.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // The delivery is recorded once the receiver has answered: a moment after it got the notice.
    const row = await eventually(async () => {
      const { rows } = await db.query('select status, attempts from insight.review_notice where job_id = $1', [jobId]);
      return rows[0]?.status === 'PENDING' ? undefined : rows[0];
    }, 10_000, 'the delivery to be recorded');
    expect(row).toEqual({ status: 'DELIVERED', attempts: 1 });
  });
});
