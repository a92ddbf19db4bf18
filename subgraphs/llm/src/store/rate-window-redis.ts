import { turnBatch, type Logger } from '@svc/kit';
import { Redis } from 'ioredis';
import { oldestCounted, sliceOf, type LimitScope, type RateLimits, type Refusal } from '../domain/rate-limits.js';
import { ADMIT, RELEASE, RENEW, SETTLE } from './rate-window-scripts.js';
import { createMemoryRateWindows, type RateWindowStore, type ScopeUse, type WindowAdmission } from './rate-window-store.js';

const KIND = { 1: 'requests', 2: 'tokens', 3: 'concurrent' } as const;

const limitArg = (value: number | null) => (value === null ? -1 : value);

/**
 * A slice of one scope's windows reserved for this instance in `second` (domain/rate-limits.ts
 * SLICE): requests and tokens left to admit locally until `until` (this process's clock), and
 * the window's use without the slice's unused part, as the responses' headers report it.
 */
interface Slice {
  limits: RateLimits;
  second: number;
  until: number;
  requests: number;
  tokens: number;
  use: ScopeUse;
  timer: NodeJS.Timeout;
}

const sameLimits = (a: RateLimits, b: RateLimits) => a.requestsPerMinute === b.requestsPerMinute && a.tokensPerMinute === b.tokensPerMinute && a.maxConcurrent === b.maxConcurrent;

/**
 * Rate windows in Redis, shared by every gateway instance on it. Fails like the cache: bounded
 * timeouts and no offline queue; while Redis is unreachable each instance counts in its own
 * memory (logged once), so limits then hold per instance. Far below a limit, requests are
 * admitted from slices reserved in Redis (domain/rate-limits.ts SLICE) without a round trip each.
 */
