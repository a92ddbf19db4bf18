import type { MikroORM } from '@svc/kit';
import type { BudgetStores } from '@svc/llm/service/budget-service';
import { LEASE_TTL_MS } from '@svc/llm/service/budget-leases';
import { createAlertStore } from '@svc/llm/store/alert-store';
import { createBudgetStore } from '@svc/llm/store/budget-store';
import { createLeaseStore } from '@svc/llm/store/lease-store';
import { createUsageStore } from '@svc/llm/store/usage-store';

/** The stores a budget service works on, over one database, as llm-subgraph.ts builds them. */
export function budgetStores(orm: MikroORM, leaseTtlMs: number = LEASE_TTL_MS): BudgetStores {
  return { budgets: createBudgetStore(orm), usage: createUsageStore(orm), alerts: createAlertStore(orm), leases: createLeaseStore(orm, { ttlMs: leaseTtlMs }) };
}
