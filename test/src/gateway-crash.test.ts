import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './support/platform.js';
import { freePort } from './support/ports.js';
import { createTestDatabase } from './support/services.js';

/**
 * A gateway process killed with SIGKILL while it holds a budget lease, has answered requests
 * whose charge is not written yet, and has requests in flight; then started again on the same
 * database. Nothing is left to timing: the test holds the agent's budget row locked, so the
 * answers' settlement is waiting inside its transaction when the process dies, and the upstream
 * holds the last requests until after the kill. Every request the client saw answered is paid
 * for (the ledger's lines add up to the agent's spending, which is at least what was answered,
 * though the answered-but-unwritten ones never got a line of their own), the hard limit holds
 * before and after, once the dead instance's lease has expired the sweep leaves no lease or
 * reservation behind, and the agent's usage as the API reports it is the database's figure.
 */

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const USAGE = { prompt_tokens: 10, completion_tokens: 10 };
/** USD per request: 10 prompt + 10 completion tokens at 1000 USD per million each. */
const COST = 0.02;
/** What the gateway holds per request until it is answered: the prompt's bound (23 tokens for the message `chat` sends) plus max_tokens 10. */
const WORST = 0.033;
/** The hard limit: the lease's first slice (32 worst cases) fits, and a few requests more. */
const ALLOCATED = 60 * COST;
const LEASE_TTL_SECONDS = 2;

let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let configFile: string;
let port: number;
let key: string;
/** Holds the agent's budget row locked while it is set (settlement waits for it). */
let locker: pg.Client | undefined;
const children: ChildProcess[] = [];
const base = () => `http://127.0.0.1:${port}`;

/** `svc llm` as its own process, as a deployment runs it; resolves once it serves. */
async function startGateway(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SVC, 'llm'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: database.url,
      SVC_REDIS_PREFIX: `svctest:crash:${process.pid}:`,
      SVC_JWT_SECRET: TEST_JWT_SECRET,
      SVCLLM_MASTER_KEY: TEST_MASTER_KEY,
      SVCLLM_CONFIG: configFile,
      SVCLLM_LEASE_TTL_SECONDS: String(LEASE_TTL_SECONDS),
      SVC_LLM_PORT: String(port),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await eventually(async () => (child.exitCode !== null || (await fetch(`${base()}/ready`).then((r) => r.ok, () => false)) ? true : undefined), 30_000, 'the gateway to serve');
  if (child.exitCode !== null) throw new Error(`svc llm exited with ${child.exitCode}:\n${output}`);
  return child;
}

async function admin(query: string, variables: Record<string, unknown> = {}) {
  const reply = await gql(`${base()}/graphql`, query, variables, { authorization: `Bearer ${TEST_MASTER_KEY}` });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data;
}

/** One metered chat request: `answered` (200), the refusal as `<status> <code>`, or `cut off` when the process died under it. */
async function chat(): Promise<string> {
  try {
    const reply = await call(`${base()}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${key}` },
      json: { model: 'fast-track', max_tokens: 10, messages: [{ role: 'user', content: 'Say ten words.' }], svcllm_options: { cacheBypass: true } },
    });
    return reply.status === 200 ? 'answered' : `${reply.status} ${reply.body?.error?.code}`;
  } catch {
    return 'cut off';
  }
}

const times = (n: number, outcome: string) => Array.from({ length: n }, () => outcome);

async function money() {
  const { rows: [period] } = await sql.query("select coalesce(sum(spent_usd), 0)::float8 as spent, coalesce(sum(reserved_usd), 0)::float8 as reserved from llm.budget_period where agent_code = 'crash'");
  const { rows: [leases] } = await sql.query("select count(*)::int as n from llm.budget_lease where agent_code = 'crash'");
  const { rows: ledger } = await sql.query("select outcome, count(*)::int as n, sum(cost_usd)::float8 as usd from llm.usage_ledger where agent_code = 'crash' group by outcome");
  const line = (outcome: string) => ledger.find((r) => r.outcome === outcome) ?? { n: 0, usd: 0 };
  return { spent: period.spent as number, reserved: period.reserved as number, leases: leases.n as number, ok: line('ok'), unsettled: line('unsettled') };
}

beforeAll(async () => {
  fake = await startFakeOpenAi({ usage: USAGE });
  configFile = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'metered', provider: 'fake', inputPerMTok: 1000, outputPerMTok: 1000, maxOutputTokens: 10 }],
    aliases: { 'fast-track': ['metered'], 'deep-reasoning': ['metered'] },
  });
  database = await createTestDatabase();
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  port = await freePort();
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await locker?.end();
  await sql?.end();
  await database?.drop();
  await fake?.close();
});

