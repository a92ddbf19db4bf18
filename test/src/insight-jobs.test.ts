import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { figuresOf } from '@svc/insight/domain/report';
import { eventually } from './support/eventually.js';
import { writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

/**
 * The analysis service end to end through the bridge, on the offline model (svc-local):
 * jobs, their event stream, grounded reports, proposed actions and their one decision.
 */

let platform: TestPlatform;
let analyst: string;
let reviewer: string;
let admin: string;
let stranger: string;
let reviewerHook: Awaited<ReturnType<typeof startWebhookReceiver>>;
const REVIEW_SECRET = 'reviewer-webhook-secret-0123456789';

interface Step { seq: number; kind: string; title: string; detail: string | null; toolName: string | null; result: unknown; resultSummary: string | null; status: string | null }

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jobUrl = (id: string) => `${platform.bridge}/api/v1/insight/jobs/${id}`;

async function createJob(prompt: string, token = analyst, extra: Record<string, string> = {}) {
  const reply = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(token), ...extra }, json: { prompt } });
  expect(reply.status).toBe(202);
  return reply.body.data as { jobId: string; status: string; createdAt: string };
}

async function finished(jobId: string, token = analyst) {
  return eventually(async () => {
    const reply = await call(jobUrl(jobId), { headers: bearer(token) });
    expect(reply.status).toBe(200);
    const job = reply.body.data;
    return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status) ? job : undefined;
  }, 60_000, 'the job to end');
}

