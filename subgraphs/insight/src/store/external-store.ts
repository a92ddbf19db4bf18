import type { MikroORM } from '@svc/kit';
import type { Row } from './rows.js';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One EXTERNAL action's hand-off to its tenant's operator webhook. */
export interface ExternalDelivery {
  actionId: string;
  tenantId: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

const toDelivery = (r: Row): ExternalDelivery => ({
  actionId: String(r.action_id),
  tenantId: String(r.tenant_id),
  url: String(r.url),
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: new Date(String(r.created_at)),
  deliveredAt: r.delivered_at ? new Date(String(r.delivered_at)) : null,
});

/** What the action's outcome says about its hand-off. */
export function handOffOutcome(d: Pick<ExternalDelivery, 'url' | 'status' | 'attempts' | 'lastError'>): Record<string, unknown> {
  return { handedOffTo: new URL(d.url).host, deliveryStatus: d.status, deliveryAttempts: d.attempts, ...(d.lastError ? { error: d.lastError } : {}) };
}

/**
 * The EXTERNAL actions' outbox: a row per approved action, written in the same transaction as
 * the action's outcome (PENDING); each attempt updates both together, so the action says
 * EXECUTED exactly when the operator's webhook accepted it, and EXECUTION_FAILED when it gave up.
 */
export function createExternalStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async get(actionId: string): Promise<ExternalDelivery | undefined> {
      const [row] = await em().execute<Row[]>('select * from insight.external_delivery where action_id = ?', [actionId]);
      return row ? toDelivery(row) : undefined;
    },

    /** Hands an APPROVED action off once: false when it is no longer APPROVED (or was handed off already). */
    async handOff(actionId: string, tenantId: string, url: string): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        const inserted = await tx.execute<Row[]>(
          `insert into insight.external_delivery (action_id, tenant_id, url)
           select id, tenant_id, ? from insight.action where id = ? and tenant_id = ? and status = 'APPROVED'
           on conflict (action_id) do nothing returning action_id`,
          [url, actionId, tenantId],
        );
        if (inserted.length === 0) return false;
        await tx.execute(`update insight.action set outcome = ?::jsonb where id = ?`, [JSON.stringify(handOffOutcome({ url, status: 'PENDING', attempts: 0, lastError: null })), actionId]);
        return true;
      });
    },

    /** Records one attempt on the row and the action together; PENDING ones wait for `nextAttemptAt`. */
    async recordAttempt(actionId: string, attempt: { attempts: number; status: DeliveryStatus; lastError: string | null; nextAttemptAt: Date | null }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const [row] = await tx.execute<Row[]>(
          `update insight.external_delivery set attempts = ?, status = ?, last_error = ?, next_attempt_at = coalesce(?, next_attempt_at),
             delivered_at = case when ? = 'DELIVERED' then now() else delivered_at end
           where action_id = ? and status = 'PENDING' returning *`,
          [attempt.attempts, attempt.status, attempt.lastError, attempt.nextAttemptAt, attempt.status, actionId],
        );
        if (!row) return;
        const outcome = JSON.stringify(handOffOutcome(toDelivery(row)));
        if (attempt.status === 'PENDING') await tx.execute(`update insight.action set outcome = ?::jsonb where id = ? and status = 'APPROVED'`, [outcome, actionId]);
        else {
          await tx.execute(`update insight.action set status = ?, outcome = ?::jsonb, executed_at = now() where id = ? and status = 'APPROVED'`, [attempt.status === 'DELIVERED' ? 'EXECUTED' : 'EXECUTION_FAILED', outcome, actionId]);
        }
      });
    },

    /** PENDING deliveries due more than `graceMs` ago: their queue entry was lost. */
    async overdue(graceMs: number): Promise<string[]> {
      const rows = await em().execute<Row[]>(
        `select action_id from insight.external_delivery where status = 'PENDING' and next_attempt_at < now() - make_interval(secs => ?) order by next_attempt_at limit 100`,
        [graceMs / 1000],
      );
      return rows.map((r) => String(r.action_id));
    },
  };
}

export type ExternalStore = ReturnType<typeof createExternalStore>;
