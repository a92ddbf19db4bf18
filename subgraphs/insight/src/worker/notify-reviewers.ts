import type { Agenda } from '@svc/kit';
import type { NoticeDelivery } from '../service/review-notices.js';
import { type AgendaJob, NOTIFY_REVIEWERS } from './analysis-queue.js';

/**
 * The `insight.notify-reviewers` job: posts a job's proposals to the reviewer webhook
 * (service/review-notices.ts), retried with backoff. Defined only when the deployment has a
 * reviewer webhook. Call before agenda.start().
 */
export function defineNotifyReviewers(agenda: Agenda, delivery: NoticeDelivery): void {
  agenda.define(NOTIFY_REVIEWERS, async (job: AgendaJob<{ jobId: string }>) => {
    const { retryAt } = await delivery.deliver(job.attrs.data.jobId);
    // A new entry: agenda clears this one's next run when the handler returns.
    if (retryAt) await agenda.schedule(retryAt, NOTIFY_REVIEWERS, { jobId: job.attrs.data.jobId });
  }, { concurrency: 2, lockLifetime: 60_000 });
}
