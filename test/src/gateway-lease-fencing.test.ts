import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';
import { call, gql } from './support/http.js';
import { TEST_MASTER_KEY } from './support/platform.js';
import { createTestDatabase } from './support/services.js';

/**
 * Two real `svc llm` processes on one database, budget leases with a 2 s TTL and a main pool of
 * two connections. (1) Under 300 concurrent requests while the test holds the budget row locked
 * (so settlements and grows wait, holding the whole pool), renewals still get through on their
 * own connection: no lease ever expires and nothing is charged as unsettled. (2) The second
 * instance is SIGSTOPped with requests in flight and more queued, past its TTL, under load: the
 * first instance's sweep charges its lease in full and spends the rest of the budget; on SIGCONT
 * the stalled instance's answers settle at no cost (fenced: the lease is gone), its queued
 * requests must re-acquire and are refused, total spend never passes the hard limit, and no
 * lease is charged twice.
 */

const USAGE = { prompt_tokens: 10, completion_tokens: 10 };
/** USD per request: 10 prompt + 10 completion tokens at 1000 USD per million each. */
const COST = 0.02;
/** The hard limit of the stalled-instance agent. */
const ALLOCATED = 100 * COST;

let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let locker: pg.Client | undefined;
let a: ServiceProcess;
let b: ServiceProcess;
const keys: Record<string, string> = {};

async function admin(gateway: ServiceProcess, query: string, variables: Record<string, unknown> = {}) {
  const reply = await gql(`${gateway.url}/graphql`, query, variables, { authorization: `Bearer ${TEST_MASTER_KEY}` });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data;
}

/**
 * One metered request: `answered`, the refusal as `<status> <code>`, or `cut off` (a request
 * queued on a kept-alive socket while the process was stopped can meet that socket's idle timeout
 * when it resumes: the server closes it unread).
 */
async function chat(gateway: ServiceProcess, agentCode: string): Promise<string> {
  try {
    const reply = await call(`${gateway.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${keys[agentCode]}` },
      json: { model: 'fast-track', max_tokens: 10, messages: [{ role: 'user', content: 'Say ten words.' }], svcllm_options: { cacheBypass: true } },
    });
    return reply.status === 200 ? 'answered' : `${reply.status} ${reply.body?.error?.code}`;
  } catch {
    return 'cut off';
  }
}

const count = (outcomes: string[], outcome: string) => outcomes.filter((o) => o === outcome).length;

/** The agent's money, read in one snapshot (a settlement commits spending and ledger lines together). */
async function money(agentCode: string) {
  await sql.query('begin isolation level repeatable read read only');
  try {
    return await moneyNow(agentCode);
  } finally {
    await sql.query('commit');
  }
}

async function moneyNow(agentCode: string) {
  const { rows: [period] } = await sql.query('select coalesce(sum(spent_usd), 0)::float8 as spent, coalesce(sum(reserved_usd), 0)::float8 as reserved from llm.budget_period where agent_code = $1', [agentCode]);
  const { rows: [leases] } = await sql.query('select count(*)::int as n from llm.budget_lease where agent_code = $1', [agentCode]);
  const { rows: [ledger] } = await sql.query("select coalesce(sum(cost_usd), 0)::float8 as usd, count(*) filter (where outcome = 'unsettled')::int as unsettled from llm.usage_ledger where agent_code = $1", [agentCode]);
  return { spent: period.spent as number, reserved: period.reserved as number, leases: leases.n as number, ledgerUsd: ledger.usd as number, unsettled: ledger.unsettled as number };
}

beforeAll(async () => {
  fake = await startFakeOpenAi({ usage: USAGE });
  const config = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'metered', provider: 'fake', inputPerMTok: 1000, outputPerMTok: 1000, maxOutputTokens: 10 }],
    aliases: { 'fast-track': ['metered'], 'deep-reasoning': ['metered'] },
  });
  database = await createTestDatabase();
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  const env = { SVCLLM_CONFIG: config, SVCLLM_LEASE_TTL_SECONDS: '2', DB_POOL_MAX: '2', SVC_REDIS_PREFIX: `svctest:fencing:${process.pid}:` };
  a = await startServiceProcess('llm', database.url, env);
  b = await startServiceProcess('llm', database.url, env);
  for (const agentCode of ['busy', 'fenced']) keys[agentCode] = (await admin(a, 'mutation($agentCode: String!) { createApiKey(agentCode: $agentCode) { key } }', { agentCode })).createApiKey.key;
  await admin(a, 'mutation($input: SetBudgetInput!) { setBudget(input: $input) { agentCode } }', { input: { agentCode: 'busy', monthlyBudgetUsd: 1000 } });
  await admin(a, 'mutation($input: SetBudgetInput!) { setBudget(input: $input) { agentCode } }', { input: { agentCode: 'fenced', monthlyBudgetUsd: ALLOCATED, hardLimitEnabled: true } });
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await locker?.end().catch(() => undefined);
  await sql?.end();
  await database?.drop();
  await fake?.close();
});

