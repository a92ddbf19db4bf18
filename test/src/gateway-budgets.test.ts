/**
 * Model gateway budgets end to end, over the REST bridge with plain fetch: the hard limit under
 * concurrency, budget records, alerts (signed webhooks, once per period, retries), streams that
 * settle when the client goes away, virtual keys and the reservation sweeper.
 *
 * Prices make money countable: the only model, `metered`, costs $1000 per million tokens in and
 * out, i.e. $0.001 per token, and both aliases route to it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import pg from 'pg';
import { startAlertReceiver } from './support/alert-receiver.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, type Reply } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';
import { dropDatabase } from './support/services.js';
import { eventually } from './support/eventually.js';

const USD_PER_TOKEN = 0.001;
const MAX_OUTPUT_TOKENS = 50;

let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let platform: TestPlatform;
let running = false;
let env: Record<string, string>;
let db: pg.Pool;

beforeAll(async () => {
  fake = await startFakeOpenAi({ usage: { prompt_tokens: 10, completion_tokens: 10 } });
  const configFile = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'metered', provider: 'fake', inputPerMTok: 1000, outputPerMTok: 1000, maxOutputTokens: MAX_OUTPUT_TOKENS }],
    aliases: { 'fast-track': ['metered'], 'deep-reasoning': ['metered'] },
  });
  // The alert receivers listen on 127.0.0.1, which only the allow list opens.
  env = { SVCLLM_CONFIG: configFile, SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1' };
  platform = await startTestPlatform(env);
  running = true;
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 3 });
  db.on('error', () => undefined); // an idle client cut off by the server must not crash the suite
});

afterAll(async () => {
  await db?.end();
  // After a failed restart the services are already stopped: only the database is left to drop.
  if (platform) await (running ? platform.close() : dropDatabase(platform.databaseUrl));
  await fake?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const usd = (tokens: number) => Math.round(tokens * USD_PER_TOKEN * 1e6) / 1e6;
const currentPeriod = () => new Date().toISOString().slice(0, 7);

/**
 * The gateway's reservation bound for prompt tokens (chat-service.ts promptTokenBound): one
 * token per UTF-8 byte plus framing, 3 + per message 4 + content bytes + bytes of
 * JSON.stringify(tool_calls ?? '') (2 for a message without tool calls).
 */
function promptBound(messages: { content: string }[]): number {
  return 3 + messages.reduce((sum, m) => sum + 4 + Buffer.byteLength(m.content) + Buffer.byteLength(JSON.stringify('')), 0);
}

function admin(path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  return call(`${platform.bridge}${path}`, { ...init, headers: init.headers ?? master });
}

async function setBudget(input: Record<string, unknown>): Promise<Reply> {
  return admin('/admin/v1/budgets', { json: input });
}

async function createKey(agentCode: string, name = 'test'): Promise<{ id: string; key: string }> {
  const reply = await admin('/admin/v1/keys', { json: { agentCode, name } });
  expect(reply.status).toBe(201);
  return reply.body;
}

/** One chat request; an answered one is returned once its settlement is written (it follows the answer, in a batch). */
async function chat(key: string, content: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const reply = await call(`${platform.bridge}/v1/chat/completions`, {
    headers: bearer(key),
    json: { model: 'fast-track', messages: [{ role: 'user', content }], svcllm_options: { cacheBypass: true }, ...extra },
  });
  const requestId = reply.headers.get('x-request-id');
  if (reply.status === 200 && requestId && !extra.stream) {
    await eventually(async () => ((await db.query('select 1 from llm.usage_ledger where request_id = $1', [requestId])).rowCount ? true : undefined), 5000, `the settlement of ${requestId}`);
  }
  return reply;
}

async function budgetOf(agentCode: string): Promise<Record<string, any>> {
  const reply = await admin('/admin/v1/budgets');
  expect(reply.status).toBe(200);
  return reply.body.budgets.find((b: { agentCode: string }) => b.agentCode === agentCode);
}

async function periodRow(agentCode: string): Promise<{ spent: number; reserved: number; allocated: number }> {
  const { rows } = await db.query(
    `select bp.spent_usd, bp.reserved_usd, a.monthly_budget_usd from llm.agent a
       left join llm.budget_period bp on bp.agent_code = a.code and bp.period = $2 where a.code = $1`,
    [agentCode, currentPeriod()],
  );
  return { spent: Number(rows[0]?.spent_usd ?? 0), reserved: Number(rows[0]?.reserved_usd ?? 0), allocated: Number(rows[0]?.monthly_budget_usd ?? 0) };
}

