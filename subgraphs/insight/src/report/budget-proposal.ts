import type { ProposalFinding, ProposedAction } from '../domain/report.js';
import { formatValue } from '../engine/format.js';

/** A model gateway budget as `read_budgets` reports it. */
export interface BudgetReading {
  agentCode: string;
  allocatedUsd: number;
  currentUsageUsd: number;
  projectedMonthUsd: number;
  hardLimitEnabled: boolean;
}

/** Words of the model side: the gateway, its models, agents and tokens. */
const MODEL_SIDE = /\b(llm|model|models|tokens?|agent|agents|gateway|thinking)\b/;
const BUDGET_WORD = /\bbudgets?\b/;
/** A budget of something else: an ad, marketing or campaign budget is not the model gateway's. */
const OTHER_BUDGET = /\b(ad|ads|advertising|marketing|media|campaign|campaigns|search|social|display|travel|hiring|sales)\s+budgets?\b/;

/** Whether a question (lower case) concerns the model gateway: its side named, or a budget not named as another kind. */
export const readsModelBudgets = (text: string) => MODEL_SIDE.test(text) || (BUDGET_WORD.test(text) && !OTHER_BUDGET.test(text));

/**
 * Whether a question (lower case) asks about the model budgets themselves, so their answer leads:
 * it names a budget of the model side, or a budget of no other kind when no metric answered it.
 */
export const asksAboutModelBudgets = (text: string, metricAnswered: boolean) =>
  BUDGET_WORD.test(text) && !OTHER_BUDGET.test(text) && (!metricAnswered || MODEL_SIDE.test(text));

/** The raise leaves this much headroom over the month-end projection. */
export const BUDGET_HEADROOM = 1.2;

/** Days of the month behind the projection, and the day the allocation is used up at that pace. */
function pace(b: BudgetReading, daysInMonth: number): { elapsed: number; runsOut: number } {
  const { allocatedUsd: allocated, currentUsageUsd: used, projectedMonthUsd: projected } = b;
  return {
    elapsed: projected > 0 ? Math.min(daysInMonth, (used / projected) * daysInMonth) : daysInMonth,
    runsOut: Math.max(1, Math.floor((allocated / projected) * daysInMonth)),
  };
}

/** The readings with a budget to judge against (in a month with days). */
const budgeted = (readings: readonly BudgetReading[], daysInMonth: number) => readings.filter((b) => b.allocatedUsd > 0 && daysInMonth > 0);

const USD = { kind: 'currency', code: 'USD' } as const;
/** Dollars as a person reads them: cents below $100, whole dollars from there. */
export const usd = (v: number) => formatValue(v, USD);

/**
 * Whether the budgets last the month, in words, for a question about them: each agent with a
 * budget, those that run out first (at most three named). Undefined when no agent has one.
 */
export function budgetAnswer(readings: readonly BudgetReading[], daysInMonth: number): string | undefined {
  const set = budgeted(readings, daysInMonth);
  if (!set.length) return undefined;
  const short = set.filter((b) => b.projectedMonthUsd > b.allocatedUsd);
  const said = (b: BudgetReading) => {
    const spent = `agent ${b.agentCode} has spent ${usd(b.currentUsageUsd)} of its ${usd(b.allocatedUsd)} budget this month and at this pace spends ${usd(b.projectedMonthUsd)} by the month's end`;
    if (b.projectedMonthUsd <= b.allocatedUsd) return `${spent}, within the budget`;
    const stop = b.hardLimitEnabled ? ' and the agent stops then (its hard limit is on)' : '; its hard limit is off, so it keeps working and overspends';
    return `${spent}, so the budget runs out around day ${pace(b, daysInMonth).runsOut} of ${daysInMonth}${stop}`;
  };
  if (set.length === 1) return `${short.length ? 'No' : 'Yes'}: ${said(set[0]!)}.`;
  if (!short.length) return `Yes: all ${set.length} budgets last the month at the pace so far.`;
  const named = short.slice(0, 3).map((b) => said(b)).map((text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`).join(' ');
  return `No: ${short.length} of ${set.length} budgets run out before the month ends. ${named}${short.length > 3 ? ` ${short.length - 3} more run out too.` : ''}`;
}

/**
 * How far the budget answer holds: a straight line through the month's spend so far is surer the
 * more of the month it has seen (0.4 on its first day, 0.9 on its last). Undefined when no agent
 * has a budget.
 */
export function budgetConfidence(readings: readonly BudgetReading[], daysInMonth: number): { value: number; reason: string } | undefined {
  const set = budgeted(readings, daysInMonth);
  if (!set.length) return undefined;
  const elapsed = Math.max(...set.map((b) => pace(b, daysInMonth).elapsed));
  const day = Math.min(daysInMonth, Math.max(1, Math.round(elapsed)));
  return {
    value: Math.round((0.4 + (0.5 * day) / daysInMonth) * 100) / 100,
    reason: `A straight-line projection of this month's spend after day ${day} of ${daysInMonth}: the later in the month, the less the rest of it can change the answer.`,
  };
}

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
  const { elapsed, runsOut } = pace(b, daysInMonth);
  return {
    kind: 'BUDGET_CHANGE',
    title: `Raise agent ${agent}'s monthly budget to ${usd(proposed)}`,
    rationale: `At its current pace agent ${agent} spends ${usd(projected)} this month against ${usd(allocated)} allocated, so the budget runs out around day ${runsOut} of ${daysInMonth}${b.hardLimitEnabled ? '; with the hard limit on, the agent stops working then' : '; the hard limit is off, so it keeps working but overspends'}.`,
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
      method: `the month's spend so far (${usd(used)} over about ${Math.max(1, Math.round(elapsed))} days) extended in a straight line to the month's end; the gateway reports the month's total, not its days, so no interval`,
    },
    undoable: true,
    undo: `Set agent ${agent}'s budget back to ${usd(allocated)} (another BUDGET_CHANGE).`,
    ...(finding ? { finding } : {}),
  };
}
