import { describe, expect, it } from '@jest/globals';
import { proposalProblems } from '../domain/proposal-check.js';
import { asksAboutModelBudgets, budgetAnswer, budgetProposal, readsModelBudgets } from './budget-proposal.js';

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

describe('whether the budgets last, in words', () => {
  const scout = { agentCode: 'scout', allocatedUsd: 10, currentUsageUsd: 9, projectedMonthUsd: 22.5, hardLimitEnabled: true };
  const lasting = { agentCode: 'pilot', allocatedUsd: 100, currentUsageUsd: 20, projectedMonthUsd: 40, hardLimitEnabled: false };

  it('answers no for a budget that runs out, with the day and what the hard limit does, and yes for one that lasts', () => {
    expect(budgetAnswer([scout], 30)).toBe("No: agent scout has spent $9.00 of its $10.00 budget this month and at this pace spends $22.50 by the month's end, so the budget runs out around day 13 of 30 and the agent stops then (its hard limit is on).");
    expect(budgetAnswer([{ ...scout, hardLimitEnabled: false }], 30)).toContain('its hard limit is off, so it keeps working and overspends');
    expect(budgetAnswer([lasting], 30)).toBe("Yes: agent pilot has spent $20.00 of its $100 budget this month and at this pace spends $40.00 by the month's end, within the budget.");
  });

  it('names the budgets that run out among several, and leaves out agents without a budget', () => {
    const unset = { agentCode: 'crawl', allocatedUsd: 0, currentUsageUsd: 0, projectedMonthUsd: 0, hardLimitEnabled: false };
    expect(budgetAnswer([lasting, scout, unset], 30)).toBe("No: 1 of 2 budgets run out before the month ends. Agent scout has spent $9.00 of its $10.00 budget this month and at this pace spends $22.50 by the month's end, so the budget runs out around day 13 of 30 and the agent stops then (its hard limit is on).");
    expect(budgetAnswer([lasting, { ...lasting, agentCode: 'other' }], 30)).toBe('Yes: all 2 budgets last the month at the pace so far.');
    expect(budgetAnswer([unset], 30)).toBeUndefined();
  });

  it('tells a question about the model budgets from one about another budget', () => {
    expect(readsModelBudgets('is our budget enough this month?')).toBe(true);
    expect(readsModelBudgets('why did model spend jump?')).toBe(true);
    expect(readsModelBudgets('why did revenue drop after the ad budget cut?')).toBe(false);
    expect(asksAboutModelBudgets('is the budget enough for our model spend?', true)).toBe(true);
    // A metric answered the question and nothing names the model side: the budget is not what was asked about.
    expect(asksAboutModelBudgets('did we stay within budget on bookings?', true)).toBe(false);
    expect(asksAboutModelBudgets('did we stay within budget?', false)).toBe(true);
    expect(asksAboutModelBudgets('why did model spend jump?', false)).toBe(false);
  });
});
