/**
 * Rate limits per virtual key and per agent: requests per minute, tokens per minute (prompt +
 * completion, as the budget counts them) and requests in flight. The minute is a sliding window
 * of one-second buckets: a request counts in the bucket of the second it was admitted, and a
 * bucket counts for 61 whole seconds, so a request is counted for at least 60 s (between 60 and
 * 61) and no 60-second span ever holds more than the limit. A token count known only after the
 * answer is reserved as an estimate at admission and settled to the actual count when the
 * request ends (a stream when it closes): the estimate leaves its bucket and the actual count
 * lands in the bucket of that second.
 *
 * The arithmetic here is shared by the in-process window store and mirrored by the Redis one's
 * Lua script (store/rate-window-redis.ts).
 */

/** Limits of one scope; null is no limit. */
export interface RateLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  maxConcurrent: number | null;
}

export const NO_LIMITS: RateLimits = { requestsPerMinute: null, tokensPerMinute: null, maxConcurrent: null };

/** What a limit applies to: one virtual key, or every key of one agent. */
export interface LimitScope {
  /** `key:<id>` or `agent:<code>`. */
  id: string;
  limits: RateLimits;
}

/** Buckets counted at once: the current second and the 60 before it. */
export const WINDOW_BUCKETS = 61;

export const hasLimits = (limits: RateLimits) => limits.requestsPerMinute !== null || limits.tokensPerMinute !== null || limits.maxConcurrent !== null;

/**
 * Admission slices (store/rate-window-redis.ts): while a window, its slice included, stays
 * within half of its limit, an instance reserves `share` of the limit in one call and admits
 * from it without asking Redis until that second ends; what it did not use is handed back then.
 * The reservation counts in the window at once, so a limit is never passed; the price is that,
 * for at most a second, another instance's request can be refused up to a slice early (0.5 % of
 * the limit per instance), and only near half the limit. A limit whose share is under `min`
 * requests (tokens), or a scope that counts requests in flight, is decided in Redis every time.
 */
export const SLICE = { share: 0.005, minRequests: 10, maxRequests: 500, minTokens: 4096, maxTokens: 2_000_000 } as const;

/** A scope's slice size, or undefined when its limits are decided in Redis every time. */
export function sliceOf(limits: RateLimits): { requests: number; tokens: number } | undefined {
  const { requestsPerMinute: rpm, tokensPerMinute: tpm, maxConcurrent } = limits;
  if (maxConcurrent !== null || (rpm === null && tpm === null)) return undefined;
  const requests = rpm === null ? 0 : Math.min(SLICE.maxRequests, Math.floor(rpm * SLICE.share));
  const tokens = tpm === null ? 0 : Math.min(SLICE.maxTokens, Math.floor(tpm * SLICE.share));
  if ((rpm !== null && requests < SLICE.minRequests) || (tpm !== null && tokens < SLICE.minTokens)) return undefined;
  return { requests, tokens };
}

/** The oldest bucket (a second) still counted at `nowSec`. */
export const oldestCounted = (nowSec: number) => nowSec - (WINDOW_BUCKETS - 1);

/** When the bucket of second `bucket` stops counting, in ms since the epoch. */
export const bucketEndsAt = (bucket: number) => (bucket + WINDOW_BUCKETS) * 1000;

/** One window's state: used amount and the counted buckets (second → amount). */
export interface WindowUse {
  used: number;
  buckets: [second: number, amount: number][];
}

/** What is counted of `buckets` at `nowMs` (older buckets are left out). */
export function windowUse(buckets: Iterable<[number, number]>, nowMs: number): WindowUse {
  const oldest = oldestCounted(Math.floor(nowMs / 1000));
  const counted: [number, number][] = [];
  let used = 0;
  for (const [second, amount] of buckets) {
    if (second < oldest || amount === 0) continue;
    counted.push([second, amount]);
    used += amount;
  }
  return { used, buckets: counted.sort((a, b) => a[0] - b[0]) };
}

