import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, openDatabase, type MikroORM } from '@svc/kit';
import { createBudgetService, type BudgetService } from '@svc/llm/service/budget-service';
import { LLM_MIGRATIONS } from '@svc/llm/store/migrations';
import { budgetStores } from './support/budget-stores.js';
import { createTestDatabase } from './support/services.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let budgets: BudgetService;

beforeAll(async () => {
  db = await createTestDatabase();
  const log = createLogger({ level: 'silent' });
  orm = await openDatabase({ url: db.url, schema: 'llm', entities: [], migrations: LLM_MIGRATIONS, poolMax: 20, log });
  budgets = createBudgetService(budgetStores(orm), { enqueue: async () => undefined }, log);
});
afterAll(async () => {
  await budgets?.drain();
  await orm?.close();
  await db?.drop();
});

describe('budget reservations on real PostgreSQL', () => {
  it('admits every one of many simultaneous first reservations of a month when the budget allows them', async () => {
    await budgets.set({ agentCode: 'fresh', monthlyBudgetUsd: 100, hardLimitEnabled: true });
    const outcomes = await Promise.allSettled(Array.from({ length: 64 }, () => budgets.reserve('fresh', 0.01)));
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason?.message)).toEqual([]);
    expect((await budgets.view('fresh'))!.reservedUsd).toBeCloseTo(0.64, 6);
  });

  it('never holds more than the allocation, however many reserve at once', async () => {
    await budgets.set({ agentCode: 'tight', monthlyBudgetUsd: 0.5, hardLimitEnabled: true });
    const outcomes = await Promise.allSettled(Array.from({ length: 64 }, () => budgets.reserve('tight', 0.01)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(50);
    const view = (await budgets.view('tight'))!;
    expect(view.reservedUsd).toBeCloseTo(0.5, 6);
    expect(view.remainingUsd).toBe(0);
  });
});
