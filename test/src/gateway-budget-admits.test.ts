import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createLogger, openDatabase, type MikroORM } from '@svc/kit';
import { admits } from '@svc/llm/domain/budget';
import { createLeaseStore, type LeaseStore } from '@svc/llm/store/lease-store';
import { LLM_MIGRATIONS } from '@svc/llm/store/migrations';
import pg from 'pg';
import { createTestDatabase } from './support/services.js';

/**
 * The hard limit has one rule, domain/budget.ts `admits`; the lease store applies it to the
 * period row it locks in PostgreSQL. Whatever the allocation, spending and holds stored, and the
 * amount asked, the store grows a lease exactly when the rule admits it, moves exactly that
 * amount into the holds when it does, and changes nothing when it does not.
 */

const PERIOD = '2026-01';
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let sql: pg.Client;
let leases: LeaseStore;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openDatabase({ url: db.url, schema: 'llm', entities: [], migrations: LLM_MIGRATIONS, poolMax: 2, log: createLogger({ level: 'silent' }) });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  leases = createLeaseStore(orm, { ttlMs: 60_000 });
});
afterAll(async () => {
  await sql?.end();
  await orm?.close();
  await db?.drop();
});

/** Stores the budget as given (micro-dollars), with no lease. */
async function store(agentCode: string, hardLimitEnabled: boolean, m: { allocated: number; spent: number; reserved: number }): Promise<void> {
  await sql.query(
    `insert into llm.agent (code, monthly_budget_usd, hard_limit_enabled) values ($1, $2::numeric / 1e6, $3)
     on conflict (code) do update set monthly_budget_usd = excluded.monthly_budget_usd, hard_limit_enabled = excluded.hard_limit_enabled`,
    [agentCode, m.allocated, hardLimitEnabled],
  );
  await sql.query('delete from llm.budget_lease where agent_code = $1', [agentCode]);
  await sql.query(
    `insert into llm.budget_period (agent_code, period, spent_usd, reserved_usd) values ($1, $2, $3::numeric / 1e6, $4::numeric / 1e6)
     on conflict (agent_code, period) do update set spent_usd = excluded.spent_usd, reserved_usd = excluded.reserved_usd`,
    [agentCode, PERIOD, m.spent, m.reserved],
  );
}

/** What PostgreSQL holds for the agent, in micro-dollars (exact: the columns have 8 decimals). */
async function held(agentCode: string): Promise<{ reserved: number; spent: number; leased: number }> {
  const { rows } = await sql.query(
    `select (bp.reserved_usd * 1e6)::bigint::text as reserved, (bp.spent_usd * 1e6)::bigint::text as spent,
            (select coalesce(sum(amount_usd), 0) * 1e6 from llm.budget_lease l where l.agent_code = bp.agent_code)::bigint::text as leased
       from llm.budget_period bp where bp.agent_code = $1 and bp.period = $2`,
    [agentCode, PERIOD],
  );
  return { reserved: Number(rows[0].reserved), spent: Number(rows[0].spent), leased: Number(rows[0].leased) };
}

/** Budgets up to the contract's largest ($1e9), the amount drawn around what is left so that the boundary is hit often. */
const cases = fc
  .record({
    hardLimitEnabled: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
    allocated: fc.oneof(fc.integer({ min: 0, max: 100 * 1e6 }), fc.integer({ min: 0, max: 1e9 * 1e6 })),
    spent: fc.integer({ min: 0, max: 1e9 * 1e6 }),
    reserved: fc.integer({ min: 0, max: 1e9 * 1e6 }),
    near: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
    delta: fc.integer({ min: -3, max: 3 }),
    far: fc.integer({ min: 0, max: 1e9 * 1e6 }),
  })
  .map(({ hardLimitEnabled, allocated, spent, reserved, near, delta, far }) => {
    // Spending and holds mostly within the allocation, as the limit keeps them.
    const within = { spent: Math.min(spent, allocated), reserved: Math.min(reserved, Math.max(0, allocated - Math.min(spent, allocated))) };
    const m = { allocated, ...(near ? within : { spent, reserved }) };
    return { hardLimitEnabled, ...m, amount: near ? Math.max(0, allocated - m.spent - m.reserved + delta) : far };
  });

describe('the hard limit in PostgreSQL (lease-store grow) and in the rule (admits)', () => {
  it('agree on every budget, and the store moves exactly the amount it admits', async () => {
    let admitted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        await store('prop', c.hardLimitEnabled, c);
        const rule = admits({ hardLimitEnabled: c.hardLimitEnabled, allocatedUsd: c.allocated / 1e6, spentUsd: c.spent / 1e6, reservedUsd: c.reserved / 1e6 }, c.amount / 1e6);
        const outcome = await leases.grow({ id: randomUUID(), agentCode: 'prop', period: PERIOD, instance: 'property' }, c.amount / 1e6, true);
        expect({ case: c, outcome }).toEqual({ case: c, outcome: rule ? 'grown' : 'refused' });
        expect(await held('prop')).toEqual(rule ? { reserved: c.reserved + c.amount, spent: c.spent, leased: c.amount } : { reserved: c.reserved, spent: c.spent, leased: 0 });
        if (rule) admitted++;
        else refused++;
      }),
      { numRuns: 300 },
    );
    // Both sides of the limit were exercised.
    expect(admitted).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(30);
  });

  it('agree at the exact boundary: the last micro-dollar that fits is admitted, one more is refused', async () => {
    for (const [amount, outcome] of [[2_500_000, 'grown'], [2_500_001, 'refused']] as const) {
      await store('edge', true, { allocated: 10_000_000, spent: 4_000_000, reserved: 3_500_000 });
      expect(admits({ hardLimitEnabled: true, allocatedUsd: 10, spentUsd: 4, reservedUsd: 3.5 }, amount / 1e6)).toBe(outcome === 'grown');
      expect(await leases.grow({ id: randomUUID(), agentCode: 'edge', period: PERIOD, instance: 'property' }, amount / 1e6, true)).toBe(outcome);
    }
  });
});
