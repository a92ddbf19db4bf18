import { webhookRetryDelayMs, type Logger, type OutboundHttp } from '@svc/kit';
import type { WebhookStatus } from '../domain/submission.js';
import type { SubmissionStore } from '../store/submission-store.js';

/** Attempts before a submission's webhook is marked FAILED. */
export const WEBHOOK_MAX_ATTEMPTS = 6;

/** How long a claimed delivery is reserved for its worker: longer than one attempt (10 s timeout). */
export const WEBHOOK_LEASE_MS = 60_000;

export interface DeliveryOutcome {
  /** When to try again; undefined when done (delivered, failed for good, or nothing to do). */
  retryAt?: Date;
}

/**
 * Posts one stored submission to its form's webhook. Failures back off exponentially
 * (base, 2x base, 4x base, ...) and end as FAILED after {@link WEBHOOK_MAX_ATTEMPTS} attempts.
 * The call goes through the SSRF guard (`http`): an address that is not allowed is a failed attempt.
 * The submission is claimed first (submission-store `claimWebhook`), so a queued job and the
 * outbox sweep never deliver the same attempt twice; one not due or taken is left alone.
 */
export async function deliverWebhook(submissions: SubmissionStore, http: Pick<OutboundHttp, 'fetch'>, submissionId: string, retryBaseMs: number, log: Logger): Promise<DeliveryOutcome> {
  if (!(await submissions.claimWebhook(submissionId, WEBHOOK_LEASE_MS))) return {};
  const submission = await submissions.outgoing(submissionId);
  if (!submission || submission.webhookStatus !== 'PENDING') return {};
  if (!submission.webhookUrl) {
    // The form lost its webhook after the submission: nothing to deliver.
    await submissions.recordWebhookAttempt(submission.id, { attempts: submission.webhookAttempts, status: 'NONE', lastError: null });
    return {};
  }
  const payload = {
    event: 'form.submission',
    siteKey: submission.siteKey,
    formKey: submission.formKey,
    submissionId: submission.id,
    receivedAt: submission.receivedAt.toISOString(),
    data: submission.data,
  };
  const attempts = submission.webhookAttempts + 1;
  let status: WebhookStatus = submission.webhookStatus;
  try {
    const response = await http.fetch(submission.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-platform-cms/1', 'x-svc-event': 'form.submission', 'x-svc-delivery': `${submission.id}:${attempts}` },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
    status = 'DELIVERED';
    await submissions.recordWebhookAttempt(submission.id, { attempts, status, lastError: null });
    log.info({ submissionId, attempts }, 'form webhook delivered');
    return {};
  } catch (error) {
    const giveUp = attempts >= WEBHOOK_MAX_ATTEMPTS;
    if (giveUp) status = 'FAILED';
    const retryAt = giveUp ? undefined : new Date(Date.now() + webhookRetryDelayMs(attempts, retryBaseMs));
    await submissions.recordWebhookAttempt(submission.id, { attempts, status, lastError: (error as Error).message.slice(0, 500), retryAt });
    log.warn({ submissionId, attempts, err: error, giveUp }, 'form webhook delivery failed');
    return retryAt ? { retryAt } : {};
  }
}
