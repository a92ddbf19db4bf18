import { seededRandom, type Logger } from '@svc/kit';
import { DEMO_AGENT, demoUsage } from '../domain/demo-usage.js';
import { periodOf } from '../domain/period.js';
import type { BudgetStore } from '../store/budget-store.js';

const DEMO_SEED = 7;

/**
 * The embedded demo's model gateway agent (domain/demo-usage.ts): its budget and this month's
 * requests so far, once; an agent of that name already there (seeded before, or made by a person)
 * is left as it is.
 */
export async function seedDemo(budgets: BudgetStore, log: Logger, now = new Date()): Promise<void> {
  const requests = demoUsage(now, seededRandom(DEMO_SEED));
  if (!(await budgets.seedAgent(DEMO_AGENT, periodOf(now), requests))) return;
  const spent = requests.reduce((sum, r) => sum + r.entry.costUsd, 0);
  log.info({ agent: DEMO_AGENT.agentCode, budgetUsd: DEMO_AGENT.monthlyBudgetUsd, requests: requests.length, spentUsd: Math.round(spent * 100) / 100 }, 'seeded the demo model agent and its spend this month');
}
