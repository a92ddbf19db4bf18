import { createHmac } from 'node:crypto';
import type { Logger, OutboundHttp } from '@svc/kit';
import { ALERT_MAX_ATTEMPTS, alertRetryDelayMs, type AlertKey } from '../domain/budget-alert.js';
import type { AlertStore } from '../store/alert-store.js';

/** `X-Svc-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, with the timestamp in `X-Svc-Timestamp`. */
export function signAlert(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Posts stored budget alerts to their agent's webhook, signed with `secret`, through the SSRF
 * guard (`http`): an address that is not allowed is a failed attempt.
 */
export function createAlertDelivery(alerts: AlertStore, http: Pick<OutboundHttp, 'fetch'>, secret: string, retryBaseMs: number, log: Logger) {
  return {
    /** Posts one stored alert; returns when to retry, if it should. */
    async deliver(key: AlertKey): Promise<{ retryAt?: Date }> {
      const alert = await alerts.alert(key);
      if (!alert || alert.deliveryStatus !== 'PENDING' || !alert.url) return {};
      const body = JSON.stringify(alert.payload);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const attempt = alert.attempts + 1;
      try {
        const response = await http.fetch(alert.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'svc-platform-llm/1', 'x-svc-event': `budget.${key.event.toLowerCase()}`, 'x-svc-timestamp': timestamp, 'x-svc-signature': signAlert(secret, timestamp, body) },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
        await alerts.markDelivered(key, attempt);
        log.info({ ...key, attempt }, 'budget alert delivered');
        return {};
      } catch (error) {
        const giveUp = attempt >= ALERT_MAX_ATTEMPTS;
        await alerts.markFailed(key, attempt, giveUp ? 'FAILED' : 'PENDING', (error as Error).message);
        log.warn({ ...key, attempt, err: error, giveUp }, 'budget alert delivery failed');
        return giveUp ? {} : { retryAt: new Date(Date.now() + alertRetryDelayMs(attempt, retryBaseMs)) };
      }
    },
  };
}

export type AlertDelivery = ReturnType<typeof createAlertDelivery>;
