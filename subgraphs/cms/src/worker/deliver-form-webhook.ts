import type { Agenda, Logger, OutboundHttp } from '@svc/kit';
import type { WebhookQueue } from '../service/submit-form.js';
import { deliverWebhook } from '../service/webhook-delivery.js';
import type { SubmissionStore } from '../store/submission-store.js';

const WEBHOOK = 'cms.form-webhook';

/**
 * The `cms.form-webhook` job: delivers a form submission to the form's webhook (it survives
 * restarts). A webhook's durable record is its submission row (the outbox, see
 * store/migrations.ts); the agenda job is only a prompt nudge. `sweep` delivers every due one
 * whose job was never queued (the process died between the two, or queueing failed) or was
 * lost; it runs at start and then periodically.
 */
export function createDeliverFormWebhook(agenda: Agenda, submissions: SubmissionStore, http: Pick<OutboundHttp, 'fetch'>, log: Logger, retryBaseMs: number) {
  const queue: WebhookQueue = {
    async enqueue(submissionId) {
      await agenda.now(WEBHOOK, { submissionId });
    },
  };
  async function deliver(submissionId: string): Promise<void> {
    const outcome = await deliverWebhook(submissions, http, submissionId, retryBaseMs, log);
    if (outcome.retryAt) await agenda.schedule(outcome.retryAt, WEBHOOK, { submissionId });
  }
  return {
    queue,
    /** Delivers the due PENDING webhooks (at most `batch`); returns how many were due. */
    async sweep(batch = 100): Promise<number> {
      const due = await submissions.dueWebhooks(batch);
      for (const submissionId of due) await deliver(submissionId);
      if (due.length) log.info({ due: due.length }, 'webhook outbox swept');
      return due.length;
    },
    /** Registers the handler; call before agenda.start(). */
    define() {
      agenda.define(WEBHOOK, (job: { attrs: { data: { submissionId: string } } }) => deliver(job.attrs.data.submissionId));
    },
  };
}
