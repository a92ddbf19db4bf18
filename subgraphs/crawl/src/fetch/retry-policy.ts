// When the page fetcher (fetch-page.ts) tries again, and how long it waits first.

/** Answers retried (with Retry-After honoured). */
export const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
/** Network errors retried: timeouts, resets, refused connections, DNS hiccups. */
export const RETRY_ERROR_CODES = new Set([
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRINUSE',
]);

const MAX_BACKOFF_MS = 30_000;

/** The wait after failed attempt `attempt` (1-based): doubling from `backoffMs`, at most 30 s. */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return Math.min(backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}

/** Milliseconds a Retry-After value asks for (delta-seconds or HTTP date), or undefined when invalid. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP-date forms only (RFC 9110 5.6.7): IMF-fixdate, RFC 850 and asctime (UTC, no zone given).
  // Date.parse alone would take '-5' or '2025' for dates.
  if (!/^[A-Za-z]{3}/.test(text) || !/\d{1,2}:\d{2}:\d{2}/.test(text)) return undefined;
  const date = Date.parse(/^\w{3} \w{3} [\d ]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(text) ? `${text} GMT` : text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
