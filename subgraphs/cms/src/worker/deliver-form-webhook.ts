import { createOutboxDelivery, type Agenda, type Logger, type OutboundHttp } from '@svc/kit';
import type { WebhookQueue } from '../service/submit-form.js';
import { deliverWebhook } from '../service/webhook-delivery.js';
import type { SubmissionStore } from '../store/submission-store.js';

/**
 * The `cms.form-webhook` job: delivers a form submission to the form's webhook (it survives
 * restarts). A webhook's durable record is its submission row (the outbox, see
 * store/migrations.ts); the agenda job is only a prompt nudge, and `sweep` delivers every due one
 * whose job was never queued or was lost (kit outbox-delivery.ts).
 */
export function createDeliverFormWebhook(agenda: Agenda, submissions: SubmissionStore, http: Pick<OutboundHttp, 'fetch'>, log: Logger, retryBaseMs: number) {
  const outbox = createOutboxDelivery({
    agenda,
    job: 'cms.form-webhook',
    key: 'submissionId',
    attempt: async (submissionId) => (await deliverWebhook(submissions, http, submissionId, retryBaseMs, log)).retryAt,
    due: (limit) => submissions.dueWebhooks(limit),
    name: 'webhook',
    log,
  });
  const queue: WebhookQueue = { enqueue: (submissionId) => outbox.enqueue(submissionId) };
  return { queue, sweep: outbox.sweep, define: outbox.define };
}
