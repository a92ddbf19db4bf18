import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import pg from 'pg';
import { seededRandom } from '@svc/kit/random';
import { generateDaily, generateLeaves } from '@svc/insight/engine/synthetic-series';
import { eventually } from './support/eventually.js';
import { writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { bursts, DAY, engineFinding, isoDay, lastMonday, reviewerClient, tenantClient, today } from './support/insight-tenant.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

/**
 * Planted decisions through the running platform: a tenant the demo never had ingests series
 * with a known truth, a person asks, and the report's proposals must follow from it, each with
 * its parameters, the finding it follows from and its expected impact; approved, each is carried
 * out once. (a) a fall on the day a content version went live → restore the version before it;
 * (b) a declared money driver cut → an EXTERNAL hand-off to the operator webhook, delivered once,
 * signed, and dead-lettered when the receiver stays down; (c) a what-if whose planted elasticity
 * the stated interval covers, with its cost, return per unit and verdict; (d) a model budget that
 * will run out → BUDGET_CHANGE; (e) findings with no lever → no proposal, and the report says why;
 * (f) a fall on the day a crawl job healed its selectors and a run failed → change them back
 * (executed) and run it again.
 */

const SITE = 'decide-shop';
const SECRET = 'operator-webhook-secret-0123456789';
const MAX_ATTEMPTS = 3;
const HISTORY = 150;

let platform: TestPlatform;
let db: pg.Client;
let analyst: string;
let admin: string;
let tenantAdmin: string;
let operator: Awaited<ReturnType<typeof startWebhookReceiver>>;
let downOperator: Awaited<ReturnType<typeof startWebhookReceiver>>;
let tenant: ReturnType<typeof tenantClient>;
let reviewer: ReturnType<typeof reviewerClient>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type Action = { actionId: string; kind: string; targetType: string; targetId: string; params: any; expectedImpact: any; finding: { index: number; title: string; detail: string } | null; undoable: boolean; undo: string; status: string };

/** Each proposal's finding is one of its report's, word for word. */
function cited(job: { report: { findings: { title: string; detail: string }[] } }, action: Action) {
  expect(action.finding).not.toBeNull();
  expect(job.report.findings[action.finding!.index]).toEqual({ title: action.finding!.title, detail: action.finding!.detail, evidence: expect.any(Array) });
  const i = action.expectedImpact;
  if (i) {
    expect(i.p10).toBeLessThanOrEqual(i.p50);
    expect(i.p50).toBeLessThanOrEqual(i.p90);
    expect(i).toMatchObject({ method: expect.any(String), horizonDays: expect.any(Number), unit: expect.any(String) });
  }
}

// (a) quote requests fall from Wednesday of last week, the day version 2 of the "offers" page went live.
const FALL = lastMonday + 2 * DAY;
// (b) partner fees (a lever the platform does not own) are cut from Monday of last week.
const CUT = lastMonday;
// (f) listings fall from Thursday of last week, when a crawl job healed its selectors and a run failed.
const HEAL = lastMonday + 3 * DAY;
// (c) a p10–p90 interval covers a planted truth four times in five: the noise's seed is fixed.
const ELASTICITY = 0.45;
const promo = bursts(800, 200, 41, () => 1, 21);
const cents = (v: number) => Math.round(v * 100) / 100;

beforeAll(async () => {
  operator = await startWebhookReceiver();
  downOperator = await startWebhookReceiver(Array(20).fill(503));
  platform = await startTestPlatform({
    // The offline model, priced, so the agent's own thinking spends its budget.
    SVCLLM_CONFIG: await writeGatewayConfig({
      providers: [{ name: 'offline', kind: 'local' }],
      models: [{ name: 'priced-local', provider: 'offline', model: 'svc-local', inputPerMTok: 5, outputPerMTok: 15 }],
      aliases: { 'fast-track': ['priced-local'], 'deep-reasoning': ['priced-local'] },
    }),
    SVC_INSIGHT_SWEEP_MS: '1500',
    SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    SVC_INSIGHT_OPERATOR_WEBHOOK_RETRY_MS: '50',
    SVC_INSIGHT_OPERATOR_WEBHOOK_ATTEMPTS: String(MAX_ATTEMPTS),
  });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  admin = await platform.token({ subject: 'root' });
  analyst = await platform.token({ subject: 'dana', roles: ['analyst', 'editor'], tenants: ['decide'], sites: [SITE] }, 1800);
  tenantAdmin = await platform.token({ subject: 'decide-admin', roles: ['admin'], tenants: ['decide'], sites: [] });
  tenant = tenantClient(platform.bridge, () => analyst);
  reviewer = reviewerClient(platform.bridge, await platform.token({ subject: 'rita', roles: ['reviewer'], tenants: ['decide'], sites: [SITE] }, 1800));
  expect((await gql(platform.router, 'mutation($i: CreateSiteInput!) { createSite(input: $i) { siteKey } }', { i: { siteKey: SITE, name: 'Decide shop' } }, bearer(admin))).body.errors).toBeUndefined();

  const start = isoDay(today - HISTORY * DAY);
  const quotes = generateDaily({ start, days: HISTORY, level: 400, seed: 21, noise: 0.03 }, (day) => (day >= isoDay(FALL) ? 0.6 : 1));
  await tenant.ingest([{ name: 'quote_requests', labels: {}, points: quotes }], 'requests', [{ name: 'quote_requests', unit: { kind: 'count', noun: 'requests' } }]);

  const fees = bursts(1000, HISTORY, 31, (t) => (t >= CUT ? 0.35 : 1), 21);
  const leads = fees.map((p, i) => ({ t: p.t, value: 500 * (p.value / 1000) ** 0.6 * (1 + 0.02 * Math.sin(i * 1.7)) }));
  await tenant.ingest([{ name: 'partner_fees', labels: {}, points: fees }], 'EUR', [{ name: 'partner_fees', unit: { kind: 'currency', code: 'EUR' }, upIsGood: false }]);
  await tenant.ingest([{ name: 'partner_leads', labels: {}, points: leads }], 'leads', [{ name: 'partner_leads', unit: { kind: 'count', noun: 'leads' }, drivers: [{ metric: 'partner_fees' }] }]);

  const noise = seededRandom(7);
  const rooms = promo.map((p) => ({ t: p.t, value: 12_000 * (cents(p.value) / 800) ** ELASTICITY * (1 + 0.1 * (noise() - 0.5)) }));
  await tenant.ingest([{ name: 'promo_spend', labels: {}, points: promo }], 'EUR', [{ name: 'promo_spend', unit: { kind: 'currency', code: 'EUR' }, upIsGood: false }]);
  await tenant.ingest([{ name: 'room_bookings', labels: {}, points: rooms }], 'EUR', [{ name: 'room_bookings', unit: { kind: 'currency', code: 'EUR' }, drivers: [{ metric: 'promo_spend' }] }]);

  // (e) a region that falls (no lever), and a what-if that does not pay.
  const parcels = generateLeaves('parcel_volume', { region: ['north', 'south', 'east', 'west'], channel: ['web', 'app'] }, { start, days: HISTORY, level: 8000, seed: 11, noise: 0.02 }, (labels, day) => (labels.region === 'north' && day >= isoDay(lastMonday) ? 0.55 : 1));
  await tenant.ingest(parcels, 'parcels');
  const ads = bursts(1500, HISTORY, 51);
  await tenant.ingest([{ name: 'gift_ads', labels: {}, points: ads }], 'EUR', [{ name: 'gift_ads', unit: { kind: 'currency', code: 'EUR' }, upIsGood: false }]);
  await tenant.ingest([{ name: 'gift_sales', labels: {}, points: ads.map((p) => ({ t: p.t, value: 2000 * (p.value / 1500) ** 0.05 })) }], 'EUR', [{ name: 'gift_sales', unit: { kind: 'currency', code: 'EUR' }, drivers: [{ metric: 'gift_ads' }] }]);
  const listings = generateDaily({ start, days: HISTORY, level: 900, seed: 61, noise: 0.03 }, (day) => (day >= isoDay(HEAL) ? 0.5 : 1));
  await tenant.ingest([{ name: 'listing_count', labels: {}, points: listings }], 'listings', [{ name: 'listing_count', unit: { kind: 'count', noun: 'listings' } }]);
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
  await operator?.close();
  await downOperator?.close();
});

describe('a fall on the day a content version went live', () => {
  it('proposes restoring the version live before it; approved, that version is live in delivery, restored once', async () => {
    const cms = async (query: string, variables: Record<string, unknown>) => {
      const reply = await gql(platform.router, query, variables, bearer(admin));
      expect(reply.body.errors).toBeUndefined();
      return reply.body.data;
    };
    const created = await cms('mutation($i: CreateContentInput!) { createContent(input: $i) { id } }', { i: { siteKey: SITE, slug: 'offers', title: 'Offers', fields: { headline: 'Spring offers', ctaText: 'Get a quote', ctaLink: '/quote' } } });
    const id = created.createContent.id as string;
    await cms('mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }', { id });
    await cms('mutation($id: ID!) { updateContentDraft(id: $id, input: { fields: { ctaText: "Call us" } }) { latestVersion } }', { id });
    await cms('mutation($id: ID!) { publishContent(id: $id, version: 2) { publishedVersion } }', { id });
    // The API publishes now; the planted story needs version 2 live since the fall's day, version 1 long before.
    await db.query(`update cms.content_version set published_at = $2, created_at = $2 where content_id = $1 and version = 1`, [id, new Date(FALL - 90 * DAY)]);
    await db.query(`update cms.content_version set published_at = $2, created_at = $2 where content_id = $1 and version = 2`, [id, new Date(FALL + 10 * 3_600_000)]);
    await db.query(`update cms.content set published_at = $2 where id = $1`, [id, new Date(FALL + 10 * 3_600_000)]);

    const job = await tenant.ask('Why did quote requests drop last week?');
    expect(job.status).toBe('COMPLETED');
    expect(engineFinding(job)).toMatchObject({ subject: { name: 'quote_requests' }, changePoint: { day: isoDay(FALL) } });
    const actions = job.actions as Action[];
    expect(actions.map((a) => a.kind)).toEqual(['CONTENT_RESTORE']);
    const restore = actions[0]!;
    expect(restore).toMatchObject({ targetType: 'Content', targetId: id, params: { siteKey: SITE, version: 1 }, undoable: true, finding: { title: 'When it started' } });
    expect(restore.finding!.detail).toContain('"offers"');
    expect(restore.expectedImpact).toMatchObject({ metric: 'quote_requests', horizon: 7, horizonDays: 7, unit: 'requests', p10: 0 });
    expect(restore.expectedImpact.p90).toBeCloseTo(-engineFinding(job).premise.change, 6);
    cited(job, restore);

    await reviewer.approve(restore.actionId);
    const done = await reviewer.settled(restore.actionId);
    expect(done).toMatchObject({ status: 'EXECUTED', outcome: { restoredFrom: 1, content: { id, publishedVersion: 3, latestVersion: 3 } } });
    const delivered = await call(`${platform.bridge}/api/v1/contents/offers`, { headers: { 'x-svc-site-key': SITE } });
    expect(delivered.body.data).toMatchObject({ version: 3, fields: { ctaText: 'Get a quote' } });
    const { rows } = await db.query('select count(*)::int as n from cms.idempotent_change where key = $1', [restore.actionId]);
    expect(rows[0].n).toBe(1);
  });
});

describe('a declared money driver that was cut', () => {
  const ask = async () => {
    const job = await tenant.ask('Why did partner leads drop last week?');
    expect(job.status).toBe('COMPLETED');
    const external = (job.actions as Action[]).filter((a) => a.kind === 'EXTERNAL');
    expect(external).toHaveLength(1);
    return { job, action: external[0]! };
  };

  it('hands off bringing it back: approved, it is delivered once, signed, to the operator webhook', async () => {
    const { job, action } = await ask();
    expect(action).toMatchObject({ targetType: 'External', targetId: 'partner_fees', undoable: false, params: { lever: 'partner_fees', change: { metric: 'partner_fees', labels: {} }, summary: expect.any(String) } });
    // Back to its level before: ×1/0.35, about +186 %.
    expect(action.params.change.changePercent).toBeGreaterThan(150);
    expect(action.params.change.changePercent).toBeLessThan(230);
    expect(action.finding).toMatchObject({ title: 'A cause', detail: expect.stringContaining('partner_fees') });
    expect(action.expectedImpact).toMatchObject({ metric: 'partner_leads', unit: 'leads', horizonDays: 7 });
    expect(action.expectedImpact.p50).toBeGreaterThan(0);
    cited(job, action);

    expect((await call(`${platform.bridge}/api/v1/insight/settings`, { method: 'PUT', headers: bearer(tenantAdmin), json: { operatorWebhookUrl: operator.url, operatorWebhookSecret: SECRET } })).status).toBe(200);
    await reviewer.approve(action.actionId);
    const done = await reviewer.settled(action.actionId);
    expect(done).toMatchObject({ status: 'EXECUTED', outcome: { handedOffTo: new URL(operator.url).host, deliveryStatus: 'DELIVERED', deliveryAttempts: 1 } });
    const got = operator.received.filter((r) => r.body.actionId === action.actionId);
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({ event: 'action.external', tenantId: 'decide', lever: 'partner_fees', change: action.params.change, summary: action.params.summary, expectedImpact: action.expectedImpact, approvedBy: 'rita' });
    const signed = createHmac('sha256', SECRET).update(`${got[0]!.headers['x-svc-timestamp']}.${JSON.stringify(got[0]!.body)}`).digest('hex');
    expect(got[0]!.headers['x-svc-signature']).toBe(`sha256=${signed}`);
    // Sweeps come and go; it is not handed off again.
    await new Promise((r) => setTimeout(r, 3500));
    expect(operator.received.filter((r) => r.body.actionId === action.actionId)).toHaveLength(1);
  });

  it('dead-letters the hand-off when the operator stays down', async () => {
    const { action } = await ask();
    expect((await call(`${platform.bridge}/api/v1/insight/settings`, { method: 'PUT', headers: bearer(tenantAdmin), json: { operatorWebhookUrl: downOperator.url } })).status).toBe(200);
    await reviewer.approve(action.actionId);
    const failed = await reviewer.settled(action.actionId);
    expect(failed).toMatchObject({ status: 'EXECUTION_FAILED', outcome: { deliveryStatus: 'FAILED', deliveryAttempts: MAX_ATTEMPTS } });
    expect(downOperator.received.filter((r) => r.body.actionId === action.actionId)).toHaveLength(MAX_ATTEMPTS);
  });
});

describe('a what-if on a money lever', () => {
  it('states its cost and return per unit, covers the planted elasticity, and proposes the change because it pays', async () => {
    const job = await tenant.ask('What if we increase promo spend by 20%?');
    expect(job.status).toBe('COMPLETED');
    const f = engineFinding(job);
    expect(f.subject.name).toBe('room_bookings');
    const { effect, cost } = f.whatIf;
    expect(effect.elasticityInterval.p10).toBeLessThanOrEqual(ELASTICITY);
    expect(effect.elasticityInterval.p90).toBeGreaterThanOrEqual(ELASTICITY);
    // The cost is the lever's spend over the analysed week × the change; the return, the effect per unit of it.
    const spent = promo.filter((p) => isoDay(p.t) >= f.periods.period.from && isoDay(p.t) <= f.periods.period.to).reduce((s, p) => s + cents(p.value), 0);
    expect(cost.periodSpend).toBeCloseTo(spent, 1);
    expect(cost.increment).toBeCloseTo(spent * 0.2, 1);
    for (const q of ['p10', 'p50', 'p90'] as const) expect(cost.return[q]).toBeCloseTo(effect[q] / cost.increment, 6);
    expect(cost.pays).toBe(true);
    // Cost, return and verdict are in the report.
    const said = job.report.findings.filter((x: { title: string }) => x.title === 'What the change would do').map((x: { detail: string }) => x.detail).join(' ');
    for (const figure of [cost.return.p10, cost.return.p50, cost.return.p90]) expect(said).toContain(figure.toFixed(2));
    const actions = job.actions as Action[];
    expect(actions.map((a) => a.kind)).toEqual(['EXTERNAL']);
    expect(actions[0]).toMatchObject({ params: { lever: 'promo_spend', change: { metric: 'promo_spend', labels: {}, changePercent: 20 } }, finding: { title: 'What the change would do' } });
    expect(actions[0]!.expectedImpact).toMatchObject({ metric: 'room_bookings', unit: 'EUR', horizonDays: 7, p10: expect.closeTo(effect.p10, 6), p50: expect.closeTo(effect.p50, 6), p90: expect.closeTo(effect.p90, 6) });
    cited(job, actions[0]!);
  });
});

describe('a model budget that will run out', () => {
  it('proposes raising it with its parameters; approved, the gateway holds the new budget', async () => {
    // The tenant's own agent (its admin creates it), with a tiny budget its first calls outgrow.
    const set = await gql(platform.router, 'mutation { setBudget(input: {agentCode: "decide-bot", monthlyBudgetUsd: 0.0001, hardLimitEnabled: false}) { agentCode } }', {}, bearer(tenantAdmin));
    expect(set.body.errors).toBeUndefined();
    const key = (await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(tenantAdmin), json: { agentCode: 'decide-bot' } })).body.key;
    for (let i = 0; i < 3; i++) {
      const answer = await call(`${platform.bridge}/v1/chat/completions`, { headers: bearer(key), json: { model: 'fast-track', messages: [{ role: 'user', content: `Write the weekly offers newsletter, take ${i}` }] } });
      expect(answer.status).toBe(200);
    }
    await eventually(async () => ((await gql(platform.router, '{ agent(code: "decide-bot") { budget { currentUsageUsd } } }', {}, bearer(tenantAdmin))).body.data?.agent?.budget.currentUsageUsd > 0.0001 ? true : undefined), 15_000, 'decide-bot spending');
    const job = await tenant.ask('Is the budget enough for our model spend this month?');
    expect(job.status).toBe('COMPLETED');
    const budget = (job.actions as Action[]).find((a) => a.kind === 'BUDGET_CHANGE' && a.targetId === 'decide-bot')!;
    expect(budget).toMatchObject({ targetType: 'Agent', undoable: true, params: { monthlyBudgetUsd: expect.any(Number), hardLimitEnabled: false }, finding: { title: expect.stringMatching(/^Agent decide-bot has used/) } });
    // The tenant's share of the analysis agent is reported, and the platform's to change: no proposal for it.
    expect((job.actions as Action[]).filter((a) => a.kind === 'BUDGET_CHANGE').map((a) => a.targetId)).toEqual(['decide-bot']);
    expect(Object.keys(budget.params).sort()).toEqual(['hardLimitEnabled', 'monthlyBudgetUsd']);
    expect(budget.params.monthlyBudgetUsd).toBeGreaterThan(0.0001);
    expect(budget.params.monthlyBudgetUsd).toBeGreaterThanOrEqual(budget.expectedImpact.p50);
    expect(budget.expectedImpact).toMatchObject({ unit: 'USD', metric: 'llm.cost_usd{agent=decide-bot}' });
    cited(job, budget);
    await reviewer.approve(budget.actionId);
    expect(await reviewer.settled(budget.actionId)).toMatchObject({ status: 'EXECUTED', outcome: { budget: { agentCode: 'decide-bot', allocatedUsd: budget.params.monthlyBudgetUsd } } });
  });
});

