import type { ProposalFinding, ProposedAction } from '../domain/report.js';

/** A model gateway budget as `read_budgets` reports it. */
export interface BudgetReading {
  agentCode: string;
  allocatedUsd: number;
  currentUsageUsd: number;
  projectedMonthUsd: number;
  hardLimitEnabled: boolean;
}

/** The raise leaves this much headroom over the month-end projection. */
export const BUDGET_HEADROOM = 1.2;

/**
 * A budget that will run out before the month ends (its month-end projection exceeds its
 * allocation) → raise it to the projection plus headroom (BUDGET_CHANGE), keeping its hard
 * limit as it is. The projection is a straight line through the month's spend so far: the
 * gateway reports the month's total, not its days, so there is no interval to state, and the
 * method says so. Undefined when the budget lasts.
 */
export function budgetProposal(b: BudgetReading, daysInMonth: number, finding?: ProposalFinding): ProposedAction | undefined {
  const { agentCode: agent, allocatedUsd: allocated, currentUsageUsd: used, projectedMonthUsd: projected } = b;
  if (!(projected > allocated) || !(allocated >= 0) || !(daysInMonth > 0)) return undefined;
  const proposed = Math.ceil(projected * BUDGET_HEADROOM);
  // Days of the month behind the projection, and the day the allocation is used up at that pace.
  const elapsed = projected > 0 ? Math.min(daysInMonth, (used / projected) * daysInMonth) : daysInMonth;
  const runsOut = Math.max(1, Math.floor((allocated / projected) * daysInMonth));
  return {
    kind: 'BUDGET_CHANGE',
    title: `Raise agent ${agent}'s monthly budget to $${proposed}`,
    rationale: `At its current pace agent ${agent} spends $${projected} this month against $${allocated} allocated, so the budget runs out around day ${runsOut} of ${daysInMonth}${b.hardLimitEnabled ? '; with the hard limit on, the agent stops working then' : '; the hard limit is off, so it keeps working but overspends'}.`,
    targetType: 'Agent',
    targetId: agent,
    params: { monthlyBudgetUsd: proposed, hardLimitEnabled: b.hardLimitEnabled === true },
    expectedImpact: {
      metric: `llm.cost_usd{agent=${agent}}`,
      horizon: daysInMonth,
      horizonDays: daysInMonth,
      p10: projected,
      p50: projected,
      p90: projected,
      unit: 'USD',
      method: `the month's spend so far ($${used} over about ${Math.max(1, Math.round(elapsed))} days) extended in a straight line to the month's end; the gateway reports the month's total, not its days, so no interval`,
    },
    undoable: true,
    undo: `Set agent ${agent}'s budget back to $${allocated} (another BUDGET_CHANGE).`,
    ...(finding ? { finding } : {}),
  };
}
