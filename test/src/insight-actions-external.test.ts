import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ActionKind } from '@svc/insight/domain/action';
import { eventually } from './support/eventually.js';
import { proposeAction } from './support/propose-action.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

/**
 * CONTENT_RESTORE restores the version before a fall once (cms's restoreContentVersion with the
 * action id as its idempotency key); an approved EXTERNAL action is handed off once, signed, to
 * the operator webhook its tenant's admin set (through the SSRF guard), and dead-lettered when
 * the receiver stays down. Actions are inserted as a job's report would propose them.
 */

const SECRET = 'operator-webhook-secret-0123456789';
const MAX_ATTEMPTS = 3;

let platform: TestPlatform;
let db: pg.Client;
let reviewer: string;
let tenantAdmin: string;
let admin: string;
let jobId: string;
let operator: Awaited<ReturnType<typeof startWebhookReceiver>>;
let downOperator: Awaited<ReturnType<typeof startWebhookReceiver>>;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const actionUrl = (id: string) => `${platform.bridge}/api/v1/insight/actions/${id}`;
const settingsUrl = () => `${platform.bridge}/api/v1/insight/settings`;

const propose = (kind: ActionKind, targetType: string, targetId: string, params: Record<string, unknown>) => proposeAction(db, jobId, kind, targetType, targetId, params);

async function settled(id: string) {
  return eventually(async () => {
    const reply = await call(actionUrl(id), { headers: bearer(reviewer) });
    return ['EXECUTED', 'EXECUTION_FAILED'].includes(reply.body.data.status) ? reply.body.data : undefined;
  }, 30_000, `action ${id} to settle`);
}

const approve = async (id: string) => expect((await call(`${actionUrl(id)}/approve`, { headers: bearer(reviewer), json: {} })).status).toBe(200);
const putSettings = (json: unknown, token = tenantAdmin) => call(settingsUrl(), { method: 'PUT', headers: bearer(token), json });
const external = { lever: 'google-ads.search.daily-budget', change: { metric: 'ad_spend', labels: { channel: 'search' }, changePercent: 20 }, summary: 'Raise search ad spend by 20 %' };

beforeAll(async () => {
  operator = await startWebhookReceiver();
  downOperator = await startWebhookReceiver(Array(20).fill(503));
  platform = await startTestPlatform({
    SVC_INSIGHT_SWEEP_MS: '1500',
    SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    SVC_INSIGHT_OPERATOR_WEBHOOK_RETRY_MS: '50',
    SVC_INSIGHT_OPERATOR_WEBHOOK_ATTEMPTS: String(MAX_ATTEMPTS),
  });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  reviewer = await platform.token({ subject: 'rev', roles: ['reviewer'], tenants: ['demo'], sites: ['demo'] });
  tenantAdmin = await platform.token({ subject: 'demo-admin', roles: ['admin'], tenants: ['demo'], sites: [] });
  admin = await platform.token({ subject: 'root' });
  const analyst = await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['demo'], sites: [] });
  const job = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(analyst), json: { prompt: 'How is revenue doing?' } });
  jobId = job.body.data.jobId;
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
  await operator?.close();
  await downOperator?.close();
});

describe('proposals', () => {
  it('show how the impact was estimated, over which days, in which unit, and whether and how the change can be undone', async () => {
    const id = await propose('EXTERNAL', 'External', external.lever, external);
    const impact = { metric: 'revenue', horizon: 30, p10: 900, p50: 1200, p90: 1500, method: 'bootstrap over the elasticity and the residuals', horizonDays: 30, unit: 'USD' };
    await db.query(`update insight.action set expected_impact = $2, undo = 'Ask the ads team to lower the budget again' where id = $1`, [id, JSON.stringify(impact)]);
    const rest = (await call(actionUrl(id), { headers: bearer(reviewer) })).body.data;
    expect(rest).toMatchObject({ expectedImpact: impact, undoable: false, undo: 'Ask the ads team to lower the budget again', targetType: 'External' });
    const graph = await gql(platform.router, 'query($id: ID!) { actionProposal(actionId: $id) { undoable undo expectedImpact { method horizonDays unit p50 } target { __typename ... on ExternalLever { lever } } } }', { id }, bearer(reviewer));
    expect(graph.body.data.actionProposal).toEqual({ undoable: false, undo: 'Ask the ads team to lower the budget again', expectedImpact: { method: impact.method, horizonDays: 30, unit: 'USD', p50: 1200 }, target: { __typename: 'ExternalLever', lever: external.lever } });
    // An older proposal without them still reads, with its kind's reversibility.
    const old = await propose('CRAWL_TRIGGER', 'CrawlJob', randomUUID(), {});
    await db.query(`update insight.action set expected_impact = '{"metric": "sessions", "horizon": 7, "p10": 1, "p50": 2, "p90": 3}' where id = $1`, [old]);
    const plain = (await call(actionUrl(old), { headers: bearer(reviewer) })).body.data;
    expect(plain).toMatchObject({ undoable: false, undo: expect.stringContaining('cannot be undone'), expectedImpact: { metric: 'sessions', method: null, horizonDays: null, unit: null } });
  });
});

