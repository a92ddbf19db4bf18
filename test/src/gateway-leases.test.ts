import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, openDatabase, type MikroORM } from '@svc/kit';
import { createBudgetService, type BudgetService } from '@svc/llm/service/budget-service';
import { createBudgetStore } from '@svc/llm/store/budget-store';
import { LLM_MIGRATIONS } from '@svc/llm/store/migrations';
import pg from 'pg';
import { budgetStores } from './support/budget-stores.js';
import { createTestDatabase } from './support/services.js';

/**
 * Budget leases across gateway instances sharing one PostgreSQL: two budget services, each with
 * its own connection pool, admit requests in memory against leases they grow under the hard
 * limit. Whatever the interleaving, the agent is never charged past its allocation, nothing is
 * held once both stop, and an instance that dies holding leases and answered-but-unwritten
 * requests leaves the agent over-charged at most, never under-charged.
 */

const log = createLogger({ level: 'silent' });
const COST = 0.01;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
const orms: MikroORM[] = [];

async function instance(name: string, leaseTtlMs?: number): Promise<BudgetService> {
  const orm = await openDatabase({ url: db.url, schema: 'llm', entities: [], migrations: LLM_MIGRATIONS, poolMax: 10, log });
  orms.push(orm);
  return createBudgetService(budgetStores(orm, leaseTtlMs), { enqueue: async () => undefined }, log, { instance: name });
}

async function money(agentCode: string) {
  const { rows } = await sql.query('select spent_usd::float8 as spent, reserved_usd::float8 as reserved from llm.budget_period where agent_code = $1', [agentCode]);
  const leases = await sql.query('select count(*)::int as n from llm.budget_lease where agent_code = $1', [agentCode]);
  const ledger = await sql.query("select count(*)::int as n, coalesce(sum(cost_usd), 0)::float8 as usd from llm.usage_ledger where agent_code = $1 and outcome = 'ok'", [agentCode]);
  return { spent: rows[0].spent as number, reserved: rows[0].reserved as number, leases: leases.rows[0].n as number, answered: ledger.rows[0].n as number, ledgerUsd: ledger.rows[0].usd as number };
}

/** One request's life: admitted (or refused), answered, settled at its full worst case. */
async function request(budgets: BudgetService, agentCode: string): Promise<boolean> {
  try {
    const hold = await budgets.reserve(agentCode, COST);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    budgets.settle(hold, { kind: 'chat', requestedModel: 'm', promptTokens: 1, completionTokens: 1, costUsd: COST, cached: false, outcome: 'ok' });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== 'BUDGET_EXCEEDED') throw error;
    return false;
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  for (const orm of orms) await orm.close().catch(() => undefined);
  await db?.drop();
});