describe('budget leases under load and stalls', () => {
  it('renews leases on their own connection: 300 concurrent requests while settlements wait for a locked budget row never let a lease expire', async () => {
    expect(await chat(a, 'busy')).toBe('answered'); // the period row and a lease exist
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query("select 1 from llm.budget_period where agent_code = 'busy' for update");
    const load = Promise.all(Array.from({ length: 300 }, () => chat(a, 'busy')));
    // Three TTLs with settlements and grows queued on the locked row, holding the pool.
    const samples: { leases: number; expired: number; at: number }[] = [];
    const start = Date.now();
    const until = start + 6000;
    while (Date.now() < until) {
      const { rows: [row] } = await sql.query("select count(*)::int as leases, count(*) filter (where expires_at < now())::int as expired from llm.budget_lease where agent_code = 'busy'");
      samples.push({ ...row, at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await locker.query('rollback');
    await locker.end();
    locker = undefined;
    const outcomes = await load;
    expect(count(outcomes, 'answered')).toBe(300);
    // The samples watch all three TTLs, none more than a TTL (2 s) apart, however slow a busy
    // machine makes each read (a count of samples failed on a loaded CI run: 10, not 11).
    const gaps = samples.map((x, i) => x.at - (i ? samples[i - 1]!.at : start));
    expect(samples.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...gaps)).toBeLessThan(2000);
    expect(samples.at(-1)!.at - start).toBeGreaterThanOrEqual(4000);
    expect(samples.every((s) => s.leases >= 1 && s.expired === 0)).toBe(true);
    const after = await eventually(async () => {
      const m = await money('busy');
      return m.ledgerUsd >= 301 * COST - 1e-9 ? m : undefined;
    }, 20_000, 'the busy agent to be settled');
    expect(after.unsettled).toBe(0); // no lease was swept from under a live instance
    expect(after.spent).toBeCloseTo(301 * COST, 6);
  }, 60_000);

  it('a SIGSTOPped instance past its TTL never double-charges or overshoots the hard limit', async () => {
    const warm = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 ? a : b, 'fenced')));
    expect(count(warm, 'answered')).toBe(20);

    // In flight on b: the upstream answers them while b is stopped.
    fake.set({ usage: USAGE, delayMs: 1500 });
    const upstreamBefore = fake.calls.length;
    const inFlight = Array.from({ length: 10 }, () => chat(b, 'fenced'));
    await eventually(() => fake.calls.length - upstreamBefore >= 10, 10_000, 'the requests to reach the upstream');
    b.child.kill('SIGSTOP');
    fake.set({ usage: USAGE });
    // Queued on b's socket while it is stopped.
    const queued = Array.from({ length: 10 }, () => chat(b, 'fenced'));

    // a's sweep charges b's lease in full once it has expired...
    const swept = await eventually(async () => (await sql.query("select lease_id, created_at from llm.usage_ledger where agent_code = 'fenced' and outcome = 'unsettled'")).rows[0], 20_000, "the sweep to charge the stalled instance's lease");
    // ...and a spends what is left, under load, until the hard limit refuses.
    const onA: string[] = [];
    for (let round = 0; round < 20 && !onA.some((o) => o !== 'answered'); round++) onA.push(...(await Promise.all(Array.from({ length: 10 }, () => chat(a, 'fenced')))));
    expect(onA.filter((o) => o !== 'answered').every((o) => o === '429 insufficient_quota')).toBe(true);
    expect(count(onA, '429 insufficient_quota')).toBeGreaterThan(0);
    const beforeResume = await money('fenced');
    expect(beforeResume.spent + beforeResume.reserved).toBeLessThanOrEqual(ALLOCATED + 1e-9);

    b.child.kill('SIGCONT');
    const stalled = await Promise.all(inFlight);
    const late = await Promise.all(queued);
    expect(stalled).toEqual(Array.from({ length: 10 }, () => 'answered')); // the client got its answers...
    // ...and nothing more was admitted on the dead lease: the queued requests had to re-acquire, and the budget was spent.
    expect(late.every((o) => o === '429 insufficient_quota' || o === 'cut off')).toBe(true);
    expect(count(late, '429 insufficient_quota')).toBeGreaterThan(0);

    const end = await eventually(async () => {
      const m = await money('fenced');
      return m.leases === 0 && m.reserved === 0 ? m : undefined;
    }, 20_000, 'every lease to be given back');
    expect(end.spent).toBeLessThanOrEqual(ALLOCATED + 1e-9); // never past the hard limit
    expect(end.ledgerUsd).toBeCloseTo(end.spent, 6); // every dollar spent has its ledger line
    const answered = count(warm, 'answered') + count(onA, 'answered') + count(stalled, 'answered');
    expect(end.spent).toBeGreaterThanOrEqual(answered * COST - 1e-9); // never under-charged
    // The swept lease was charged once: what its instance settled after the sweep cost nothing.
    const { rows: afterSweep } = await sql.query("select outcome, cost_usd::float8 as cost from llm.usage_ledger where lease_id = $1 and outcome <> 'unsettled' and created_at > $2", [swept.lease_id, swept.created_at]);
    expect(afterSweep.length).toBe(10); // the ten answers b settled on resuming...
    expect(afterSweep.every((line) => line.outcome === 'ok' && line.cost === 0)).toBe(true); // ...fenced: at no cost
    expect(b.output()).toContain('budget lease expired and was charged in full by the sweep');
  }, 90_000);
});
