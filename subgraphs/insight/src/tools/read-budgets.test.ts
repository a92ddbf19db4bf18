import { describe, expect, it } from '@jest/globals';
import { readBudgets } from './read-budgets.js';
import type { BudgetSummary, GraphReads } from '../service/graph-reads.js';
import type { ToolContext } from './tool.js';

const budget = (agentCode: string, allocatedUsd: number, currentUsageUsd: number): BudgetSummary => ({
  agentCode, allocatedUsd, currentUsageUsd, burnRatePercent: Math.round((currentUsageUsd / allocatedUsd) * 10_000) / 100, alertThresholdPercent: 80, status: 'HEALTHY', hardLimitEnabled: false,
});

async function projections(budgets: BudgetSummary[], now: string) {
  const ctx = { graph: { budgets: async () => budgets } as unknown as GraphReads, now: () => Date.parse(now) } as unknown as ToolContext;
  const result = await readBudgets.run(ctx, { agent_code: '' });
  return Object.fromEntries((result.data as { budgets: (BudgetSummary & { projectedMonthUsd: number })[] }).budgets.map((b) => [b.agentCode, b.projectedMonthUsd]));
}

describe('read_budgets', () => {
  it('projects the month-end spend from the pace so far: cents for dollars, three significant figures below', async () => {
    // 10 of 30 days gone (November): a third of the month.
    expect(await projections([budget('marketing', 300, 120), budget('tiny', 0.0001, 0.00389)], '2026-11-11T00:00:00Z')).toEqual({ marketing: 360, tiny: 0.0117 });
  });

  it('never projects less than is spent already, and never rounds a small overrun away', async () => {
    const late = await projections([budget('insight', 0.0001, 0.00389)], '2026-11-24T17:00:00Z');
    expect(late.insight).toBeGreaterThan(0.0001);
    expect(late.insight).toBeGreaterThanOrEqual(0.00389);
    // Early on the first day the pace is not meaningful yet: the projection is what is spent.
    expect(await projections([budget('insight', 1, 0.5)], '2026-11-01T06:00:00Z')).toEqual({ insight: 0.5 });
  });
});
