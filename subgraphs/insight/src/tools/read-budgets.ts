import { z } from 'zod';
import type { BudgetSummary } from '../service/graph-reads.js';
import { defineTool, fig, type ToolResult } from './tool.js';

/** What read_budgets finds: the month, its days, and each budget with its month-end projection (no month when the gateway cannot be reached). */
export interface BudgetsData {
  month?: string;
  daysInMonth?: number;
  budgets: (BudgetSummary & { projectedMonthUsd: number })[];
}

const usd = (value: number): number => (value >= 1 ? fig(value) : Number(value.toPrecision(3)));

export const readBudgets = defineTool({
  name: 'read_budgets',
  description: 'Reads the model gateway budgets: per agent the monthly allocation, usage so far, burn rate and alert threshold.',
  input: z.object({ agent_code: z.string().max(64).default('').describe('Only this agent; empty for all.') }),
  async run(ctx, args): Promise<ToolResult<BudgetsData>> {
    if (!ctx.graph) return { data: { budgets: [] }, summary: 'The model gateway is not reachable from here.' };
    const now = new Date(ctx.now());
    const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    const elapsedDays = (now.getTime() - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) / 86_400_000;
    const budgets = (await ctx.graph.budgets())
      .filter((b) => !args.agent_code || b.agentCode === args.agent_code)
      .map((b) => ({
        ...b,
        // Never below what is spent already; cents for dollars, three significant figures below a
        // dollar (a $0.0001 budget's projection must not round to $0 and hide the overrun).
        projectedMonthUsd: usd(Math.max(b.currentUsageUsd, elapsedDays > 0.5 ? (b.currentUsageUsd / elapsedDays) * daysInMonth : b.currentUsageUsd)),
      }));
    return {
      data: { month: now.toISOString().slice(0, 7), daysInMonth, budgets },
      summary: budgets.length
        ? budgets.map((b) => `${b.agentCode}: $${b.currentUsageUsd} of $${b.allocatedUsd} (${b.burnRatePercent}%, ${b.status}), month-end projection $${b.projectedMonthUsd}`).join('; ') + '.'
        : 'No budgets are set.',
    };
  },
});