describe('CONTENT_RESTORE', () => {
  it('restores the version before a fall once: it is live in delivery, and a retry restores nothing twice', async () => {
    const cms = (query: string, variables: Record<string, unknown>) => gql(platform.router, query, variables, bearer(admin));
    const contents = await cms('{ contents(siteKey: "demo") { id slug publishedVersion } }', {});
    const pricing = contents.body.data.contents.find((c: { slug: string; publishedVersion: number | null }) => c.publishedVersion !== null);
    const good = pricing.publishedVersion as number;
    const before = (await call(`${platform.bridge}/api/v1/contents/${pricing.slug}`, { headers: { 'x-svc-site-key': 'demo' } })).body.data;
    // The version published on the day of the fall.
    const edited = await cms('mutation($id: ID!) { updateContentDraft(id: $id, input: { title: "A worse page" }) { latestVersion } }', { id: pricing.id });
    const bad = edited.body.data.updateContentDraft.latestVersion;
    await cms('mutation($id: ID!, $v: Int) { publishContent(id: $id, version: $v) { publishedVersion } }', { id: pricing.id, v: bad });

    const id = await propose('CONTENT_RESTORE', 'Content', pricing.id, { siteKey: 'demo', version: good });
    const listed = (await call(actionUrl(id), { headers: bearer(reviewer) })).body.data;
    expect(listed).toMatchObject({ kind: 'CONTENT_RESTORE', undoable: true, undo: expect.stringContaining('publishContent') });
    await approve(id);
    const done = await settled(id);
    expect(done.status).toBe('EXECUTED');
    expect(done.outcome).toMatchObject({ restoredFrom: good, content: { id: pricing.id, publishedVersion: bad + 1, latestVersion: bad + 1, status: 'PUBLISHED' } });
    const delivered = await call(`${platform.bridge}/api/v1/contents/${pricing.slug}`, { headers: { 'x-svc-site-key': 'demo' } });
    expect(delivered.body.data).toMatchObject({ title: before.title, version: bad + 1 });

    // The outcome write is lost, as a killed worker would leave it: the retry changes nothing.
    await db.query(`update insight.action set status = 'APPROVED', outcome = null, executed_at = null, decided_at = now() - interval '1 minute' where id = $1`, [id]);
    const again = await settled(id);
    expect(again.outcome.content).toMatchObject({ latestVersion: bad + 1, publishedVersion: bad + 1 });
    const { rows } = await db.query('select count(*)::int as n from cms.idempotent_change where key = $1', [id]);
    expect(rows[0].n).toBe(1);
    const versions = await cms('query($id: ID!) { content(id: $id) { latestVersion } }', { id: pricing.id });
    expect(versions.body.data.content.latestVersion).toBe(bad + 1);
  });
});

