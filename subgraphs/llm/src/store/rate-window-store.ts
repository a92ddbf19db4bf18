import { oldestCounted, waitFor, windowUse, type LimitScope, type Refusal } from '../domain/rate-limits.js';

/** One scope's use before a request: counted requests and tokens (with their oldest bucket) and requests in flight. */
export interface ScopeUse {
  requestsUsed: number;
  requestsOldest?: number;
  tokensUsed: number;
  tokensOldest?: number;
  inFlight: number;
}

/** An admission decision, taken atomically over every scope of the request. */
export type WindowAdmission =
  | { admitted: true; nowMs: number; second: number; uses: ScopeUse[] }
  | { admitted: false; nowMs: number; refusal: Refusal; uses: ScopeUse[] };

/**
 * Where the rate windows live: Redis, shared by every gateway instance (rate-window-redis.ts),
 * or this process (embedded mode, or while Redis is unreachable). Every scope of a request is
 * checked and, only if all of them admit it, charged, in one step.
 */
export interface RateWindowStore {
  readonly kind: 'redis' | 'memory';
  /** Admits a request needing `tokens` (the estimate) in every scope, or refuses it naming the first limit it would pass. */
  admit(scopes: readonly LimitScope[], tokens: number, member: string, inFlightTtlMs: number): Promise<WindowAdmission>;
  /** The request ended: its estimate leaves the bucket of `second`, `actual` tokens land in the current one, and it is no longer in flight. */
  settle(scopes: readonly LimitScope[], member: string, second: number, estimate: number, actual: number): Promise<void>;
  /** Keeps requests in flight counted (a crashed instance's stop counting after their TTL). */
  renew(inFlight: readonly { scope: string; member: string }[], inFlightTtlMs: number): Promise<void>;
  close(): Promise<void>;
}

interface Windows {
  requests: Map<number, number>;
  tokens: Map<number, number>;
  inFlight: Map<string, number>;
}

/** The windows in this process: one instance's view only (embedded mode, or Redis down). */
export function createMemoryRateWindows(now: () => number = Date.now): RateWindowStore {
  const scopes = new Map<string, Windows>();
  const windows = (id: string): Windows => {
    let w = scopes.get(id);
    if (!w) scopes.set(id, (w = { requests: new Map(), tokens: new Map(), inFlight: new Map() }));
    return w;
  };
  const prune = (buckets: Map<number, number>, nowMs: number) => {
    const oldest = oldestCounted(Math.floor(nowMs / 1000));
    for (const second of buckets.keys()) if (second < oldest) buckets.delete(second);
  };
  const add = (buckets: Map<number, number>, second: number, amount: number) => {
    const left = (buckets.get(second) ?? 0) + amount;
    if (left > 0) buckets.set(second, left);
    else buckets.delete(second);
  };

  return {
    kind: 'memory',
    async admit(list, tokens, member, inFlightTtlMs) {
      const nowMs = now();
      const second = Math.floor(nowMs / 1000);
      const uses: ScopeUse[] = [];
      let refusal: Refusal | undefined;
      for (const { id, limits } of list) {
        const w = windows(id);
        prune(w.requests, nowMs);
        prune(w.tokens, nowMs);
        for (const [m, until] of w.inFlight) if (until <= nowMs) w.inFlight.delete(m);
        const requests = windowUse(w.requests, nowMs);
        const used = windowUse(w.tokens, nowMs);
        uses.push({ requestsUsed: requests.used, requestsOldest: requests.buckets[0]?.[0], tokensUsed: used.used, tokensOldest: used.buckets[0]?.[0], inFlight: w.inFlight.size });
        if (refusal) continue;
        const rpm = limits.requestsPerMinute;
        const tpm = limits.tokensPerMinute;
        const conc = limits.maxConcurrent;
        const waitRequests = rpm === null ? 0 : waitFor(requests, rpm, 1, nowMs);
        const waitTokens = tpm === null ? 0 : waitFor(used, tpm, tokens, nowMs);
        if (waitRequests) refusal = { scope: id, kind: 'requests', limit: rpm!, used: requests.used, requested: 1, retryAfterMs: waitRequests };
        else if (waitTokens) refusal = { scope: id, kind: 'tokens', limit: tpm!, used: used.used, requested: tokens, retryAfterMs: waitTokens };
        else if (conc !== null && w.inFlight.size >= conc) refusal = { scope: id, kind: 'concurrent', limit: conc, used: w.inFlight.size, requested: 1, retryAfterMs: 1000 };
      }
      if (refusal) return { admitted: false, nowMs, refusal, uses };
      for (const { id, limits } of list) {
        const w = windows(id);
        if (limits.requestsPerMinute !== null) add(w.requests, second, 1);
        if (limits.tokensPerMinute !== null && tokens > 0) add(w.tokens, second, tokens);
        if (limits.maxConcurrent !== null) w.inFlight.set(member, nowMs + inFlightTtlMs);
      }
      return { admitted: true, nowMs, second, uses };
    },

    async settle(list, member, second, estimate, actual) {
      const nowMs = now();
      for (const { id, limits } of list) {
        const w = windows(id);
        if (limits.tokensPerMinute !== null) {
          if (second >= oldestCounted(Math.floor(nowMs / 1000)) && w.tokens.has(second)) add(w.tokens, second, -estimate);
          if (actual > 0) add(w.tokens, Math.floor(nowMs / 1000), actual);
        }
        w.inFlight.delete(member);
      }
    },

    async renew(inFlight, inFlightTtlMs) {
      const until = now() + inFlightTtlMs;
      for (const { scope, member } of inFlight) {
        const w = scopes.get(scope);
        if (w?.inFlight.has(member)) w.inFlight.set(member, until);
      }
    },

    async close() {
      scopes.clear();
    },
  };
}
