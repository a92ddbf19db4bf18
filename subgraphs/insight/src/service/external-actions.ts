import { guardedWebhookFetch, postWebhook, webhookRetryDelayMs, type Logger, type OutboundHttp } from '@svc/kit';
import { actionParamProblems } from '../domain/action-params.js';
import type { Action, ExecutionOutcome } from '../domain/action.js';
import type { ActionStore } from '../store/action-store.js';
import type { ExternalStore } from '../store/external-store.js';
import type { SettingsStore } from '../store/settings-store.js';

export interface OperatorWebhookSettings {
  /** First retry delay; each further one doubles. */
  retryBaseMs: number;
  /** Attempts before the delivery is dead-lettered (FAILED) and the action EXECUTION_FAILED. */
  maxAttempts: number;
}

/** What the operator receives: the approved change of a lever the platform does not own. */
export function externalPayload(action: Action) {
  const p = action.params;
  return {
    event: 'action.external',
    actionId: action.id,
    tenantId: action.tenantId,
    jobId: action.jobId,
    lever: p.lever,
    change: p.change,
    summary: p.summary,
    title: action.title,
    rationale: action.rationale,
    expectedImpact: action.expectedImpact,
    undoable: action.undoable,
    undo: action.undo,
    approvedBy: action.decision?.reviewerSubject ?? null,
    approvedAt: action.decision?.decidedAt.toISOString() ?? null,
    actionPath: `/api/v1/insight/actions/${action.id}`,
  };
}

export const missingWebhookMessage = (tenantId: string) =>
  `Not handed off: tenant ${JSON.stringify(tenantId)} has no operator webhook; a tenant admin sets operatorWebhookUrl and operatorWebhookSecret (PUT /api/v1/insight/settings or setInsightSettings)`;

/**
 * EXTERNAL actions: approved, they are handed off to the tenant's operator webhook instead of
 * a router mutation. `handOff` writes the outbox row and the action's PENDING outcome in one
 * transaction (or fails the action when the tenant has no webhook); `deliver` posts it, signed
 * (`X-Svc-Signature`, HMAC-SHA256 with the tenant's secret) through the SSRF guard, with the
 * action id as `X-Svc-Delivery` on every attempt so the receiver can deduplicate; failures back
 * off (base, 2×, 4×, ...) and the delivery is dead-lettered after `maxAttempts`.
 */
export function createExternalActions(deps: {
  settings: SettingsStore;
  outbox: ExternalStore;
  actions: ActionStore;
  outbound: Pick<OutboundHttp, 'fetch'>;
  webhook: OperatorWebhookSettings;
  /** Queues a delivery (the worker's). */
  enqueue(actionId: string): Promise<void>;
  log: Logger;
}) {
  const { settings, outbox, log, webhook } = deps;
  const guardedFetch = guardedWebhookFetch(deps.outbound);

  return {
    overdue: (graceMs: number) => outbox.overdue(graceMs),

    /** Undefined when handed off (its outcome comes with the delivery); an outcome when it cannot be. */
    async handOff(action: Action): Promise<ExecutionOutcome | undefined> {
      const problems = actionParamProblems(action.kind, action.params);
      if (problems.length) return { ok: false, detail: { error: `Not handed off: bad parameters (${problems.join('; ')})`, code: 'BAD_USER_INPUT' } };
      const tenant = await settings.get(action.tenantId);
      if (!tenant?.operatorWebhookUrl || !tenant.operatorWebhookSecret) {
        log.warn({ actionId: action.id, tenantId: action.tenantId }, 'an EXTERNAL action was approved but its tenant has no operator webhook');
        return { ok: false, detail: { error: missingWebhookMessage(action.tenantId), code: 'NO_OPERATOR_WEBHOOK', setting: 'operatorWebhookUrl' } };
      }
      if (await outbox.handOff(action.id, action.tenantId, tenant.operatorWebhookUrl)) log.info({ actionId: action.id, host: new URL(tenant.operatorWebhookUrl).host }, 'EXTERNAL action handed off');
      await deps.enqueue(action.id).catch((error: unknown) => log.warn({ actionId: action.id, err: error }, 'could not queue the operator delivery; the sweep will'));
      return undefined;
    },

    async deliver(actionId: string): Promise<{ retryAt?: Date }> {
      const delivery = await outbox.get(actionId);
      if (!delivery || delivery.status !== 'PENDING') return {};
      const action = await deps.actions.get(actionId);
      const attempts = delivery.attempts + 1;
      try {
        const tenant = await settings.get(delivery.tenantId);
        if (!tenant?.operatorWebhookSecret) throw new Error(missingWebhookMessage(delivery.tenantId));
        const payload = externalPayload(action!);
        await postWebhook({ url: delivery.url, event: payload.event, payload, deliveryId: actionId, userAgent: 'svc-platform-insight/1', secret: tenant.operatorWebhookSecret, fetch: guardedFetch });
        await outbox.recordAttempt(actionId, { attempts, status: 'DELIVERED', lastError: null, nextAttemptAt: null });
        log.info({ actionId, attempts }, 'EXTERNAL action delivered to the operator webhook');
        return {};
      } catch (error) {
        const giveUp = attempts >= webhook.maxAttempts;
        const retryAt = giveUp ? null : new Date(Date.now() + webhookRetryDelayMs(attempts, webhook.retryBaseMs));
        await outbox.recordAttempt(actionId, { attempts, status: giveUp ? 'FAILED' : 'PENDING', lastError: (error as Error).message.slice(0, 500), nextAttemptAt: retryAt });
        log.warn({ actionId, attempts, giveUp, err: (error as Error).message }, giveUp ? 'operator webhook delivery dead-lettered' : 'operator webhook delivery failed');
        return retryAt ? { retryAt } : {};
      }
    },
  };
}

export type ExternalActions = ReturnType<typeof createExternalActions>;
