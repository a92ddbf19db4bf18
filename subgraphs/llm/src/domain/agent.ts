import type { Budget } from './budget.js';
import type { UsageRow } from './usage.js';

/** An agent or department that spends on models: its budget, and this month's usage. */
export interface Agent {
  code: string;
  budget: Budget;
  usage: UsageRow[];
}
