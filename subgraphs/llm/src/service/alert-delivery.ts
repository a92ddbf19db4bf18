import { createHmac } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '@svc/kit';

export const ALERT_MAX_ATTEMPTS = 6;

/** `X-Svc-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, with the timestamp in `X-Svc-Timestamp`. */
export function signAlert(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Posts one stored alert to its agent's webhook; returns when to retry, if it should. */
export async function deliverAlert(orm: MikroORM, key: { agentCode: string; period: string; event: string }, secret: string, retryBaseMs: number, log: Logger): Promise<{ retryAt?: Date }> {
  const em = orm.em.fork();
  const rows = await em.execute<{ payload: unknown; url: string | null; attempts: number; delivery_status: string }[]>(
    `select e.payload, a.alert_webhook_url as url, e.attempts, e.delivery_status
       from llm.alert_event e join llm.agent a on a.code = e.agent_code
      where e.agent_code = ? and e.period = ? and e.event = ?`,
    [key.agentCode, key.period, key.event],
  );
  const row = rows[0];
  if (!row || row.delivery_status !== 'PENDING' || !row.url) return {};
  const body = JSON.stringify(typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const attempt = row.attempts + 1;
  try {
    const response = await fetch(row.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-platform-llm/1', 'x-svc-event': `budget.${key.event.toLowerCase()}`, 'x-svc-timestamp': timestamp, 'x-svc-signature': signAlert(secret, timestamp, body) },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
    await em.execute(`update llm.alert_event set delivery_status = 'DELIVERED', attempts = ?, last_error = null where agent_code = ? and period = ? and event = ?`, [attempt, key.agentCode, key.period, key.event]);
    log.info({ ...key, attempt }, 'budget alert delivered');
    return {};
  } catch (error) {
    const giveUp = attempt >= ALERT_MAX_ATTEMPTS;
    await em.execute(`update llm.alert_event set delivery_status = ?, attempts = ?, last_error = ? where agent_code = ? and period = ? and event = ?`, [
      giveUp ? 'FAILED' : 'PENDING', attempt, (error as Error).message.slice(0, 500), key.agentCode, key.period, key.event,
    ]);
    log.warn({ ...key, attempt, err: error, giveUp }, 'budget alert delivery failed');
    return giveUp ? {} : { retryAt: new Date(Date.now() + retryBaseMs * 2 ** (attempt - 1)) };
  }
}
