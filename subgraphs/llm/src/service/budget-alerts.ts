import type { Logger } from '@svc/kit';
import { alertPayload, type AlertEvent } from '../domain/budget-alert.js';
import { pastThreshold } from '../domain/budget-status.js';
import type { AlertStore } from '../store/alert-store.js';
import type { BudgetStore } from '../store/budget-store.js';

export interface AlertQueue {
  /** Durably queues delivery of a stored alert. */
  enqueue(agentCode: string, period: string, event: AlertEvent): Promise<void>;
}

export interface BudgetAlertDeps {
  budgets: BudgetStore;
  alerts: AlertStore;
  queue: AlertQueue;
  log: Logger;
  clock: () => Date;
}

/** Raises budget alerts: stored once per (agent, period, event), then delivered by a job. */
export function createBudgetAlerts({ budgets, alerts, queue, log, clock }: BudgetAlertDeps) {
  /** (agent, period, event) already stored, so hot paths skip the database after the first time. */
  const raised = new Set<string>();

  async function raise(agentCode: string, period: string, event: AlertEvent): Promise<void> {
    const key = `${agentCode}\u0000${period}\u0000${event}`;
    if (raised.has(key)) return;
    const budget = await budgets.budget(agentCode, period);
    if (!budget) return;
    const inserted = await alerts.insertOnce({ agentCode, period, event }, alertPayload(budget, agentCode, period, event, clock()), budget.alertWebhookUrl ? 'PENDING' : 'NONE');
    raised.add(key);
    if (!inserted) return;
    log.warn({ agentCode, period, event, burnRatePercent: budget.burnRatePercent }, 'budget alert');
    if (budget.alertWebhookUrl) await queue.enqueue(agentCode, period, event).catch((error: unknown) => log.error({ err: error, agentCode, event }, 'could not queue budget alert'));
  }

  return {
    raise,

    /** Raises THRESHOLD_CROSSED when the agent's budget is at or past its threshold. */
    async checkThreshold(agentCode: string, period: string): Promise<void> {
      const budget = await budgets.budget(agentCode, period);
      if (budget && pastThreshold(budget)) await raise(agentCode, period, 'THRESHOLD_CROSSED');
    },
  };
}

export type BudgetAlerts = ReturnType<typeof createBudgetAlerts>;
