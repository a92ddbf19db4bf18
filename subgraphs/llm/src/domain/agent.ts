import type { Budget } from './budget.js';
import type { UsageRow } from './usage.js';

/** Agent codes: letters, digits, `.`, `_` and `-`, at most 64, starting with a letter or digit. */
export const AGENT_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** An agent or department that spends on models: its budget, and this month's usage. */
export interface Agent {
  code: string;
  budget: Budget;
  usage: UsageRow[];
}