/** Milliseconds until `need` more fits under `limit` (0 when it fits now; Infinity when it never can). */
export function waitFor(use: WindowUse, limit: number, need: number, nowMs: number): number {
  if (need > limit) return Infinity;
  let excess = use.used + need - limit;
  if (excess <= 0) return 0;
  for (const [second, amount] of use.buckets) {
    excess -= amount;
    if (excess <= 0) return Math.max(1, bucketEndsAt(second) - nowMs);
  }
  return Infinity;
}

/** Milliseconds until the oldest counted bucket drops, so `remaining` grows (`x-ratelimit-reset-*`); 0 for an empty window. */
export function resetIn(oldestSecond: number | undefined, nowMs: number): number {
  return oldestSecond === undefined ? 0 : Math.max(0, bucketEndsAt(oldestSecond) - nowMs);
}

/** One dimension's state as a response reports it. */
export interface LimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** The state of one scope after an admission decision. */
export interface ScopeState {
  requests?: LimitState;
  tokens?: LimitState;
  concurrent?: { limit: number; inFlight: number };
}

/** Why a request was refused: which limit, of which scope, and how long until it may fit. */
export interface Refusal {
  scope: string;
  kind: 'requests' | 'tokens' | 'concurrent';
  limit: number;
  used: number;
  requested: number;
  retryAfterMs: number;
}

/** OpenAI's duration format in rate-limit headers: `20ms`, `1.5s`, `6m0s` (whole milliseconds, so at most three decimals). */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole < 60_000) return `${whole / 1000}s`;
  const minutes = Math.floor(whole / 60_000);
  return `${minutes}m${(whole - minutes * 60_000) / 1000}s`;
}

/** Of the states that limit `kind`, the one with the least left (the first of equals). */
function tightest(states: readonly ScopeState[], kind: 'requests' | 'tokens'): LimitState | undefined {
  let least: LimitState | undefined;
  for (const state of states) {
    const dimension = state[kind];
    if (dimension && (!least || dimension.remaining < least.remaining)) least = dimension;
  }
  return least;
}

/**
 * The OpenAI-style headers for a response: of every scope with a requests (tokens) limit, the
 * one with the least left names the requests (tokens) headers. None for a dimension no scope
 * limits. (On every limited request's path: no sorting, no intermediate arrays.)
 */
export function rateLimitHeaders(states: readonly ScopeState[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const least = tightest(states, kind);
    if (!least) continue;
    headers[`x-ratelimit-limit-${kind}`] = String(least.limit);
    headers[`x-ratelimit-remaining-${kind}`] = String(Math.max(0, least.remaining));
    headers[`x-ratelimit-reset-${kind}`] = formatDuration(least.resetMs);
  }
  return headers;
}

/** The refusal's message, in OpenAI's words where it has them. */
export function refusalMessage(refusal: Refusal): string {
  const [kind, id] = [refusal.scope.slice(0, refusal.scope.indexOf(':')), refusal.scope.slice(refusal.scope.indexOf(':') + 1)];
  const who = kind === 'key' ? `API key ${id}` : `agent ${id}`;
  if (refusal.kind === 'concurrent') return `Rate limit reached for ${who} on concurrent requests: Limit ${refusal.limit}, In flight ${refusal.used}. Retry when one has finished.`;
  const unit = refusal.kind === 'requests' ? 'requests per min (RPM)' : 'tokens per min (TPM)';
  if (!Number.isFinite(refusal.retryAfterMs)) return `Request too large for ${who} on ${unit}: Limit ${refusal.limit}, Requested ${refusal.requested} (the prompt's estimate plus max_tokens). Lower max_tokens or shorten the prompt.`;
  return `Rate limit reached for ${who} on ${unit}: Limit ${refusal.limit}, Used ${refusal.used}, Requested ${refusal.requested}. Please try again in ${formatDuration(refusal.retryAfterMs)}.`;
}