describe('findings with no lever', () => {
  it('proposes nothing for a region that fell, and the report says why', async () => {
    const job = await tenant.ask('Why did parcel volume drop last week?');
    expect(job.status).toBe('COMPLETED');
    expect(job.report.findings.some((x: { title: string; detail: string }) => x.title === 'A cause' && x.detail.includes('region=north'))).toBe(true);
    expect(job.actions).toEqual([]);
    const none = job.report.findings.filter((x: { title: string }) => x.title === 'No proposal');
    expect(none).toHaveLength(1);
    expect(job.report.judgment).toContain(none[0].detail);
  });

  it('proposes nothing for a what-if that does not pay, and names the lever', async () => {
    const job = await tenant.ask('What if we increase gift ads by 20%?');
    expect(job.status).toBe('COMPLETED');
    expect(engineFinding(job).whatIf.cost.pays).toBe(false);
    expect(job.actions).toEqual([]);
    const none = job.report.findings.filter((x: { title: string }) => x.title === 'No proposal');
    expect(none).toEqual([expect.objectContaining({ detail: expect.stringContaining('gift_ads') })]);
  });
});

describe('a fall on the day a crawl job healed its selectors and a run failed', () => {
  it('proposes changing the selectors back and running the job again; approved, the selectors before the healing are the job\'s', async () => {
    // Crawl events are read with crawl's rules: this analyst may read the tenant's crawl jobs.
    const crawler = await platform.token({ subject: 'cora', roles: ['analyst', 'crawler'], tenants: ['decide'], sites: [] });
    const before = { listRow: 'ul.listings > li', title: 'a' };
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(crawler), json: { jobName: 'listings', targetUrl: 'https://listings.example.com/all', robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: before } });
    expect(created.status).toBe(201);
    const jobId = created.body.data.jobId as string;
    // What runs on the fall's day would have left behind (no run can be dated in the past): a healing to
    // selectors that match the wrong elements, and a run that failed.
    const healed = { listRow: 'div.card', title: 'h3' };
    const [healRun, failedRun] = [randomUUID(), randomUUID()];
    const at = (hours: number) => new Date(HEAL + hours * 3_600_000);
    await db.query(`insert into crawl.selector_version (tenant_id, job_id, version, selectors, reason, created_at) values ('decide', $1, 2, $2, $3, $4)`, [jobId, JSON.stringify(healed), `healed during execution ${healRun}`, at(4)]);
    await db.query(`update crawl.crawl_job set selectors = $2, selector_version = 2 where id = $1`, [jobId, JSON.stringify(healed)]);
    await db.query(
      `insert into crawl.crawl_execution (id, tenant_id, job_id, status, queued_at, started_at, finished_at, total_count, self_healing_occurred, error)
       values ($1, 'decide', $3, 'COMPLETED', $4, $4, $4, 12, true, null), ($2, 'decide', $3, 'FAILED', $5, $5, $5, 0, false, 'The page answered 500')`,
      [healRun, failedRun, jobId, at(4), at(6)],
    );

    const job = await tenantClient(platform.bridge, () => crawler).ask('Why did listing count drop last week?');
    expect(job.status).toBe('COMPLETED');
    expect(engineFinding(job)).toMatchObject({ changePoint: { day: isoDay(HEAL) } });
    const actions = (job.actions as Action[]).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(actions.map((a) => [a.kind, a.targetType, a.targetId])).toEqual([['CRAWL_SELECTOR_CHANGE', 'CrawlJob', jobId], ['CRAWL_TRIGGER', 'CrawlJob', jobId]]);
    const [change, trigger] = actions as [Action, Action];
    expect(change).toMatchObject({ undoable: true, params: { selectors: before, restores: 1, replaces: 2, healedSelectors: healed }, finding: { title: 'When it started' } });
    expect(trigger).toMatchObject({ undoable: false, params: { failedExecution: failedRun }, finding: { title: 'When it started' } });
    for (const a of actions) {
      cited(job, a);
      expect(a.expectedImpact).toMatchObject({ metric: 'listing_count', unit: 'listings', horizonDays: 7, p10: 0 });
    }

    await reviewer.approve(change.actionId);
    expect(await reviewer.settled(change.actionId)).toMatchObject({ status: 'EXECUTED', outcome: { job: { jobId, selectorVersion: 3, selectors: before } } });
  });
});
