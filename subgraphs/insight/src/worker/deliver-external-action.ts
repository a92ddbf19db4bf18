import type { Agenda } from '@svc/kit';
import { type AgendaJob, DELIVER_EXTERNAL_ACTION } from './analysis-queue.js';
import type { HandOff } from './execute-approved-action.js';

/**
 * The `insight.deliver-external` job: posts an approved EXTERNAL action to its tenant's
 * operator webhook (service/external-actions.ts), retried with backoff; the delivery records
 * the action's outcome. Call before agenda.start().
 */
export function defineDeliverExternalAction(agenda: Agenda, external: Pick<HandOff, 'deliver'>): void {
  agenda.define(DELIVER_EXTERNAL_ACTION, async (job: AgendaJob<{ actionId: string }>) => {
    const { retryAt } = await external.deliver(job.attrs.data.actionId);
    // A new entry: agenda clears this one's next run when the handler returns.
    if (retryAt) await agenda.schedule(retryAt, DELIVER_EXTERNAL_ACTION, { actionId: job.attrs.data.actionId });
  }, { concurrency: 2, lockLifetime: 60_000 });
}