describe('EXTERNAL actions and the operator webhook', () => {
  it('ends EXECUTION_FAILED naming the missing setting when the tenant has no operator webhook', async () => {
    const id = await propose('EXTERNAL', 'External', external.lever, external);
    await approve(id);
    const failed = await settled(id);
    expect(failed.status).toBe('EXECUTION_FAILED');
    expect(failed.decision).toMatchObject({ reviewerSubject: 'rev' });
    expect(failed.outcome).toMatchObject({ code: 'NO_OPERATOR_WEBHOOK', error: expect.stringContaining('operatorWebhookUrl') });
  });

  it('refuses operator webhook URLs the SSRF guard does not allow, naming the field', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.1.2.3/hook', 'ftp://ops.example.com/hook']) {
      const reply = await putSettings({ operatorWebhookUrl: url, operatorWebhookSecret: SECRET });
      expect(reply.status).toBe(422);
      expect(reply.body.errors[0]).toMatchObject({ pointer: '/operatorWebhookUrl' });
    }
    const { rows } = await db.query(`select count(*)::int as n from insight.tenant_settings`);
    expect(rows[0].n).toBe(0);
    const graph = await gql(platform.router, 'mutation($i: JSONObject!) { setInsightSettings(input: $i) { tenantId } }', { i: { operatorWebhookUrl: 'http://169.254.169.254/', operatorWebhookSecret: SECRET } }, bearer(tenantAdmin));
    expect(graph.body.errors?.[0]?.message).toContain('operatorWebhookUrl');
  });

  it('lets only an admin of the tenant set it, requires a secret, and never shows the secret', async () => {
    expect((await putSettings({ operatorWebhookUrl: operator.url, operatorWebhookSecret: SECRET }, reviewer)).status).toBe(403);
    const noSecret = await putSettings({ operatorWebhookUrl: operator.url });
    expect(noSecret.status).toBe(422);
    expect(noSecret.body.errors[0]).toMatchObject({ pointer: '/operatorWebhookSecret' });
    const set = await putSettings({ operatorWebhookUrl: operator.url, operatorWebhookSecret: SECRET });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ tenantId: 'demo', operatorWebhookUrl: operator.url, operatorWebhookSecretSet: true, updatedBy: 'demo-admin' });
    const got = await call(settingsUrl(), { headers: bearer(tenantAdmin) });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ operatorWebhookUrl: operator.url, operatorWebhookSecretSet: true });
    const graph = await gql(platform.router, '{ insightSettings { tenantId operatorWebhookUrl operatorWebhookSecretSet } }', {}, bearer(tenantAdmin));
    expect(graph.body.data.insightSettings).toEqual({ tenantId: 'demo', operatorWebhookUrl: operator.url, operatorWebhookSecretSet: true });
    for (const body of [JSON.stringify(set.body), JSON.stringify(got.body), JSON.stringify(graph.body)]) expect(body).not.toContain(SECRET);
    expect((await call(settingsUrl(), { headers: bearer(reviewer) })).status).toBe(403);
  });

  it('delivers an approved EXTERNAL action once, signed, and says it was handed off', async () => {
    await putSettings({ operatorWebhookUrl: operator.url, operatorWebhookSecret: SECRET });
    const id = await propose('EXTERNAL', 'External', external.lever, external);
    await approve(id);
    const done = await settled(id);
    expect(done.status).toBe('EXECUTED');
    expect(done.outcome).toMatchObject({ handedOffTo: new URL(operator.url).host, deliveryStatus: 'DELIVERED', deliveryAttempts: 1 });
    expect(done).toMatchObject({ targetType: 'External', undoable: false });
    const got = operator.received.filter((r) => r.body.actionId === id);
    expect(got).toHaveLength(1);
    const hit = got[0]!;
    expect(hit.body).toMatchObject({ event: 'action.external', tenantId: 'demo', lever: external.lever, change: external.change, summary: external.summary, approvedBy: 'rev' });
    expect(hit.headers['x-svc-delivery']).toBe(id);
    const signed = createHmac('sha256', SECRET).update(`${hit.headers['x-svc-timestamp']}.${JSON.stringify(hit.body)}`).digest('hex');
    expect(hit.headers['x-svc-signature']).toBe(`sha256=${signed}`);
    // The sweep does not hand it off again.
    await new Promise((r) => setTimeout(r, 3500));
    expect(operator.received.filter((r) => r.body.actionId === id)).toHaveLength(1);
    const { rows } = await db.query('select status, attempts from insight.external_delivery where action_id = $1', [id]);
    expect(rows).toEqual([{ status: 'DELIVERED', attempts: 1 }]);
  });

  it('dead-letters the delivery after the attempts when the receiver stays down', async () => {
    await putSettings({ operatorWebhookUrl: downOperator.url });
    const id = await propose('EXTERNAL', 'External', 'shop.price.premium-plan', { lever: 'shop.price.premium-plan', change: { metric: 'price', labels: { plan: 'premium' }, changePercent: -5 }, summary: 'Lower the premium price by 5 %' });
    await approve(id);
    const failed = await settled(id);
    expect(failed.status).toBe('EXECUTION_FAILED');
    expect(failed.outcome).toMatchObject({ handedOffTo: new URL(downOperator.url).host, deliveryStatus: 'FAILED', deliveryAttempts: MAX_ATTEMPTS, error: expect.stringContaining('503') });
    const hits = downOperator.received.filter((r) => r.body.actionId === id);
    expect(hits).toHaveLength(MAX_ATTEMPTS);
    // Doubling backoff: the second gap is at least the 2 × 50 ms the settings give.
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(100);
    const { rows } = await db.query('select status, attempts from insight.external_delivery where action_id = $1', [id]);
    expect(rows).toEqual([{ status: 'FAILED', attempts: MAX_ATTEMPTS }]);
  });

  it('hands nothing off when the parameters are bad, and says which', async () => {
    const id = await propose('EXTERNAL', 'External', 'shop.price', { lever: 'shop.price', change: { metric: 'price', changePercent: 'a lot' } });
    await approve(id);
    const failed = await settled(id);
    expect(failed.status).toBe('EXECUTION_FAILED');
    expect(failed.outcome).toMatchObject({ code: 'BAD_USER_INPUT', error: expect.stringMatching(/change\.changePercent.*summary/) });
    expect([...operator.received, ...downOperator.received].filter((r) => r.body.actionId === id)).toEqual([]);
    const { rows } = await db.query('select count(*)::int as n from insight.external_delivery where action_id = $1', [id]);
    expect(rows[0].n).toBe(0);
  });
});
