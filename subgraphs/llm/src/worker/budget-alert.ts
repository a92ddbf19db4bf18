import type { Agenda } from '@svc/kit';
import type { AlertKey } from '../domain/budget-alert.js';
import type { AlertDelivery } from '../service/alert-delivery.js';
import type { AlertQueue } from '../service/budget-alerts.js';

/** agenda job name of one budget alert's delivery. */
const BUDGET_ALERT = 'llm.budget-alert';

/**
 * The `llm.budget-alert` job: posts one stored budget alert to its agent's webhook (one attempt
 * is service/alert-delivery.ts) and, after a failed attempt, schedules the next one with backoff
 * until the alert is delivered or given up (it survives restarts). Alerts are raised, stored once
 * and queued here by service/budget-alerts.ts.
 */
export function createBudgetAlertJob(agenda: Agenda) {
  const queue: AlertQueue = {
    async enqueue(agentCode, period, event) {
      await agenda.now(BUDGET_ALERT, { agentCode, period, event });
    },
  };
  return {
    queue,
    /** Registers the handler; call before agenda.start(). */
    define(delivery: Pick<AlertDelivery, 'deliver'>) {
      agenda.define(BUDGET_ALERT, async (job: { attrs: { data: AlertKey } }) => {
        const outcome = await delivery.deliver(job.attrs.data);
        if (outcome.retryAt) await agenda.schedule(outcome.retryAt, BUDGET_ALERT, job.attrs.data);
      });
    },
  };
}