/** Reads a job's event stream until it ends or `stopAfter` events came; returns the events. */
async function readEvents(jobId: string, lastEventId?: number, stopAfter = Infinity): Promise<{ id: number; step: Step }[]> {
  const controller = new AbortController();
  const response = await fetch(`${jobUrl(jobId)}/events`, { headers: { ...bearer(analyst), accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': String(lastEventId) } : {}) }, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: { id: number; step: Step }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id: Number(id), step: JSON.parse(data) as Step });
        if (events.length >= stopAfter) {
          controller.abort();
          return events;
        }
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
  return events;
}

/** The offline model, but priced, so the agent's thinking is charged and budgets bite. */
function pricedOfflineGateway(): Promise<string> {
  return writeGatewayConfig({
    providers: [{ name: 'offline', kind: 'local' }],
    models: [{ name: 'priced-local', provider: 'offline', model: 'svc-local', inputPerMTok: 5, outputPerMTok: 15 }],
    aliases: { 'fast-track': ['priced-local'], 'deep-reasoning': ['priced-local'] },
  });
}

beforeAll(async () => {
  reviewerHook = await startWebhookReceiver([503]);
  platform = await startTestPlatform({
    SVCLLM_CONFIG: await pricedOfflineGateway(),
    SVC_INSIGHT_REVIEW_WEBHOOK_URL: reviewerHook.url,
    SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: REVIEW_SECRET,
    SVC_INSIGHT_REVIEW_WEBHOOK_RETRY_MS: '50',
  });
  analyst = await platform.token({ subject: 'ana', roles: ['analyst', 'editor'], tenants: ['demo'], sites: ['demo'] });
  reviewer = await platform.token({ subject: 'rev', roles: ['reviewer'], tenants: ['demo'], sites: ['demo'] });
  admin = await platform.token({ subject: 'root' });
  stranger = await platform.token({ subject: 'eve', roles: ['analyst'], tenants: ['demo'], sites: [] });
});
afterAll(async () => {
  await platform?.close();
  await reviewerHook?.close();
});

describe('an analysis job through the bridge', () => {
  let jobId: string;
  let job: { status: string; steps: Step[]; report: { judgment: string; findings: { title: string; detail: string }[]; evidence: { summary: string | null }[]; charts: unknown[]; confidence: number }; actions: unknown[] };

  it('is accepted at once as PENDING with the spec envelope', async () => {
    const reply = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(analyst), json: { prompt: '  Why did revenue drop last week? What if we increase search ad spend by 20%?  ', requesterId: 'analyst-01' } });
    expect(reply.status).toBe(202);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data).toEqual({ jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'PENDING', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) });
    jobId = reply.body.data.jobId;
  });

  it('streams every step as it is written, and a reconnect with Last-Event-ID misses and repeats nothing', async () => {
    const first = await readEvents(jobId, undefined, 3);
    expect(first.map((e) => e.id)).toEqual([1, 2, 3]);
    const rest = await readEvents(jobId, 3);
    const ids = [...first, ...rest].map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const last = rest[rest.length - 1]!.step;
    expect(last).toMatchObject({ kind: 'STATUS', status: 'COMPLETED' });
    expect(rest.map((e) => e.step.kind)).toEqual(expect.arrayContaining(['TOOL_CALL', 'TOOL_RESULT', 'REPORT']));
    expect(first[0]!.step.kind).toBe('STATUS');
    expect(first[1]!.step.kind).toBe('PLAN');
  });

  it('ends COMPLETED with the prompt trimmed, progress, steps and a report', async () => {
    job = await finished(jobId);
    expect(job.status).toBe('COMPLETED');
    expect(job).toMatchObject({ prompt: 'Why did revenue drop last week? What if we increase search ad spend by 20%?', requesterId: 'analyst-01', error: null });
    expect((job as unknown as { progress: { stepsDone: number } }).progress.stepsDone).toBe(job.steps.length);
    const tools = job.steps.filter((s) => s.kind === 'TOOL_CALL').map((s) => s.toolName);
    expect(tools).toEqual(expect.arrayContaining(['list_metrics', 'analyse_change', 'simulate_scenario', 'search_knowledge']));
    expect(job.report.findings.length).toBeGreaterThanOrEqual(5);
    // The what-if estimates the elasticity from history (the model is not offered one to invent).
    const simulation = job.steps.find((s) => s.kind === 'TOOL_RESULT' && s.toolName === 'simulate_scenario')!.result as { elasticity: { value: number; source: string }; changePercent: number };
    expect(simulation.changePercent).toBe(20);
    expect(simulation.elasticity.source).toBe('estimated');
    expect(simulation.elasticity.value).toBeGreaterThan(0.1);
    expect(simulation.elasticity.value).toBeLessThan(0.5);
    expect(job.report.charts.length).toBeGreaterThanOrEqual(3);
    expect(job.report.confidence).toBeGreaterThan(0);
    expect(job.report.confidence).toBeLessThanOrEqual(1);
  });

  it('states only figures that a tool returned', () => {
    const sources = job.steps.filter((s) => s.kind === 'TOOL_RESULT').map((s) => `${JSON.stringify(s.result)} ${s.resultSummary}`).join('\n');
    const known = new Set(figuresOf(sources));
    const text = [job.report.judgment, ...job.report.findings.flatMap((f) => [f.title, f.detail]), ...job.report.evidence.map((e) => e.summary ?? '')].join('\n');
    const figures = figuresOf(text);
    expect(figures.length).toBeGreaterThan(10);
    expect(figures.filter((f) => !known.has(f))).toEqual([]);
  });

  it('returns the same job for a repeated Idempotency-Key, and a new one without it', async () => {
    const a = await createJob('How is revenue doing?', analyst, { 'idempotency-key': 'weekly-report-2026-47' });
    const b = await createJob('How is revenue doing?', analyst, { 'idempotency-key': 'weekly-report-2026-47' });
    const c = await createJob('How is revenue doing?');
    expect(b.jobId).toBe(a.jobId);
    expect(c.jobId).not.toBe(a.jobId);
  });

  it('lists the caller\'s own jobs by cursor, every job for a reviewer, and filters by status', async () => {
    const page1 = await call(`${platform.bridge}/api/v1/insight/jobs?first=2`, { headers: bearer(analyst) });
    expect(page1.status).toBe(200);
    expect(page1.body.data.jobs).toHaveLength(2);
    const page2 = await call(`${platform.bridge}/api/v1/insight/jobs?first=2&after=${page1.body.data.nextCursor}`, { headers: bearer(analyst) });
    expect(page2.body.data.jobs.length).toBeGreaterThanOrEqual(1);
    const seen = [...page1.body.data.jobs, ...page2.body.data.jobs].map((j: { jobId: string }) => j.jobId);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(stranger) })).body.data.jobs).toEqual([]);
    expect((await call(`${platform.bridge}/api/v1/insight/jobs?status=COMPLETED`, { headers: bearer(reviewer) })).body.data.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
  });
});

describe('the platform\'s own figures', () => {
  it('answers why model spend moved from the gateway\'s usage, read with the requester\'s rights', async () => {
    const job = await finished((await createJob('Why did our model spend jump last week?')).jobId);
    expect(job.status).toBe('COMPLETED');
    // The platform's own figure, found by the catalog's synonym ("model spend"), read from the gateway's usage.
    const spend = (job.steps as Step[]).find((s) => s.kind === 'TOOL_RESULT' && s.toolName === 'analyse_change');
    expect(spend).toBeDefined();
    expect(spend!.result).toMatchObject({ finding: { subject: { name: 'llm.cost_usd', how: 'synonym' } } });
    expect(spend!.resultSummary).not.toMatch(/failed|Invalid/);
    expect(job.report.judgment).toMatch(/^llm\.cost_usd /);
  });
});

