import type { Agenda, Logger, OutboundHttp } from '@svc/kit';
import type { PublishScheduler, Publishing } from './service/publishing.js';
import type { WebhookQueue } from './service/submit-form.js';
import { deliverWebhook } from './service/webhook-delivery.js';
import type { SubmissionStore } from './store/submission-store.js';

const PUBLISH = 'cms.publish-scheduled';
const WEBHOOK = 'cms.form-webhook';

/** The cms's durable jobs: scheduled publishing and form webhooks (both survive restarts). */
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
  return {
    scheduler,
    webhooks,
    /** Registers the handlers; call before agenda.start(). */
    define(publishing: Pick<Publishing, 'publishScheduled'>) {
      agenda.define(PUBLISH, async (job: { attrs: { data: { contentId: string; version: number } } }) => {
        const { contentId, version } = job.attrs.data;
        const published = await publishing.publishScheduled(contentId, version);
        log.info({ contentId, version, published }, 'scheduled publish ran');
      });
      agenda.define(WEBHOOK, async (job: { attrs: { data: { submissionId: string } } }) => {
        const { submissionId } = job.attrs.data;
        const outcome = await deliverWebhook(submissions, http, submissionId, retryBaseMs, log);
        if (outcome.retryAt) await agenda.schedule(outcome.retryAt, WEBHOOK, { submissionId });
      });
    },
  };
}
