import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '@svc/kit';
import { FormSubmissionEntity } from '../store/entities.js';

/** Attempts before a submission's webhook is marked FAILED. */
export const WEBHOOK_MAX_ATTEMPTS = 6;

export interface DeliveryOutcome {
  /** When to try again; undefined when done (delivered, failed for good, or nothing to do). */
  retryAt?: Date;
}

/**
 * Posts one stored submission to its form's webhook. Failures back off exponentially
 * (base, 2x base, 4x base, ...) and end as FAILED after {@link WEBHOOK_MAX_ATTEMPTS} attempts.
 */
export async function deliverWebhook(orm: MikroORM, submissionId: string, retryBaseMs: number, log: Logger): Promise<DeliveryOutcome> {
  const em = orm.em.fork();
  const submission = await em.findOne(FormSubmissionEntity, { id: submissionId }, { populate: ['form', 'form.site'] });
  if (!submission || submission.webhookStatus !== 'PENDING' || !submission.form.webhookUrl) return {};
  const form = submission.form;
  const payload = {
    event: 'form.submission',
    siteKey: form.site.siteKey,
    formKey: form.formKey,
    submissionId: submission.id,
    receivedAt: submission.receivedAt.toISOString(),
    data: submission.data,
  };
  submission.webhookAttempts += 1;
  try {
    const response = await fetch(form.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-platform-cms/1', 'x-svc-event': 'form.submission', 'x-svc-delivery': `${submission.id}:${submission.webhookAttempts}` },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
    submission.webhookStatus = 'DELIVERED';
    submission.webhookLastError = null;
    await em.flush();
    log.info({ submissionId, attempts: submission.webhookAttempts }, 'form webhook delivered');
    return {};
  } catch (error) {
    submission.webhookLastError = (error as Error).message.slice(0, 500);
    const giveUp = submission.webhookAttempts >= WEBHOOK_MAX_ATTEMPTS;
    if (giveUp) submission.webhookStatus = 'FAILED';
    await em.flush();
    log.warn({ submissionId, attempts: submission.webhookAttempts, err: error, giveUp }, 'form webhook delivery failed');
    return giveUp ? {} : { retryAt: new Date(Date.now() + retryBaseMs * 2 ** (submission.webhookAttempts - 1)) };
  }
}