describe('refusals', () => {
  it('names the bad field of a bad body', async () => {
    for (const [body, pointer] of [[{}, '/prompt'], [{ prompt: '   ' }, '/prompt'], [{ prompt: 'x'.repeat(8001) }, '/prompt'], [{ prompt: 42 }, '/prompt'], [{ prompt: 'ok', requesterId: '' }, '/requesterId'], [{ prompt: 'ok', colour: 'red' }, '/']] as const) {
      const reply = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(analyst), json: body });
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ code: 422, data: null });
      expect(reply.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const malformed = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(analyst), 'content-type': 'application/json' }, body: '{"prompt":' });
    expect(malformed.status).toBe(400);
  });

  it('refuses missing tokens, wrong roles and other people\'s jobs', async () => {
    expect((await call(`${platform.bridge}/api/v1/insight/jobs`, { json: { prompt: 'hi' } })).status).toBe(401);
    expect((await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(reviewer), json: { prompt: 'hi' } })).status).toBe(403);
    const mine = await createJob('How are sessions doing?');
    expect((await call(jobUrl(mine.jobId), { headers: bearer(stranger) })).status).toBe(404);
    expect((await call(`${jobUrl(mine.jobId)}/events`, { headers: bearer(stranger) })).status).toBe(404);
    expect((await call(jobUrl('not-a-uuid'), { headers: bearer(analyst) })).status).toBe(404);
    expect((await call(jobUrl(mine.jobId), { headers: bearer(reviewer) })).status).toBe(200);
  });
});

