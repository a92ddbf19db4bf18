import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
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
 * it has not written yet, and has requests in flight; then started again on the same database.
 * Whatever the timing, every request the client saw answered is paid for (the ledger's lines
 * add up to the agent's spending, which is at least what was answered), the hard limit holds
 * before and after, and once the dead instance's lease has expired the sweep leaves no lease
 * or reservation behind. The agent's usage as the API reports it is the database's figure.
 */

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
/** USD per request: 10 prompt + 10 completion tokens at 1000 USD per million each. */
const COST = 0.02;
const FITS = 30;
const LEASE_TTL_SECONDS = 2;

let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let configFile: string;
let port: number;
let key: string;
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

/** One metered chat request; true when it was answered 200, false when the budget refused it. */
async function chat(): Promise<boolean> {
  const reply = await call(`${base()}/v1/chat/completions`, {
    headers: { authorization: `Bearer ${key}` },
    json: { model: 'fast-track', max_tokens: 10, messages: [{ role: 'user', content: 'Say ten words.' }], svcllm_options: { cacheBypass: true } },
  });
  if (reply.status === 429) return false;
  expect(reply.status).toBe(200);
  return true;
}

async function money() {
  const { rows: [period] } = await sql.query("select coalesce(sum(spent_usd), 0)::float8 as spent, coalesce(sum(reserved_usd), 0)::float8 as reserved from llm.budget_period where agent_code = 'crash'");
  const { rows: [leases] } = await sql.query("select count(*)::int as n from llm.budget_lease where agent_code = 'crash'");
  const { rows: ledger } = await sql.query("select outcome, count(*)::int as n, sum(cost_usd)::float8 as usd from llm.usage_ledger where agent_code = 'crash' group by outcome");
  const line = (outcome: string) => ledger.find((r) => r.outcome === outcome) ?? { n: 0, usd: 0 };
  return { spent: period.spent as number, reserved: period.reserved as number, leases: leases.n as number, ok: line('ok'), unsettled: line('unsettled') };
}

beforeAll(async () => {
  fake = await startFakeOpenAi({ delayMs: 300, usage: { prompt_tokens: 10, completion_tokens: 10 } });
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
  await sql?.end();
  await database?.drop();
  await fake?.close();
});

describe('a gateway process killed holding a budget lease', () => {
  it('leaves every answered request paid for, the hard limit held, and nothing reserved once the sweep has run', async () => {
    const doomed = await startGateway();
    key = (await admin('mutation { createApiKey(agentCode: "crash") { key } }')).createApiKey.key;
    await admin('mutation($input: SetBudgetInput!) { setBudget(input: $input) { agentCode } }', { input: { agentCode: 'crash', monthlyBudgetUsd: FITS * COST, hardLimitEnabled: true } });

    // A first wave answered; a second wave in flight when the process dies, right after the
    // first wave's answers (whose settlement is batched after them) have gone out.
    const first = await Promise.all(Array.from({ length: 10 }, () => chat()));
    const second = Array.from({ length: 10 }, () => chat().catch(() => 'cut off' as const));
    await new Promise((resolve) => setTimeout(resolve, 100));
    doomed.kill('SIGKILL');
    const secondOutcomes = await Promise.all(second);
    const answered = first.filter((ok) => ok).length + secondOutcomes.filter((o) => o === true).length;
    expect(first.every((ok) => ok)).toBe(true);
    expect(secondOutcomes.filter((o) => o === 'cut off').length).toBeGreaterThan(0);

    const atCrash = await money();
    expect(atCrash.leases).toBeGreaterThan(0); // the dead instance's lease is still there...
    expect(atCrash.spent + atCrash.reserved).toBeLessThanOrEqual(FITS * COST + 1e-9); // ...and the limit holds

    // Restarted after the lease has expired: the sweep at start charges it in full.
    await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_SECONDS * 1000 + 500));
    await startGateway();
    const swept = await eventually(async () => {
      const m = await money();
      return m.leases === 0 && m.reserved === 0 ? m : undefined;
    }, 20_000, 'the sweep to charge the dead lease');
    expect(swept.spent).toBeGreaterThanOrEqual(answered * COST - 1e-9); // never under-charged
    expect(swept.spent).toBeLessThanOrEqual(FITS * COST + 1e-9); // never past the hard limit
    expect(swept.ok.usd + swept.unsettled.usd).toBeCloseTo(swept.spent, 6); // the ledger accounts for all of it
    expect(swept.ok.n).toBeLessThanOrEqual(answered);

    // The restarted instance admits what is left, and no more: requests are admitted by their
    // worst case (prompt estimate + max_tokens, a little above COST), so it stops with less than
    // one worst case left.
    let admitted = 0;
    while (await chat()) admitted++;
    const after = await money();
    expect(admitted).toBeGreaterThan(0);
    expect(after.spent).toBeLessThanOrEqual(FITS * COST + 1e-9);
    expect(FITS * COST - after.spent).toBeLessThan(2 * COST);
    expect(after.spent).toBeCloseTo(swept.spent + admitted * COST, 6);
    const usage = (await admin('query { agent(code: "crash") { budget { currentUsageUsd allocatedUsd } } }')).agent.budget;
    expect(usage.currentUsageUsd).toBeCloseTo(after.spent, 4);
    expect(usage.allocatedUsd).toBeCloseTo(FITS * COST, 6);
  }, 90_000);
});