describe('budget leases across instances', () => {
  it('admits exactly what fits across two instances, 400 concurrent requests for a budget of 100', async () => {
    const [a, b] = [await instance('gateway-a'), await instance('gateway-b')];
    await a.set({ agentCode: 'shared', monthlyBudgetUsd: 100 * COST, hardLimitEnabled: true });
    const admitted = (await Promise.all(Array.from({ length: 400 }, (_, i) => request(i % 2 ? a : b, 'shared')))).filter(Boolean).length;
    await Promise.all([a.drain(), b.drain()]);
    const after = await money('shared');
    process.stdout.write(`two instances, 400 requests, budget fits 100: ${admitted} admitted, spent $${after.spent.toFixed(2)} of $1.00\n`);
    expect(admitted).toBe(100); // every request costs its full worst case here, so exactly 100 fit
    expect(after).toEqual({ spent: 100 * COST, reserved: 0, leases: 0, answered: 100, ledgerUsd: 100 * COST });
  });

  it('an instance that dies holding leases and unwritten answers over-charges at most, and the hard limit holds', async () => {
    const survivor = await instance('gateway-c');
    const doomed = await instance('gateway-d');
    await survivor.set({ agentCode: 'crash', monthlyBudgetUsd: 50 * COST, hardLimitEnabled: true });
    const answered = (await Promise.all(Array.from({ length: 30 }, () => request(doomed, 'crash')))).filter(Boolean).length;
    // The doomed instance dies now: no flush, no give-back (its pool is simply cut).
    await orms.at(-1)!.close(true);
    const admittedLater = (await Promise.all(Array.from({ length: 60 }, () => request(survivor, 'crash')))).filter(Boolean).length;
    await survivor.drain();
    // Its leases expire; the sweep charges them in full.
    await createBudgetStore(orms.at(-2)!).chargeExpired(new Date(Date.now() + 10 * 60_000));
    const after = await money('crash');
    expect(answered).toBe(30);
    expect(after.leases).toBe(0);
    expect(after.reserved).toBe(0);
    expect(after.spent).toBeGreaterThanOrEqual((answered + admittedLater) * COST - 1e-9); // never under-charged
    expect(after.spent).toBeLessThanOrEqual(50 * COST + 1e-9); // never past the allocation
    // Every dollar spent is on record for an admin: answered lines plus the sweep's 'unsettled' lines
    // (whether the dead instance had written its answers before it died is a matter of timing).
    const ledger = await sql.query("select coalesce(sum(cost_usd), 0)::float8 as usd from llm.usage_ledger where agent_code = 'crash' and outcome in ('ok', 'unsettled')");
    expect(ledger.rows[0].usd).toBeCloseTo(after.spent, 9);
  });

  it('a lease swept while its instance stalled is fenced: its late settlements charge nothing, and new requests re-acquire under the limit', async () => {
    const stalled = await instance('gateway-e', 800);
    await stalled.set({ agentCode: 'stall', monthlyBudgetUsd: 20 * COST, hardLimitEnabled: true });
    const holds = await Promise.all(Array.from({ length: 3 }, () => stalled.reserve('stall', COST)));
    const [leaseId] = new Set(holds.map((h) => h.leaseId));
    // The instance "stalls": another one's sweep finds its lease expired and charges it in full.
    expect(await createBudgetStore(orms.at(-1)!).chargeExpired(new Date(Date.now() + 10 * 60_000))).toBe(1);
    const swept = await money('stall');
    expect(swept.leases).toBe(0);
    // It resumes: its answered requests settle against the swept lease...
    for (const hold of holds) stalled.settle(hold, { kind: 'chat', requestedModel: 'm', promptTokens: 1, completionTokens: 1, costUsd: COST, cached: false, outcome: 'ok' });
    // ...and new requests are admitted only after re-acquiring: a new lease, grown under the hard limit.
    await new Promise((resolve) => setTimeout(resolve, 700)); // past the old lease's local deadline
    const later = (await Promise.all(Array.from({ length: 40 }, () => request(stalled, 'stall')))).filter(Boolean).length;
    await stalled.drain();
    const after = await money('stall');
    const lines = await sql.query("select outcome, cost_usd::float8 as cost from llm.usage_ledger where agent_code = 'stall' and lease_id = $1", [leaseId]);
    const charged = lines.rows.filter((l) => l.cost > 0);
    expect(charged).toEqual([{ outcome: 'unsettled', cost: swept.spent }]); // the swept lease was charged once, by the sweep
    expect(lines.rows.filter((l) => l.outcome === 'ok')).toHaveLength(3); // its late answers are on record, at no cost
    expect(after.leases).toBe(0);
    expect(after.reserved).toBe(0);
    expect(after.spent).toBeLessThanOrEqual(20 * COST + 1e-9); // never past the hard limit
    expect(after.spent).toBeCloseTo(swept.spent + later * COST, 6);
    expect(later).toBe(Math.floor((20 * COST - swept.spent + 1e-9) / COST)); // exactly what was left
  });
  it('writes every field of each answered request to the ledger, one line per request, under its lease', async () => {
    const budgets = await instance('gateway-lines');
    await budgets.set({ agentCode: 'lines', monthlyBudgetUsd: 10, hardLimitEnabled: true });
    const entries = [
      { kind: 'chat', requestedModel: 'fast-track', model: 'small', deployment: 'openai', promptTokens: 12, completionTokens: 34, costUsd: 0.00012345, cached: false, outcome: 'ok', requestId: 'req-1' },
      // Quotes, a backslash and non-ASCII travel as data; absent fields are null.
      { kind: 'embedding', requestedModel: `it's "q" \\ é`, promptTokens: 7, completionTokens: 0, costUsd: 0, cached: false, outcome: 'error' },
    ] as const;
    for (const entry of entries) budgets.settle(await budgets.reserve('lines', 0.01), entry);
    await budgets.drain();
    const { rows } = await sql.query(
      `select kind, requested_model, model, deployment, prompt_tokens, completion_tokens, cost_usd::text as cost, cached, outcome, request_id, lease_id is not null as leased, id is not null as has_id
         from llm.usage_ledger where agent_code = 'lines' and period is not null order by prompt_tokens desc`,
    );
    expect(rows).toEqual([
      { kind: 'chat', requested_model: 'fast-track', model: 'small', deployment: 'openai', prompt_tokens: 12, completion_tokens: 34, cost: '0.00012345', cached: false, outcome: 'ok', request_id: 'req-1', leased: true, has_id: true },
      { kind: 'embedding', requested_model: `it's "q" \\ é`, model: null, deployment: null, prompt_tokens: 7, completion_tokens: 0, cost: '0.00000000', cached: false, outcome: 'error', request_id: null, leased: true, has_id: true },
    ]);
  });
});
