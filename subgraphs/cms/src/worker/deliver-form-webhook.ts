import type { Agenda, Logger, OutboundHttp } from '@svc/kit';
import type { PublishScheduler, Publishing } from '../service/publishing.js';
import type { WebhookQueue } from '../service/submit-form.js';
import { deliverWebhook } from '../service/webhook-delivery.js';
import type { SubmissionStore } from '../store/submission-store.js';

const PUBLISH = 'cms.publish-scheduled';
const WEBHOOK = 'cms.form-webhook';

/**
 * The cms's durable jobs: scheduled publishing and form webhooks (both survive restarts).
 * A webhook's durable record is its submission row (the outbox, see store/migrations.ts); the
 * agenda job is only a prompt nudge. `sweepWebhooks` delivers every due one whose job was never
 * queued (the process died between the two, or queueing failed) or was lost; it runs at start
 * and then periodically.
 */
export function createCmsJobs(agenda: Agenda, submissions: SubmissionStore, http: Pick<OutboundHttp, 'fetch'>, log: Logger, retryBaseMs: number) {
  const scheduler: PublishScheduler = {
    async schedule(contentId, version, at) {
      await agenda.create(PUBLISH, { contentId, version }).unique({ 'data.contentId': contentId }).schedule(at).save();
    },
  };
  const webhooks: WebhookQueue = {
    async enqueue(submissionId) {
      await agenda.now(WEBHOOK, { submissionId });
    },
  };
  async function deliver(submissionId: string): Promise<void> {
    const outcome = await deliverWebhook(submissions, http, submissionId, retryBaseMs, log);
    if (outcome.retryAt) await agenda.schedule(outcome.retryAt, WEBHOOK, { submissionId });
  }
  return {
    scheduler,
    webhooks,
    /** Delivers the due PENDING webhooks (at most `batch`); returns how many were due. */
    async sweepWebhooks(batch = 100): Promise<number> {
      const due = await submissions.dueWebhooks(batch);
      for (const submissionId of due) await deliver(submissionId);
      if (due.length) log.info({ due: due.length }, 'webhook outbox swept');
      return due.length;
    },
    /** Registers the handlers; call before agenda.start(). */
    define(publishing: Pick<Publishing, 'publishScheduled'>) {
      agenda.define(PUBLISH, async (job: { attrs: { data: { contentId: string; version: number } } }) => {
        const { contentId, version } = job.attrs.data;
        const published = await publishing.publishScheduled(contentId, version);
        log.info({ contentId, version, published }, 'scheduled publish ran');
      });
      agenda.define(WEBHOOK, (job: { attrs: { data: { submissionId: string } } }) => deliver(job.attrs.data.submissionId));
    },
  };
}
