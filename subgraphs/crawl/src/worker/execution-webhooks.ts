import { createOutboxDelivery, guardedWebhookFetch, postWebhook, webhookRetryDelayMs, type Agenda, type Logger, type OutboundHttp } from '@svc/kit';
import type { WebhookStore } from '../store/webhook-store.js';

/** How long a claimed delivery is reserved for its worker: longer than one attempt (10 s timeout). */
export const WEBHOOK_LEASE_MS = 60_000;

export interface WebhookSettings {
  /** First retry delay; doubles per attempt (SVC_CRAWL_WEBHOOK_RETRY_MS). */
  retryBaseMs: number;
  /** Attempts before a delivery is dead-lettered as FAILED (SVC_CRAWL_WEBHOOK_ATTEMPTS). */
  maxAttempts: number;
}

/**
 * Delivers crawl executions' webhook events from the outbox (store/webhook-store.ts; rows are
 * written by the statement that ends an execution). An agenda job per delivery is the prompt
 * nudge, and `sweep` delivers whatever is due and not leased (the worker died between ending the
 * execution and the nudge, or mid-attempt, or a retry's job was lost); it runs at start and
 * periodically (kit outbox-delivery.ts). Each attempt is one signed POST (kit postWebhook: X-Svc-Event `crawl.<event>`,
 * X-Svc-Delivery `<deliveryId>:<attempt>` so a receiver can tell a retry of one delivery from
 * another delivery, X-Svc-Signature with the job's secret) through the outbound SSRF guard; a
 * failure is retried after retryBaseMs, doubling, and after maxAttempts the delivery is FAILED:
 * the dead letter, listed by `crawlWebhookDeliveries(jobId, status: "FAILED")`.
 */
export function createExecutionWebhooks(agenda: Agenda, store: WebhookStore, http: Pick<OutboundHttp, 'fetch'>, settings: WebhookSettings, log: Logger) {
  const guardedFetch = guardedWebhookFetch(http);
  async function attempt(id: string): Promise<Date | undefined> {
    const claimed = await store.claim(id, WEBHOOK_LEASE_MS);
    if (!claimed) return undefined;
    const { delivery, secret } = claimed;
    const attempts = delivery.attempts + 1;
    const context = { deliveryId: id, executionId: delivery.executionId, event: delivery.event, attempts };
    try {
      await postWebhook({
        url: delivery.url,
        event: `crawl.${delivery.event}`,
        payload: delivery.payload,
        deliveryId: `${id}:${attempts}`,
        userAgent: 'svc-platform-crawl/1',
        secret: secret ?? undefined,
        fetch: guardedFetch,
      });
      await store.recordAttempt(id, { attempts, status: 'DELIVERED', lastError: null, nextAttemptAt: null });
      log.info(context, 'crawl webhook delivered');
      return undefined;
    } catch (error) {
      const lastError = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      const giveUp = attempts >= settings.maxAttempts;
      const nextAttemptAt = giveUp ? null : new Date(Date.now() + webhookRetryDelayMs(attempts, settings.retryBaseMs));
      await store.recordAttempt(id, { attempts, status: giveUp ? 'FAILED' : 'PENDING', lastError, nextAttemptAt });
      log.warn({ ...context, err: lastError, giveUp }, giveUp ? 'crawl webhook dead-lettered after its last attempt' : 'crawl webhook attempt failed; retrying');
      return nextAttemptAt ?? undefined;
    }
  }

  const outbox = createOutboxDelivery({ agenda, job: 'crawl.webhook', key: 'deliveryId', attempt, due: (limit) => store.due(limit), name: 'crawl webhook', log });

  return {
    define: outbox.define,
    sweep: outbox.sweep,
    /** Queues prompt attempts of deliveries just written; a failure here is left to the sweep. */
    async nudge(ids: readonly string[]): Promise<void> {
      for (const deliveryId of ids) {
        await outbox.enqueue(deliveryId).catch((error: unknown) => log.warn({ deliveryId, err: (error as Error).message }, 'crawl webhook not queued; the outbox sweep delivers it'));
      }
    },
  };
}

export type ExecutionWebhooks = ReturnType<typeof createExecutionWebhooks>;