export function createRedisRateWindows(url: string, prefix: string, log: Logger): RateWindowStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 500, retryStrategy: (attempt) => Math.min(attempt * 250, 5000) });
  // EVALSHA, loading the script once (ioredis retries with EVAL after NOSCRIPT); the key count comes first.
  redis.defineCommand('svcRateAdmit', { lua: ADMIT });
  redis.defineCommand('svcRateSettle', { lua: SETTLE });
  redis.defineCommand('svcRateRenew', { lua: RENEW });
  redis.defineCommand('svcRateRelease', { lua: RELEASE });
  const scripts = redis as unknown as Record<'svcRateAdmit' | 'svcRateSettle' | 'svcRateRenew' | 'svcRateRelease', (...args: (string | number)[]) => Promise<unknown>>;
  const fallback = createMemoryRateWindows();
  /** Requests the fallback admitted (Redis was down): they settle there. */
  const counted = new Set<string>();
  let up = true;
  const down = (error: unknown) => {
    if (up) log.warn({ dependency: 'redis', reason: (error as Error).message }, 'redis unreachable: rate limits counted per instance until it is back');
    up = false;
  };
  redis.on('error', down);
  redis.on('ready', () => {
    if (!up) log.info({ dependency: 'redis' }, 'redis reachable again: rate limits shared again');
    up = true;
  });
  // r, t: the requests and tokens windows (buckets by second); rs, ts: their summaries (rate-window-scripts.ts); c: in flight.
  const key = (scope: string, part: 'r' | 't' | 'c' | 'rs' | 'ts') => `${prefix}llm:rl:{${scope}}:${part}`;
  // The first requests after a start wait for the connection (at most its timeout) instead of
  // counting in this process alone while it is being made.
  const connected = new Promise<void>((resolve) => {
    redis.once('ready', resolve);
    setTimeout(resolve, 2000).unref();
  });
  async function attempt<T>(command: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    if (redis.status === 'connecting' || redis.status === 'connect' || redis.status === 'wait') await connected;
    if (!up && redis.status !== 'ready') return { ok: false };
    try {
      return { ok: true, value: await command() };
    } catch (error) {
      down(error);
      return { ok: false };
    }
  }

  /** An admission asked for in this turn of the event loop; the turn's are sent as one script call at its end. */
  interface PendingAdmission {
    scopes: readonly LimitScope[];
    tokens: number;
    member: string;
    ttlMs: number;
    done: (decision: WindowAdmission) => void;
    fail: (error: unknown) => void;
  }
  interface PendingSettlement {
    scopes: readonly LimitScope[];
    member: string;
    second: number;
    estimate: number;
    actual: number;
  }
  const admissions = turnBatch<PendingAdmission>(admitBatch);
  const settlements = turnBatch<PendingSettlement>(settleBatch);
  const releases = turnBatch<{ scope: string; second: number; requests: number; tokens: number }>(releaseBatch);
  const slices = new Map<string, Slice>();
  /** Scopes whose slice is being reserved (a batch already on its way asked for it). */
  const reserving = new Set<string>();

  /** Ends a scope's slice (its second is over, or another replaces it) and hands back what it did not use. */
  function dropSlice(scope: string, slice: Slice): void {
    clearTimeout(slice.timer);
    if (slices.get(scope) === slice) slices.delete(scope);
    if (slice.requests > 0 || slice.tokens > 0) releases.add({ scope, second: slice.second, requests: slice.requests, tokens: slice.tokens });
    slice.requests = 0;
    slice.tokens = 0;
  }

  /** The scope's slice while its second lasts and its limits are the scope's. */
  function currentSlice(scope: LimitScope, now: number): Slice | undefined {
    const slice = slices.get(scope.id);
    return slice && now < slice.until && sameLimits(slice.limits, scope.limits) ? slice : undefined;
  }

  /** The scope's slice, when it can admit `tokens` more now under these limits. */
  function liveSlice(scope: LimitScope, tokens: number, now: number): Slice | undefined {
    const slice = currentSlice(scope, now);
    if (!slice) return undefined;
    if (scope.limits.requestsPerMinute !== null && slice.requests < 1) return undefined;
    if (scope.limits.tokensPerMinute !== null && slice.tokens < tokens) return undefined;
    return slice;
  }

  /**
   * Settles a request that ends within the second it was admitted in, when every scope has a
   * live slice of that second: its estimate and its actual tokens would both land in that
   * second's bucket, which holds the slice, so the slice takes them and hands back the
   * difference with its unused part. True when it did; else Redis settles it.
   */
  function settleLocally(scopes: readonly LimitScope[], second: number, estimate: number, actual: number): boolean {
    const now = Date.now();
    const held: Slice[] = [];
    for (const scope of scopes) {
      const slice = currentSlice(scope, now);
      if (!slice || slice.second !== second) return false;
      if (scope.limits.tokensPerMinute !== null && slice.tokens + estimate - actual < 0) return false;
      held.push(slice);
    }
    for (const slice of held) {
      if (slice.limits.tokensPerMinute === null) continue;
      slice.tokens += estimate - actual;
      slice.use.tokensUsed = Math.max(0, slice.use.tokensUsed + actual - estimate);
    }
    return true;
  }

  /** Admits from this instance's slices when every scope has one of the same second with room; else undefined. */
  function admitLocally(scopes: readonly LimitScope[], tokens: number): WindowAdmission | undefined {
    const now = Date.now();
    const taken: Slice[] = [];
    for (const scope of scopes) {
      const slice = liveSlice(scope, tokens, now);
      if (!slice || (taken.length && slice.second !== taken[0]!.second)) return undefined;
      taken.push(slice);
    }
    const uses = taken.map((slice) => ({ ...slice.use }));
    for (const slice of taken) {
      if (slice.limits.requestsPerMinute !== null) {
        slice.requests--;
        slice.use.requestsUsed++;
        slice.use.requestsOldest ??= slice.second;
      }
      if (slice.limits.tokensPerMinute !== null && tokens > 0) {
        slice.tokens -= tokens;
        slice.use.tokensUsed += tokens;
        slice.use.tokensOldest ??= slice.second;
      }
    }
    return { admitted: true, nowMs: now, second: taken[0]!.second, uses };
  }

  /** One decision from the script's flat answer at `at`; returns it and where the next one starts. */
  function decisionAt(values: number[], at: number, scopes: readonly LimitScope[]): [WindowAdmission, number] {
    const [admitted, nowMs, second, index, kind, used, requested, wait] = values.slice(at, at + 8) as [number, number, number, number, 1 | 2 | 3, number, number, number];
    const uses: ScopeUse[] = scopes.map((_, i) => {
      const [ru, ro, tu, to, inFlight] = values.slice(at + 8 + 5 * i, at + 13 + 5 * i) as [number, number, number, number, number];
      return { requestsUsed: ru, requestsOldest: ro < 0 ? undefined : ro, tokensUsed: tu, tokensOldest: to < 0 ? undefined : to, inFlight };
    });
    const next = at + 8 + 5 * scopes.length;
    if (admitted) return [{ admitted: true, nowMs, second, uses }, next];
    const scope = scopes[index - 1]!;
    const limits = scope.limits;
    const limit = kind === 1 ? limits.requestsPerMinute! : kind === 2 ? limits.tokensPerMinute! : limits.maxConcurrent!;
    const refusal: Refusal = { scope: scope.id, kind: KIND[kind], limit, used, requested, retryAfterMs: wait < 0 ? Infinity : wait };
    return [{ admitted: false, nowMs, refusal, uses }, next];
  }

  /**
   * Sends the turn's admissions in one script call: under load many requests arrive per turn,
   * and one call (one write, one reply, each window read once) costs far less than one each.
   * They are decided in the order they were asked, as separate calls would have been.
   */
  async function admitBatch(batch: PendingAdmission[]): Promise<void> {
    const keys: string[] = [];
    const args: (string | number)[] = [batch.length];
    // A slice for each scope that can have one and has none with room now (one per scope).
    const reserve = new Map<string, { scope: LimitScope; size: { requests: number; tokens: number } }>();
    const now = Date.now();
    for (const { scopes, tokens, member, ttlMs } of batch) {
      args.push(scopes.length, tokens, member, ttlMs);
      for (const scope of scopes) {
        const { id, limits: l } = scope;
        keys.push(key(id, 'r'), key(id, 't'), key(id, 'c'), key(id, 'rs'), key(id, 'ts'));
        args.push(limitArg(l.requestsPerMinute), limitArg(l.tokensPerMinute), limitArg(l.maxConcurrent));
        const size = sliceOf(l);
        if (size && !reserve.has(id) && !reserving.has(id) && !liveSlice(scope, tokens, now)) reserve.set(id, { scope, size });
      }
    }
    args.push(reserve.size);
    for (const id of reserve.keys()) reserving.add(id);
    for (const { scope: { id, limits: l }, size } of reserve.values()) {
      keys.push(key(id, 'r'), key(id, 't'), key(id, 'rs'), key(id, 'ts'));
      args.push(limitArg(l.requestsPerMinute), limitArg(l.tokensPerMinute), size.requests, size.tokens);
    }
    let answered = 0;
    try {
      const result = await attempt(() => scripts.svcRateAdmit(keys.length, ...keys, ...args) as Promise<number[]>);
      if (!result.ok) {
        for (const { scopes, tokens, member, ttlMs, done } of batch) {
          const local = await fallback.admit(scopes, tokens, member, ttlMs);
          if (local.admitted) counted.add(member);
          done(local);
          answered++;
        }
        return;
      }
      let at = 0;
      const decisions: WindowAdmission[] = [];
      for (const { scopes } of batch) {
        const [decision, next] = decisionAt(result.value, at, scopes);
        decisions.push(decision);
        at = next;
      }
      // The slices first, so the requests answered next in this turn can already use them.
      const nowMs = decisions[0]!.nowMs;
      for (const { scope, size } of reserve.values()) {
        const [reserved, second, ru, ro, tu, to] = result.value.slice(at, at + 6) as [number, number, number, number, number, number];
        at += 6;
        if (!reserved) continue;
        const old = slices.get(scope.id);
        if (old) dropSlice(scope.id, old);
        const lasts = Math.max(0, (second + 1) * 1000 - nowMs);
        const slice: Slice = {
          limits: scope.limits, second, until: Date.now() + lasts,
          requests: scope.limits.requestsPerMinute === null ? 0 : size.requests,
          tokens: scope.limits.tokensPerMinute === null ? 0 : size.tokens,
          use: { requestsUsed: ru, ...(ro < 0 ? {} : { requestsOldest: ro }), tokensUsed: tu, ...(to < 0 ? {} : { tokensOldest: to }), inFlight: 0 },
          timer: setTimeout(() => dropSlice(scope.id, slice), lasts + 1),
        };
        slice.timer.unref();
        slices.set(scope.id, slice);
      }
      for (const [i, { done }] of batch.entries()) {
        done(decisions[i]!);
        answered++;
      }
    } catch (error) {
      for (const pending of batch.slice(answered)) pending.fail(error);
    } finally {
      for (const id of reserve.keys()) reserving.delete(id);
    }
  }

  /** Sends the turn's settlements in one script call (not awaited on any request's path). */
  async function settleBatch(batch: PendingSettlement[]): Promise<void> {
    const keys: string[] = [];
    const args: (string | number)[] = [batch.length];
    for (const { scopes, member, second, estimate, actual } of batch) {
      args.push(scopes.length, member, second, estimate, actual);
      for (const { id, limits: l } of scopes) {
        keys.push(key(id, 't'), key(id, 'c'), key(id, 'ts'));
        args.push(l.tokensPerMinute === null ? 0 : 1, l.maxConcurrent === null ? 0 : 1);
      }
    }
    // A failure leaves the estimates counted until their bucket drops and the requests in flight until their TTL.
    await attempt(() => scripts.svcRateSettle(keys.length, ...keys, ...args));
  }

  /** Hands the turn's unused slices back in one script call. */
  async function releaseBatch(batch: { scope: string; second: number; requests: number; tokens: number }[]): Promise<void> {
    const keys: string[] = [];
    const args: number[] = [];
    for (const { scope, second, requests, tokens } of batch) {
      if (requests > 0) keys.push(key(scope, 'r'), key(scope, 'rs')), args.push(second, requests);
      if (tokens > 0) keys.push(key(scope, 't'), key(scope, 'ts')), args.push(second, tokens);
    }
    // A failure leaves the slice counted until its bucket drops: a request or two refused early, never one too many.
    if (keys.length) await attempt(() => scripts.svcRateRelease(keys.length, ...keys, ...args));
  }

  return {
    kind: 'redis',
    admit(scopes, tokens, member, inFlightTtlMs) {
      const local = admitLocally(scopes, tokens);
      if (local) return Promise.resolve(local);
      return new Promise<WindowAdmission>((done, fail) => admissions.add({ scopes, tokens, member, ttlMs: inFlightTtlMs, done, fail }));
    },

    async settle(scopes, member, second, estimate, actual) {
      if (counted.delete(member)) return fallback.settle(scopes, member, second, estimate, actual);
      if (settleLocally(scopes, second, estimate, actual)) return;
      // A live slice's view of its window follows the settlement (the estimate leaves only a bucket still counted).
      const taken = second >= oldestCounted(Math.floor(Date.now() / 1000)) ? estimate : 0;
      for (const { id, limits } of scopes) {
        const slice = slices.get(id);
        if (slice && limits.tokensPerMinute !== null) slice.use.tokensUsed = Math.max(0, slice.use.tokensUsed + actual - taken);
      }
      settlements.add({ scopes, member, second, estimate, actual });
    },

    async renew(inFlight, inFlightTtlMs) {
      const shared = inFlight.filter((f) => !counted.has(f.member));
      await fallback.renew(inFlight.filter((f) => counted.has(f.member)), inFlightTtlMs);
      if (!shared.length) return;
      const keys = shared.map((f) => key(f.scope, 'c'));
      await attempt(() => scripts.svcRateRenew(keys.length, ...keys, inFlightTtlMs, ...shared.map((f) => f.member)));
    },

    async close() {
      await admissions.flush();
      for (const [scope, slice] of [...slices]) dropSlice(scope, slice);
      await settlements.flush();
      await releases.flush();
      await redis.quit().catch(() => redis.disconnect());
      await fallback.close();
    },
  };
}
