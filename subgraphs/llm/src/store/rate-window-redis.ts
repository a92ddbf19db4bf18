import type { Logger } from '@svc/kit';
import { Redis } from 'ioredis';
import type { LimitScope, Refusal } from '../domain/rate-limits.js';
import { ADMIT, RENEW, SETTLE } from './rate-window-scripts.js';
import { createMemoryRateWindows, type RateWindowStore, type ScopeUse, type WindowAdmission } from './rate-window-store.js';

const KIND = { 1: 'requests', 2: 'tokens', 3: 'concurrent' } as const;

/** Items queued in one turn of the event loop, handed to `send` together in its check phase (or by `flush`). */
function turnBatch<T>(send: (batch: T[]) => Promise<void>): { add(item: T): void; flush(): Promise<void> } {
  let queued: T[] = [];
  const flush = async (): Promise<void> => {
    const batch = queued;
    queued = [];
    if (batch.length) await send(batch);
  };
  return {
    add(item) {
      if (!queued.length) setImmediate(() => void flush());
      queued.push(item);
    },
    flush,
  };
}
const limitArg = (value: number | null) => (value === null ? -1 : value);

/**
 * Rate windows in Redis, shared by every gateway instance on it. Fails like the cache: bounded
 * timeouts and no offline queue; while Redis is unreachable each instance counts in its own
 * memory (logged once), so limits then hold per instance.
 */
export function createRedisRateWindows(url: string, prefix: string, log: Logger): RateWindowStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 500, retryStrategy: (attempt) => Math.min(attempt * 250, 5000) });
  // EVALSHA, loading the script once (ioredis retries with EVAL after NOSCRIPT); the key count comes first.
  redis.defineCommand('svcRateAdmit', { lua: ADMIT });
  redis.defineCommand('svcRateSettle', { lua: SETTLE });
  redis.defineCommand('svcRateRenew', { lua: RENEW });
  const scripts = redis as unknown as Record<'svcRateAdmit' | 'svcRateSettle' | 'svcRateRenew', (...args: (string | number)[]) => Promise<unknown>>;
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
    for (const { scopes, tokens, member, ttlMs } of batch) {
      args.push(scopes.length, tokens, member, ttlMs);
      for (const { id, limits: l } of scopes) {
        keys.push(key(id, 'r'), key(id, 't'), key(id, 'c'), key(id, 'rs'), key(id, 'ts'));
        args.push(limitArg(l.requestsPerMinute), limitArg(l.tokensPerMinute), limitArg(l.maxConcurrent));
      }
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
      for (const { scopes, done } of batch) {
        const [decision, next] = decisionAt(result.value, at, scopes);
        done(decision);
        answered++;
        at = next;
      }
    } catch (error) {
      for (const pending of batch.slice(answered)) pending.fail(error);
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

  return {
    kind: 'redis',
    admit(scopes, tokens, member, inFlightTtlMs) {
      return new Promise<WindowAdmission>((done, fail) => admissions.add({ scopes, tokens, member, ttlMs: inFlightTtlMs, done, fail }));
    },

    async settle(scopes, member, second, estimate, actual) {
      if (counted.delete(member)) return fallback.settle(scopes, member, second, estimate, actual);
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
      await settlements.flush();
      await redis.quit().catch(() => redis.disconnect());
      await fallback.close();
    },
  };
}