async function reservationsOf(agentCode: string): Promise<number> {
  const { rows } = await db.query('select count(*)::int as n from llm.reservation where agent_code = $1', [agentCode]);
  return rows[0].n;
}

async function ledgerOf(agentCode: string): Promise<{ outcome: string; cost_usd: string; prompt_tokens: number; completion_tokens: number }[]> {
  const { rows } = await db.query('select outcome, cost_usd, prompt_tokens, completion_tokens from llm.usage_ledger where agent_code = $1 order by created_at', [agentCode]);
  return rows;
}

// ---------------------------------------------------------------------------------------------

describe('model gateway budgets', () => {
  // Unless a test says otherwise the upstream answers at once and reports 10 + 10 tokens ($0.02).
  beforeEach(() => fake.set({ usage: { prompt_tokens: 10, completion_tokens: 10 } }));

  it('200 concurrent requests against a budget that fits 50: at most 50 succeed, recorded spend never exceeds the allocation, and no reservation is left behind', async () => {
    const agentCode = 'burst-agent';
    // Every prompt has the same byte length (7), so every reservation is the same.
    const prompts = Array.from({ length: 200 }, (_, i) => `req-${String(i).padStart(3, '0')}`);
    const bound = promptBound([{ content: prompts[0]! }]);
    const maxTokens = 14;
    const reservationUsd = usd(bound + maxTokens);
    expect(bound).toBe(16);
    expect(reservationUsd).toBe(0.03);
    // The upstream reports exactly the worst case, so a settled request costs its reservation
    // and nothing is freed for later requests: exactly 50 can ever be admitted.
    // A little upstream latency keeps many reservations in flight at the same time.
    fake.set({ usage: { prompt_tokens: bound, completion_tokens: maxTokens }, delayMs: 100 });
    const allocation = 50 * reservationUsd;
    expect((await setBudget({ agentCode, monthlyBudgetUsd: allocation, hardLimitEnabled: true })).status).toBe(200);
    const { key } = await createKey(agentCode);
    const callsBefore = fake.calls.length;

    // While the burst runs, spent + reserved (what the hard limit checks) is sampled.
    let bursting = true;
    let peak = 0;
    let peakReserved = 0;
    const sampler = (async () => {
      while (bursting) {
        const row = await periodRow(agentCode);
        peak = Math.max(peak, row.spent + row.reserved);
        peakReserved = Math.max(peakReserved, row.reserved);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const replies = await Promise.all(prompts.map((p) => chat(key, p, { max_tokens: maxTokens }))).finally(() => (bursting = false));
    await sampler;
    expect(peakReserved).toBeGreaterThan(reservationUsd); // several requests held money at once
    expect(peak).toBeLessThanOrEqual(allocation);

    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(200);
    expect(ok.length).toBeLessThanOrEqual(50);
    expect(ok.length).toBe(50);
    expect(fake.calls.length - callsBefore).toBe(50);
    for (const r of ok) expect(r.body.usage).toMatchObject({ prompt_tokens: bound, completion_tokens: maxTokens });
    for (const r of refused) expect(r.body).toEqual({ error: { type: 'insufficient_quota', code: 'insufficient_quota', param: null, message: expect.stringContaining(agentCode) } });

    const row = await periodRow(agentCode);
    expect(row.allocated).toBe(allocation);
    expect(row.spent).toBeLessThanOrEqual(row.allocated);
    expect(row.spent).toBe(allocation);
    expect(row.reserved).toBe(0);
    expect(await reservationsOf(agentCode)).toBe(0);
    const { rows: ledger } = await db.query(
      `select coalesce(sum(cost_usd), 0) as total, count(*) filter (where outcome = 'ok')::int as ok, count(*) filter (where outcome = 'refused')::int as refused
         from llm.usage_ledger where agent_code = $1`,
      [agentCode],
    );
    expect(Number(ledger[0].total)).toBe(row.spent);
    expect(ledger[0]).toMatchObject({ ok: 50, refused: 150 });

    expect(await budgetOf(agentCode)).toEqual({
      agentCode, period: 'MONTHLY', allocatedUsd: allocation, currentUsageUsd: row.spent, burnRatePercent: 100, alertThresholdPercent: 80, status: 'WARNING_THRESHOLD_EXCEEDED', tenantId: null, managedBy: 'PLATFORM',
    });
  });

  it('budget records: HEALTHY below the threshold, WARNING at exactly it, burn rate to two decimals; validation and authorisation of POST /admin/v1/budgets', async () => {
    const agentCode = 'record-agent';
    const set = await setBudget({ agentCode, monthlyBudgetUsd: 1, alertThresholdPercent: 50 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      budget: { agentCode, period: 'MONTHLY', allocatedUsd: 1, currentUsageUsd: 0, burnRatePercent: 0, alertThresholdPercent: 50, status: 'HEALTHY', tenantId: null, managedBy: 'PLATFORM', hardLimitEnabled: false, alertWebhookUrl: null },
    });
    const { key } = await createKey(agentCode);

    // $0.499 = 49.9 %: below the threshold.
    fake.set({ usage: { prompt_tokens: 449, completion_tokens: 50 } });
    expect((await chat(key, 'x'.repeat(450))).status).toBe(200);
    expect(await budgetOf(agentCode)).toMatchObject({ currentUsageUsd: 0.499, burnRatePercent: 49.9, status: 'HEALTHY' });

    // + $0.001 = exactly 50.00 %: "at or above" the threshold.
    fake.set({ usage: { prompt_tokens: 1, completion_tokens: 0 } });
    expect((await chat(key, 'hi')).status).toBe(200);
    expect(await budgetOf(agentCode)).toMatchObject({ currentUsageUsd: 0.5, burnRatePercent: 50, status: 'WARNING_THRESHOLD_EXCEEDED' });

    // Rounding to two decimals: 0.5 / 3 = 16.666...% and 0.5 / 0.7 = 71.428...%.
    expect((await setBudget({ agentCode, monthlyBudgetUsd: 3 })).body.budget).toMatchObject({ allocatedUsd: 3, currentUsageUsd: 0.5, burnRatePercent: 16.67, alertThresholdPercent: 50, status: 'HEALTHY' });
    expect((await setBudget({ agentCode, monthlyBudgetUsd: 0.7 })).body.budget).toMatchObject({ burnRatePercent: 71.43, status: 'WARNING_THRESHOLD_EXCEEDED' });
    expect(await budgetOf(agentCode)).toMatchObject({ allocatedUsd: 0.7, burnRatePercent: 71.43 });

    // Validation: 422 in the OpenAI error shape, naming the field.
    const invalid: [Record<string, unknown>, string][] = [
      [{ monthlyBudgetUsd: 1 }, 'agentCode'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: -1 }, 'monthlyBudgetUsd'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertThresholdPercent: 0 }, 'alertThresholdPercent'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertThresholdPercent: 150 }, 'alertThresholdPercent'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertWebhookUrl: 'not a url' }, 'alertWebhookUrl'],
      // The SSRF guard: addresses that are not public (and not allow-listed) are refused when set.
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertWebhookUrl: 'http://169.254.169.254/latest/meta-data/' }, 'alertWebhookUrl'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertWebhookUrl: 'http://[::1]:8080/alert' }, 'alertWebhookUrl'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertWebhookUrl: 'http://0.0.0.0:8080/alert' }, 'alertWebhookUrl'],
      [{ agentCode: 'bad-budget', monthlyBudgetUsd: 1, alertWebhookUrl: 'http://127.0.0.2:8080/alert' }, 'alertWebhookUrl'],
    ];
    for (const [input, field] of invalid) {
      const reply = await setBudget(input);
      expect({ input, status: reply.status }).toEqual({ input, status: 422 });
      expect(reply.body).toEqual({ error: { type: 'invalid_request_error', param: field, code: 'validation-failed', message: expect.stringContaining(field) } });
    }
    const { rows } = await db.query(`select count(*)::int as n from llm.agent where code = 'bad-budget'`);
    expect(rows[0].n).toBe(0);

    // An agent key is the wrong kind of key (403); no key at all is 401.
    const wrongKey = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(key), json: { agentCode, monthlyBudgetUsd: 100 } });
    expect(wrongKey.status).toBe(403);
    expect(wrongKey.body.error).toMatchObject({ type: 'permission_error' });
    const noKey = await call(`${platform.bridge}/admin/v1/budgets`, { json: { agentCode, monthlyBudgetUsd: 100 } });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error).toMatchObject({ code: 'invalid_api_key' });
    expect((await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(key) })).status).toBe(403);
    expect((await call(`${platform.bridge}/admin/v1/budgets`)).status).toBe(401);
    expect((await periodRow(agentCode)).allocated).toBe(0.7);
  });

  it('alerts: one signed THRESHOLD_CROSSED per period (retried until delivered), one HARD_LIMIT_REACHED, never delaying the request', async () => {
    const agentCode = 'alert-agent';
    // The first threshold delivery is slow (3 s) and fails, the second fails, the third succeeds.
    // The hard-limit delivery is slow (3 s) too.
    const receiver = await startAlertReceiver({
      THRESHOLD_CROSSED: [{ status: 500, delayMs: 3000 }, { status: 500 }],
      HARD_LIMIT_REACHED: [{ status: 200, delayMs: 3000 }],
    });
    try {
      // "hi" reserves (11 + 10) x $0.001 = $0.021 and costs 20 x $0.001 = $0.02.
      expect(usd(promptBound([{ content: 'hi' }]) + 10)).toBe(0.021);
      const set = await setBudget({ agentCode, monthlyBudgetUsd: 0.1, hardLimitEnabled: true, alertThresholdPercent: 50, alertWebhookUrl: receiver.url });
      expect(set.body.budget).toMatchObject({ hardLimitEnabled: true, alertWebhookUrl: receiver.url, status: 'HEALTHY' });
      const { key } = await createKey(agentCode);
      const timed = async () => {
        const started = Date.now();
        const reply = await chat(key, 'hi', { max_tokens: 10 });
        return { status: reply.status, ms: Date.now() - started };
      };

      expect((await timed()).status).toBe(200); // $0.02 = 20 %
      expect((await timed()).status).toBe(200); // $0.04 = 40 %
      const crossing = await timed(); // $0.06 = 60 %: crosses 50 %
      expect(crossing.status).toBe(200);
      expect(crossing.ms).toBeLessThan(1500);
      expect((await timed()).status).toBe(200); // $0.08 = 80 %: no second threshold alert
      const limited = await timed(); // 0.08 + 0.021 > 0.10: refused
      expect(limited.status).toBe(429);
      expect(limited.ms).toBeLessThan(1500);
      expect((await timed()).status).toBe(429); // refused again: no second hard-limit alert

      const period = currentPeriod();
      await eventually(() => receiver.of('THRESHOLD_CROSSED').length >= 3 && receiver.of('HARD_LIMIT_REACHED').some((r) => r.answeredAt), 15_000, 'three threshold deliveries and one hard-limit delivery');
      const alertRows = async () => (await db.query('select event, delivery_status, attempts, payload from llm.alert_event where agent_code = $1 order by event', [agentCode])).rows;
      await eventually(async () => (await alertRows()).every((r) => r.delivery_status === 'DELIVERED'), 5000, 'alerts marked DELIVERED');

      const threshold = receiver.of('THRESHOLD_CROSSED');
      expect(threshold).toHaveLength(3);
      expect(new Set(threshold.map((r) => r.raw)).size).toBe(1); // the same payload, three attempts
      expect(threshold[0]!.body).toEqual({
        agentCode, period, allocatedUsd: 0.1, currentUsageUsd: 0.06, burnRatePercent: 60, alertThresholdPercent: 50, event: 'THRESHOLD_CROSSED', occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      });
      const hard = receiver.of('HARD_LIMIT_REACHED');
      expect(hard).toHaveLength(1);
      expect(hard[0]!.body).toMatchObject({ agentCode, period, allocatedUsd: 0.1, currentUsageUsd: 0.08, burnRatePercent: 80, alertThresholdPercent: 50, event: 'HARD_LIMIT_REACHED' });

      for (const r of receiver.received) {
        const timestamp = String(r.headers['x-svc-timestamp']);
        expect(timestamp).toMatch(/^\d+$/);
        expect(Math.abs(Number(timestamp) - r.at / 1000)).toBeLessThan(60);
        expect(r.headers['content-type']).toMatch(/^application\/json/);
        expect(r.headers['x-svc-event']).toBe(`budget.${String(r.body.event).toLowerCase()}`);
        expect(r.headers['x-svc-signature']).toBe(`sha256=${createHmac('sha256', TEST_MASTER_KEY).update(`${timestamp}.${r.raw}`).digest('hex')}`);
      }

      expect(await alertRows()).toEqual([
        { event: 'HARD_LIMIT_REACHED', delivery_status: 'DELIVERED', attempts: 1, payload: hard[0]!.body },
        { event: 'THRESHOLD_CROSSED', delivery_status: 'DELIVERED', attempts: 3, payload: threshold[0]!.body },
      ]);
      // Nothing more arrives later: once per (agent, period, event).
      await new Promise((r) => setTimeout(r, 1200));
      expect(receiver.received).toHaveLength(4);
    } finally {
      await receiver.close();
    }
  });

  it('streams settle: an aborted stream is charged what was generated, a completed one the upstream usage', async () => {
    const agentCode = 'stream-agent';
    expect((await setBudget({ agentCode, monthlyBudgetUsd: 10 })).status).toBe(200);
    const { key } = await createKey(agentCode);
    // 36 words echoed back one per chunk ("echo: w000 ... w035").
    const prompt = Array.from({ length: 36 }, (_, i) => `w${String(i).padStart(3, '0')}`).join(' ');
    const answer = `echo: ${prompt}`;
    const streamBody = JSON.stringify({ model: 'fast-track', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: prompt }], svcllm_options: { cacheBypass: true } });
    const post = (signal?: AbortSignal) => fetch(`${platform.bridge}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: streamBody, signal });
    const newRow = async (before: number, outcome: string) => eventually(async () => (await ledgerOf(agentCode)).slice(before).find((r) => r.outcome === outcome), 5000, `a ledger row with outcome ${outcome}`);
    const settled = async () => eventually(async () => (await periodRow(agentCode)).reserved === 0 && (await reservationsOf(agentCode)) === 0, 5000, 'the reservation released');

    // 1. The client reads three words of a slow stream, then goes away.
    fake.set({ chunkDelayMs: 50, omitUsage: true });
    const controller = new AbortController();
    const response = await post(controller.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while ((seen.match(/"content":"[^"]+"/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    const abortedAt = Date.now();
    controller.abort();
    await reader.cancel().catch(() => undefined);
    expect(seen).not.toContain('[DONE]');
    const aborted = await newRow(0, 'aborted');
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    await settled();
    expect(Number(aborted.cost_usd)).toBeGreaterThan(0);
    expect(aborted.prompt_tokens).toBeGreaterThan(0);
    expect(aborted.completion_tokens).toBeGreaterThan(0);
    expect(Number(aborted.cost_usd)).toBe(usd(aborted.prompt_tokens + aborted.completion_tokens));
    expect(Number(aborted.cost_usd)).toBeLessThan(usd(promptBound([{ content: prompt }]) + MAX_OUTPUT_TOKENS)); // the reservation
    expect((await periodRow(agentCode)).spent).toBe(Number(aborted.cost_usd));

    // 2. The full answer to the same prompt, counted the same way (the upstream reports no usage):
    //    the same prompt count, more completion tokens, a higher cost.
    fake.set({ omitUsage: true });
    const full = await (await post()).text();
    expect(full).toContain('data: [DONE]');
    const estimated = await newRow(1, 'ok');
    await settled();
    expect(estimated.prompt_tokens).toBe(aborted.prompt_tokens);
    expect(estimated.completion_tokens).toBeGreaterThan(aborted.completion_tokens);
    expect(Number(aborted.cost_usd)).toBeLessThan(Number(estimated.cost_usd));

    // 3. A completed stream settles to the usage the upstream reports.
    const upstreamUsage = { prompt_tokens: 70, completion_tokens: 45 };
    fake.set({ usage: upstreamUsage });
    const text = await (await post()).text();
    expect(text).toContain('data: [DONE]');
    const events = text.split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)));
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('')).toBe(answer);
    expect(events.at(-1).usage).toMatchObject(upstreamUsage);
    const reported = await newRow(2, 'ok');
    await settled();
    expect(reported).toMatchObject(upstreamUsage);
    expect(Number(reported.cost_usd)).toBe(usd(115));
    const total = [aborted, estimated, reported].reduce((sum, r) => sum + Number(r.cost_usd), 0);
    expect((await periodRow(agentCode)).spent).toBeCloseTo(total, 8);
  });

  it('keys: created with sk-svc- and shown once, listed without the key, revoked at once, stored only as a SHA-256 hash', async () => {
    const agentCode = 'key-agent';
    const created = await admin('/admin/v1/keys', { json: { agentCode, name: 'ci' } });
    expect(created.status).toBe(201);
    const { id, key } = created.body;
    expect(created.body).toMatchObject({ agentCode, name: 'ci', keyPrefix: `${key.slice(0, 11)}...` });
    expect(key).toMatch(/^sk-svc-[A-Za-z0-9_-]{40,}$/);

    const listed = await admin(`/admin/v1/keys?agentCode=${agentCode}`);
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toEqual([expect.objectContaining({ id, agentCode, name: 'ci', keyPrefix: created.body.keyPrefix, revokedAt: null })]);
    expect(listed.body.keys[0]).not.toHaveProperty('key');
    expect(listed.text).not.toContain(key);

    const { rows } = await db.query('select * from llm.api_key where id = $1', [id]);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(rows[0].key_hash).not.toBe(key);
    expect(JSON.stringify(rows[0])).not.toContain(key);

    expect((await chat(key, 'before revocation')).status).toBe(200);
    const revoked = await admin(`/admin/v1/keys/${id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id, agentCode, revokedAt: expect.any(String) });
    const refused = await chat(key, 'after revocation');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'invalid_api_key' });
    expect((await admin(`/admin/v1/keys?agentCode=${agentCode}`)).body.keys[0].revokedAt).toEqual(expect.any(String));

    const unknown = await admin(`/admin/v1/keys/${randomUUID()}`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ message: expect.stringContaining('No API key') });
  });

  it('the sweeper charges expired holds in full when the gateway starts (a crash over-charges, never under-charges)', async () => {
    const agentCode = 'sweep-agent';
    expect((await setBudget({ agentCode, monthlyBudgetUsd: 5, hardLimitEnabled: true })).status).toBe(200);
    const { key } = await createKey(agentCode);
    expect((await chat(key, 'hi', { max_tokens: 10 })).status).toBe(200);
    const period = currentPeriod();
    // Settlement follows the answer, and the idle lease is given back.
    await eventually(async () => ((await periodRow(agentCode)).reserved === 0 ? true : undefined), 8000, 'the idle lease to be given back');
    expect(await periodRow(agentCode)).toMatchObject({ spent: 0.02, reserved: 0 });
    // A crashed request's hold (expired) and a live one (not yet expired).
    const stale = randomUUID();
    const live = randomUUID();
    await db.query(
      `insert into llm.reservation (id, agent_code, period, amount_usd, expires_at) values
         ($1, $3, $4, 0.25, now() - interval '1 minute'), ($2, $3, $4, 0.1, now() + interval '10 minutes')`,
      [stale, live, agentCode, period],
    );
    await db.query('update llm.budget_period set reserved_usd = reserved_usd + 0.35 where agent_code = $1 and period = $2', [agentCode, period]);
    expect(await periodRow(agentCode)).toMatchObject({ reserved: 0.35 });

    await platform.stop();
    running = false;
    platform = await startTestPlatform(env, { reuse: { databaseUrl: platform.databaseUrl, redisPrefix: platform.redisPrefix } });
    running = true;

    const { rows } = await db.query('select id from llm.reservation where agent_code = $1', [agentCode]);
    expect(rows.map((r) => r.id)).toEqual([live]);
    expect(await periodRow(agentCode)).toMatchObject({ spent: 0.27, reserved: 0.1 });
    const unsettled = await db.query("select cost_usd from llm.usage_ledger where agent_code = $1 and outcome = 'unsettled'", [agentCode]);
    expect(unsettled.rows.map((r) => Number(r.cost_usd))).toEqual([0.25]);
    // The restarted gateway still serves the agent, with the remaining hold counted.
    expect((await chat(key, 'hi', { max_tokens: 10 })).status).toBe(200);
    // The request's lease is given back once idle (2 s): then only the live hold is left.
    await eventually(async () => ((await periodRow(agentCode)).reserved === 0.1 ? true : undefined), 8000, 'the idle lease to be given back');
    expect(await periodRow(agentCode)).toMatchObject({ spent: 0.29, reserved: 0.1 });
  });
});
