import type { Budget } from './budget.js';
import type { UsageRow } from './usage.js';

/**
 * An agent or department that spends on models: its budget, and this month's usage, read only
 * when asked for (a getter, which GraphQL reads only for a query that selects it: the 50 action
 * cards' agents ask for the budget alone).
 */
export interface Agent {
  code: string;
  budget: Budget;
  readonly usage: Promise<UsageRow[]>;
}