describe('proposed actions', () => {
  let actions: { actionId: string; kind: string; status: string; targetId: string; params: Record<string, unknown> }[];
  let findings: { title: string; detail: string }[];

  beforeAll(async () => {
    // A tiny budget the agent's own thinking outgrows (not blocking), and a draft waiting on the pricing page.
    // This tenant's share of the analysis agent is the platform's to set: reported, never proposed.
    const budget = await gql(platform.router, 'mutation { setBudget(input: {agentCode: "insight:demo", monthlyBudgetUsd: 0.0001, hardLimitEnabled: false}) { agentCode } }', {}, bearer(admin));
    expect(budget.body.errors).toBeUndefined();
    const contents = await gql(platform.router, 'query { contents(siteKey: "demo") { id slug } }', {}, bearer(admin));
    const pricing = contents.body.data.contents.find((c: { slug: string }) => c.slug === 'pricing');
    const draft = await gql(platform.router, 'mutation($id: ID!) { updateContentDraft(id: $id, input: {title: "Pricing, simpler"}) { latestVersion } }', { id: pricing.id }, bearer(admin));
    expect(draft.body.errors).toBeUndefined();
    const job = await finished((await createJob('Is our model budget enough, and is the pricing page hurting conversion?')).jobId);
    expect(job.status).toBe('COMPLETED');
    actions = job.actions;
    findings = job.report.findings;
  });

  it("proposes a budget raise for the tenant's own agent and publishing the waiting drafts, each PROPOSED with an expiry", () => {
    // The demo's pricing version went live the day conversion fell: the waiting draft also gets back what it changed.
    // The demo tenant's agent (seeded to overspend) gets a proposal; the tenant's share of the analysis agent is the platform's.
    expect(actions.map((a) => a.kind).sort()).toEqual(['BUDGET_CHANGE', 'CONTENT_DRAFT_UPDATE', 'CONTENT_PUBLISH']);
    for (const a of actions) expect(a.status).toBe('PROPOSED');
    expect(actions.filter((a) => a.kind === 'BUDGET_CHANGE').map((a) => a.targetId)).toEqual(['shop-assistant']);
    expect(findings.find((f) => f.title.startsWith('Agent insight:demo has used'))?.detail).toContain('The platform sets this budget');
    expect(findings.some((f) => f.title.startsWith('Agent insight has used'))).toBe(false); // nothing of the platform's own agents
  });

  it('notifies reviewers once per job, signed, retrying a failed delivery', async () => {
    const jobId = (actions[0] as unknown as { jobId: string }).jobId;
    const deliveries = await eventually(async () => {
      const mine = reviewerHook.received.filter((r) => r.body.jobId === jobId);
      return mine.length >= 2 ? mine : undefined;
    }, 15_000, 'the reviewer webhook to be retried');
    expect(deliveries.map((d) => d.headers['x-svc-delivery'])).toEqual([`${jobId}:1`, `${jobId}:2`]);
    const last = deliveries[1]!;
    expect(last.headers['x-svc-event']).toBe('actions.proposed');
    const expected = createHmac('sha256', REVIEW_SECRET).update(`${last.headers['x-svc-timestamp']}.${JSON.stringify(last.body)}`).digest('hex');
    expect(last.headers['x-svc-signature']).toBe(`sha256=${expected}`);
    expect(last.body.actions.map((a: { actionId: string }) => a.actionId).sort()).toEqual(actions.map((a) => a.actionId).sort());
    expect(last.body.actions[0]).toMatchObject({ status: 'PROPOSED', approvePath: `/api/v1/insight/actions/${last.body.actions[0].actionId}/approve`, expiresAt: expect.any(String) });
    expect(JSON.stringify(last.body)).not.toContain('pricing page hurting');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reviewerHook.received.filter((r) => r.body.jobId === jobId)).toHaveLength(2);
  });

  it('takes one decision: a second is 409 naming the status and changes nothing', async () => {
    const reject = actions.find((a) => a.kind === 'CONTENT_PUBLISH')!;
    const url = `${platform.bridge}/api/v1/insight/actions/${reject.actionId}`;
    expect((await call(`${url}/reject`, { headers: bearer(analyst), json: { comment: 'no' } })).status).toBe(403);
    const first = await call(`${url}/reject`, { headers: bearer(reviewer), json: { reviewedBy: 'reviewer-01', comment: 'Not before the launch.' } });
    expect(first.status).toBe(200);
    // The recorded reviewer is the token's subject, whatever name the body gives.
    expect(first.body.data).toMatchObject({ status: 'REJECTED', decision: { reviewedBy: 'rev', reviewerSubject: 'rev', comment: 'Not before the launch.' } });
    const second = await call(`${url}/approve`, { headers: bearer(reviewer), json: { comment: 'changed my mind' } });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain('REJECTED');
    expect((await call(url, { headers: bearer(reviewer) })).body.data).toMatchObject({ status: 'REJECTED', decision: { comment: 'Not before the launch.' } });
  });

  it('refuses a decision on an expired action with 409 EXPIRED', async () => {
    const budget = actions.find((a) => a.kind === 'BUDGET_CHANGE' && a.targetId === 'shop-assistant')!;
    const db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    await db.query(`update insight.action set expires_at = now() - interval '1 second' where id = $1`, [budget.actionId]);
    await db.end();
    const reply = await call(`${platform.bridge}/api/v1/insight/actions/${budget.actionId}/approve`, { headers: bearer(reviewer), json: {} });
    expect(reply.status).toBe(409);
    expect(reply.body.message).toContain('EXPIRED');
    const listed = await call(`${platform.bridge}/api/v1/insight/actions?status=EXPIRED`, { headers: bearer(reviewer) });
    expect(listed.body.data.map((a: { actionId: string }) => a.actionId)).toContain(budget.actionId);
  });
});

describe('limits', () => {
  it('ends a job FAILED, naming the agent and what is left, when the agent\'s hard budget is used up', async () => {
    const set = await gql(platform.router, 'mutation { setBudget(input: {agentCode: "insight:demo", monthlyBudgetUsd: 0.0000001, hardLimitEnabled: true}) { agentCode } }', {}, bearer(admin));
    expect(set.body.errors).toBeUndefined();
    const job = await finished((await createJob(`How is revenue doing? (${Date.now()})`)).jobId);
    expect(job.status).toBe('FAILED');
    expect(job.error).toContain('insight:demo');
    expect(job.error).toMatch(/left/);
    expect(job.steps[job.steps.length - 1]).toMatchObject({ kind: 'STATUS', status: 'FAILED' });
    await gql(platform.router, 'mutation { setBudget(input: {agentCode: "insight:demo", monthlyBudgetUsd: 100, hardLimitEnabled: true}) { agentCode } }', {}, bearer(admin));
  });

  it('cancels a pending job at once and refuses to cancel an ended one', async () => {
    const done = await finished((await createJob('How are sessions doing?')).jobId);
    const again = await call(`${jobUrl(done.jobId)}/cancel`, { method: 'POST', headers: bearer(analyst) });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(done.status);
  });
});
