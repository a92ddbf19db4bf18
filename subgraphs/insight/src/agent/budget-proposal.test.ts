import { describe, expect, it } from '@jest/globals';
import { proposalProblems } from '../domain/proposal-check.js';
import { budgetProposal } from './budget-proposal.js';

describe('a budget that will run out', () => {
  const reading = { agentCode: 'scout', allocatedUsd: 10, currentUsageUsd: 9, projectedMonthUsd: 22.5, hardLimitEnabled: true };
  const finding = { index: 0, title: 'Agent scout has used 90% of its budget', detail: '$9 of $10 this month' };

  it('raises it to the projection with headroom, keeps the hard limit, and says when it runs out and how that was estimated', () => {
    const p = budgetProposal(reading, 30, finding)!;
    expect(proposalProblems(p, 1)).toEqual([]);
    expect(p).toMatchObject({
      kind: 'BUDGET_CHANGE', targetType: 'Agent', targetId: 'scout', undoable: true, finding,
      params: { monthlyBudgetUsd: 27, hardLimitEnabled: true },
      expectedImpact: { horizon: 30, horizonDays: 30, p10: 22.5, p50: 22.5, p90: 22.5, unit: 'USD', method: expect.stringContaining('straight line') },
    });
    // $10 at $22.50 a month lasts 10/22.5 of 30 days.
    expect(p.rationale).toContain('runs out around day 13 of 30');
    expect(p.undo).toContain('$10');
  });

  it('proposes nothing for a budget that lasts the month', () => {
    expect(budgetProposal({ ...reading, projectedMonthUsd: 9.5 }, 30)).toBeUndefined();
  });
});
