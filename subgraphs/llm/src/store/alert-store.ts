import type { MikroORM } from '@svc/kit';
import type { AlertKey } from '../domain/budget-alert.js';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'NONE';

/** A stored alert as its delivery needs it: the body, the agent's current webhook, the attempts so far. */
export interface StoredAlert {
  payload: unknown;
  url: string | null;
  attempts: number;
  deliveryStatus: DeliveryStatus;
}

/** Budget alerts, at most one per (agent, period, event), with their webhook delivery state. */
export function createAlertStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  const where = (key: AlertKey) => [key.agentCode, key.period, key.event];
  return {
    /** Stores the alert unless it already is; true when this call stored it. */
    async insertOnce(key: AlertKey, payload: unknown, deliveryStatus: DeliveryStatus): Promise<boolean> {
      const inserted = await em().execute<unknown[]>(
        `insert into llm.alert_event (agent_code, period, event, payload, delivery_status) values (?, ?, ?, ?::jsonb, ?)
       on conflict do nothing returning event`,
        [...where(key), JSON.stringify(payload), deliveryStatus],
      );
      return inserted.length > 0;
    },

    async alert(key: AlertKey): Promise<StoredAlert | undefined> {
      const rows = await em().execute<{ payload: unknown; url: string | null; attempts: number; delivery_status: DeliveryStatus }[]>(
        `select e.payload, a.alert_webhook_url as url, e.attempts, e.delivery_status
       from llm.alert_event e join llm.agent a on a.code = e.agent_code
      where e.agent_code = ? and e.period = ? and e.event = ?`,
        where(key),
      );
      const row = rows[0];
      if (!row) return undefined;
      return { payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload, url: row.url, attempts: row.attempts, deliveryStatus: row.delivery_status };
    },

    async markDelivered(key: AlertKey, attempts: number): Promise<void> {
      await em().execute(`update llm.alert_event set delivery_status = 'DELIVERED', attempts = ?, last_error = null where agent_code = ? and period = ? and event = ?`, [attempts, ...where(key)]);
    },

    /** Records a failed attempt: still PENDING (to retry) or FAILED for good. */
    async markFailed(key: AlertKey, attempts: number, status: 'PENDING' | 'FAILED', error: string): Promise<void> {
      await em().execute(`update llm.alert_event set delivery_status = ?, attempts = ?, last_error = ? where agent_code = ? and period = ? and event = ?`, [
        status, attempts, error.slice(0, 500), ...where(key),
      ]);
    },
  };
}

export type AlertStore = ReturnType<typeof createAlertStore>;