describe('a gateway process killed holding a budget lease', () => {
  it('leaves every answered request paid for, the hard limit held, and nothing reserved once the sweep has run', async () => {
    const doomed = await startGateway();
    key = (await admin('mutation { createApiKey(agentCode: "crash") { key } }')).createApiKey.key;
    await admin('mutation($input: SetBudgetInput!) { setBudget(input: $input) { agentCode } }', { input: { agentCode: 'crash', monthlyBudgetUsd: ALLOCATED, hardLimitEnabled: true } });

    // Answered and written: the first request grows the lease by a slice, then settlement writes 'ok' lines.
    const written = await Promise.all(Array.from({ length: 4 }, chat));
    expect(written).toEqual(times(4, 'answered'));
    const beforeLock = await eventually(async () => {
      const m = await money();
      return m.ok.n === written.length ? m : undefined;
    }, 10_000, 'the first answers to be settled');
    // The slice left covers the next 20 requests: they are admitted in memory, never touching the locked row.
    expect(beforeLock.reserved).toBeGreaterThanOrEqual(20 * WORST);

    // Answered, not written: their settlement waits for the budget row the test holds.
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query("select 1 from llm.budget_period where agent_code = 'crash' for update");
    const unwritten = await Promise.all(Array.from({ length: 10 }, chat));
    expect(unwritten).toEqual(times(10, 'answered'));

    // In flight: the upstream holds these until well after the kill.
    fake.set({ usage: USAGE, delayMs: 3000 });
    const upstreamCalls = fake.calls.length;
    const inFlight = Array.from({ length: 10 }, chat);
    await eventually(() => fake.calls.length - upstreamCalls === 10, 10_000, 'the last requests to reach the upstream');
    const gone = once(doomed, 'exit');
    doomed.kill('SIGKILL');
    await gone;
    expect(await Promise.all(inFlight)).toEqual(times(10, 'cut off'));
    const answered = written.length + unwritten.length;

    const atCrash = await money();
    expect(atCrash.ok.n).toBe(written.length); // the unwritten answers have no ledger line...
    expect(atCrash.leases).toBe(1); // ...the dead instance's lease holds their cost...
    expect(atCrash.spent + atCrash.reserved).toBeLessThanOrEqual(ALLOCATED + 1e-9); // ...and the limit holds
    // Let the dead process's settlement through: its connection is gone, so it is rolled back.
    await locker.query('rollback');
    await locker.end();
    locker = undefined;

    // Restarted: once the dead lease has expired, the sweep charges it in full.
    fake.set({ usage: USAGE });
    await startGateway();
    const swept = await eventually(async () => {
      const m = await money();
      return m.leases === 0 && m.reserved === 0 ? m : undefined;
    }, 20_000, 'the sweep to charge the dead lease');
    expect(swept.ok.n).toBe(written.length);
    expect(swept.unsettled.n).toBe(1);
    expect(swept.ok.usd + swept.unsettled.usd).toBeGreaterThanOrEqual(answered * COST - 1e-9); // never under-charged
    expect(swept.ok.usd + swept.unsettled.usd).toBeCloseTo(swept.spent, 6); // the ledger accounts for all the spending
    expect(swept.spent).toBeLessThanOrEqual(ALLOCATED + 1e-9); // never past the hard limit

    // The restarted instance admits what is left, and no more: it refuses once one more worst case would not fit.
    let admitted = 0;
    let outcome: string;
    while ((outcome = await chat()) === 'answered') admitted++;
    expect(outcome).toBe('429 insufficient_quota');
    expect(admitted).toBeGreaterThan(0);
    const idle = await eventually(async () => {
      const m = await money();
      return m.leases === 0 && m.reserved === 0 ? m : undefined;
    }, 20_000, 'the idle lease to be given back');
    expect(idle.spent).toBeLessThanOrEqual(ALLOCATED + 1e-9);
    expect(ALLOCATED - idle.spent).toBeLessThan(WORST);
    expect(idle.spent).toBeCloseTo(swept.spent + admitted * COST, 6);
    expect(idle.ok.n).toBe(written.length + admitted);
    expect(idle.ok.usd + idle.unsettled.usd).toBeCloseTo(idle.spent, 6);
    const usage = (await admin('query { agent(code: "crash") { budget { currentUsageUsd allocatedUsd } } }')).agent.budget;
    expect(usage.currentUsageUsd).toBeCloseTo(idle.spent, 6);
    expect(usage.allocatedUsd).toBeCloseTo(ALLOCATED, 6);
  }, 90_000);
});
