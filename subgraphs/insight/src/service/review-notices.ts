import { postWebhook, webhookRetryDelayMs, type Logger } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStore } from '../store/action-store.js';
import type { NoticeStore } from '../store/notice-store.js';

/** Attempts before a notice is marked FAILED. */
export const NOTICE_MAX_ATTEMPTS = 6;

export interface ReviewWebhook {
  url: string;
  /** HMAC-SHA256 secret the receiver verifies `X-Svc-Signature` with. */
  secret: string;
  /** First retry delay; each further one doubles. */
  retryBaseMs: number;
}

/**
 * What reviewers receive: the job and each proposal to decide, with the paths that decide it.
 * No prompt text and no report prose beyond the proposals' own titles and rationales.
 */
export function noticePayload(jobId: string, actions: readonly Action[]) {
  return {
    event: 'actions.proposed',
    jobId,
    jobPath: `/api/v1/insight/jobs/${jobId}`,
    actions: actions.map((a) => ({
      actionId: a.id,
      kind: a.kind,
      title: a.title,
      rationale: a.rationale,
      target: { type: a.targetType, id: a.targetId },
      params: a.params,
      expectedImpact: a.expectedImpact,
      status: a.status,
      expiresAt: a.expiresAt.toISOString(),
      approvePath: `/api/v1/insight/actions/${a.id}/approve`,
      rejectPath: `/api/v1/insight/actions/${a.id}/reject`,
    })),
  };
}

/**
 * Posts a job's proposals to the deployment's reviewer webhook, signed like budget alerts.
 * Failures back off exponentially and end FAILED after {@link NOTICE_MAX_ATTEMPTS} attempts;
 * returns when to try again, if it should.
 */
export function createNoticeDelivery(deps: { notices: NoticeStore; actions: ActionStore; webhook: ReviewWebhook; log: Logger }) {
  const { notices, actions, webhook, log } = deps;
  return {
    async deliver(jobId: string): Promise<{ retryAt?: Date }> {
      const notice = await notices.get(jobId);
      if (!notice || notice.status !== 'PENDING') return {};
      const attempts = notice.attempts + 1;
      try {
        const payload = noticePayload(jobId, await actions.ofJob(jobId));
        await postWebhook({ url: webhook.url, event: payload.event, payload, deliveryId: `${jobId}:${attempts}`, userAgent: 'svc-platform-insight/1', secret: webhook.secret });
        await notices.recordAttempt(jobId, { attempts, status: 'DELIVERED', lastError: null, nextAttemptAt: null });
        log.info({ jobId, attempts, actions: payload.actions.length }, 'reviewers notified of proposed actions');
        return {};
      } catch (error) {
        const giveUp = attempts >= NOTICE_MAX_ATTEMPTS;
        const retryAt = giveUp ? null : new Date(Date.now() + webhookRetryDelayMs(attempts, webhook.retryBaseMs));
        await notices.recordAttempt(jobId, { attempts, status: giveUp ? 'FAILED' : 'PENDING', lastError: (error as Error).message.slice(0, 500), nextAttemptAt: retryAt });
        log.warn({ jobId, attempts, giveUp, err: (error as Error).message }, 'reviewer webhook delivery failed');
        return retryAt ? { retryAt } : {};
      }
    },
  };
}

export type NoticeDelivery = ReturnType<typeof createNoticeDelivery>;
