import { createHmac } from 'node:crypto';
import type { OutboundHttp } from '../outbound/outbound-http.js';

/**
 * `X-Svc-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, with the Unix timestamp in
 * `X-Svc-Timestamp`: the receiver recomputes it with the shared secret and rejects old timestamps.
 */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookPost {
  url: string;
  /** `X-Svc-Event`, e.g. `actions.proposed`. */
  event: string;
  /** Serialised as JSON. */
  payload: unknown;
  /** `X-Svc-Delivery`: the same id on every attempt of one delivery plus the attempt, so receivers can deduplicate. */
  deliveryId: string;
  userAgent: string;
  /** Signs the body when given. */
  secret?: string | undefined;
  timeoutMs?: number;
  /** The fetch to use (a guarded one for addresses a user set). Default global fetch. */
  fetch?: typeof fetch;
}

/** Posts one webhook attempt; throws unless the receiver answers 2xx within the timeout. */
export async function postWebhook(post: WebhookPost): Promise<void> {
  const body = JSON.stringify(post.payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': post.userAgent, 'x-svc-event': post.event, 'x-svc-delivery': post.deliveryId, 'x-svc-timestamp': timestamp };
  if (post.secret) headers['x-svc-signature'] = signWebhook(post.secret, timestamp, body);
  const response = await (post.fetch ?? fetch)(post.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(post.timeoutMs ?? 10_000) });
  await response.body?.cancel().catch(() => undefined);
  if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
}

/** A fetch for `WebhookPost.fetch` that goes through the outbound SSRF guard (for URLs users set). */
export function guardedWebhookFetch(outbound: Pick<OutboundHttp, 'fetch'>): typeof fetch {
  return ((url: string, init: RequestInit) =>
    outbound.fetch(url, { method: init.method ?? 'POST', headers: init.headers as Record<string, string>, body: init.body as string, ...(init.signal ? { signal: init.signal } : {}) })) as unknown as typeof fetch;
}

/** Exponential backoff: base, 2× base, 4× base, ... for attempts 1, 2, 3, ... */
export const webhookRetryDelayMs = (attempt: number, baseMs: number): number => baseMs * 2 ** (attempt - 1);
