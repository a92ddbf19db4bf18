import { writeCoalescer, type Logger } from '@svc/kit';
import { Redis } from 'ioredis';
import { WINDOW_BUCKETS, type Refusal } from '../domain/rate-limits.js';
import { createMemoryRateWindows, type RateWindowStore, type ScopeUse } from './rate-window-store.js';

/**
 * The admission step, atomic in Redis (a script runs alone), on Redis's clock so every instance
 * counts the same seconds. Per scope: a hash of request counts and one of tokens, by second, and
 * a sorted set of requests in flight scored by when they stop counting. It mirrors
 * domain/rate-limits.ts: the same buckets, the same waits. Answers, flat: admitted (1/0), now in
 * ms, the second, the refusal (scope index, kind, used, requested, wait ms; -1 for never), then
 * per scope requests used, their oldest bucket, tokens used, their oldest bucket, in flight.
 */
const ADMIT = `
local t = redis.call('TIME')
local sec = tonumber(t[1])
local now = sec * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = sec - ${WINDOW_BUCKETS - 1}
local n, need, member, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
-- One pass over a window: what it counts and its oldest counted bucket (-1 when empty); stale
-- buckets are deleted. Nothing is allocated unless there is something stale.
local function use(key)
  local all = redis.call('HGETALL', key)
  local used, first, stale = 0, -1, nil
  for i = 1, #all, 2 do
    local b = tonumber(all[i])
    if b < oldest then
      if not stale then stale = {} end
      stale[#stale + 1] = all[i]
    else
      local v = tonumber(all[i + 1])
      if v ~= 0 then
        used = used + v
        if first < 0 or b < first then first = b end
      end
    end
  end
  if stale then redis.call('HDEL', key, unpack(stale)) end
  return used, first, all
end
-- How long until amount fits under limit: 0 now, -1 never; only a refusal needs the buckets in order.
local function wait(used, all, limit, amount)
  if amount > limit then return -1 end
  local excess = used + amount - limit
  if excess <= 0 then return 0 end
  local buckets = {}
  for i = 1, #all, 2 do
    local b, v = tonumber(all[i]), tonumber(all[i + 1])
    if b >= oldest and v ~= 0 then buckets[#buckets + 1] = {b, v} end
  end
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  for _, b in ipairs(buckets) do
    excess = excess - b[2]
    if excess <= 0 then return math.max(1, (b[1] + ${WINDOW_BUCKETS}) * 1000 - now) end
  end
  return -1
end
local refusal, uses = nil, {}
for i = 1, n do
  local k, a = 3 * (i - 1), 4 + 3 * (i - 1)
  local rpm, tpm, conc = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local ru, ro, tu, to, inflight = 0, -1, 0, -1, 0
  if rpm >= 0 then
    local used, first, all = use(KEYS[k + 1])
    ru, ro = used, first
    if not refusal then local w = wait(used, all, rpm, 1); if w ~= 0 then refusal = {i, 1, used, 1, w} end end
  end
  if tpm >= 0 then
    local used, first, all = use(KEYS[k + 2])
    tu, to = used, first
    if not refusal then local w = wait(used, all, tpm, need); if w ~= 0 then refusal = {i, 2, used, need, w} end end
  end
  if conc >= 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[k + 3], '-inf', now)
    inflight = redis.call('ZCARD', KEYS[k + 3])
    if not refusal and inflight >= conc then refusal = {i, 3, inflight, 1, 1000} end
  end
  uses[#uses + 1] = ru; uses[#uses + 1] = ro; uses[#uses + 1] = tu; uses[#uses + 1] = to; uses[#uses + 1] = inflight
end
local head
if refusal then
  head = {0, now, sec, refusal[1], refusal[2], refusal[3], refusal[4], refusal[5]}
else
  for i = 1, n do
    local k, a = 3 * (i - 1), 4 + 3 * (i - 1)
    if tonumber(ARGV[a + 1]) >= 0 then redis.call('HINCRBY', KEYS[k + 1], sec, 1); redis.call('PEXPIRE', KEYS[k + 1], ${WINDOW_BUCKETS + 1} * 1000) end
    if tonumber(ARGV[a + 2]) >= 0 and need > 0 then redis.call('HINCRBY', KEYS[k + 2], sec, need); redis.call('PEXPIRE', KEYS[k + 2], ${WINDOW_BUCKETS + 1} * 1000) end
    if tonumber(ARGV[a + 3]) >= 0 then redis.call('ZADD', KEYS[k + 3], now + ttl, member); redis.call('PEXPIRE', KEYS[k + 3], ttl) end
  end
  head = {1, now, sec, 0, 0, 0, 0, 0}
end
for _, v in ipairs(uses) do head[#head + 1] = v end
return head`;

/** The request ended: its token estimate leaves its bucket, its actual tokens land in this second's, and it leaves the in-flight set. */
const SETTLE = `
local sec = tonumber(redis.call('TIME')[1])
local n, member, admitted, estimate, actual = tonumber(ARGV[1]), ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 1, n do
  local tk, ck = KEYS[2 * i - 1], KEYS[2 * i]
  if ARGV[4 + 2 * i] == '1' then
    if tonumber(admitted) >= sec - ${WINDOW_BUCKETS - 1} and estimate > 0 and redis.call('HEXISTS', tk, admitted) == 1 then
      if redis.call('HINCRBY', tk, admitted, -estimate) <= 0 then redis.call('HDEL', tk, admitted) end
    end
    if actual > 0 then redis.call('HINCRBY', tk, sec, actual); redis.call('PEXPIRE', tk, ${WINDOW_BUCKETS + 1} * 1000) end
  end
  if ARGV[5 + 2 * i] == '1' then redis.call('ZREM', ck, member) end
end
return 1`;

/** Requests still in flight stay counted for another TTL (only those still in the set). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[1]), ARGV[i + 1]); redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1])) end
return 1`;

const KIND = { 1: 'requests', 2: 'tokens', 3: 'concurrent' } as const;
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
  // Settlements are not awaited on a request's path: those of one turn leave in one write.
  const coalesce = writeCoalescer(redis);
  const key = (scope: string, part: 'r' | 't' | 'c') => `${prefix}llm:rl:{${scope}}:${part}`;
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

  return {
    kind: 'redis',
    async admit(scopes, tokens, member, inFlightTtlMs) {
      const keys = scopes.flatMap((s) => [key(s.id, 'r'), key(s.id, 't'), key(s.id, 'c')]);
      const args = [scopes.length, tokens, member, inFlightTtlMs, ...scopes.flatMap(({ limits: l }) => [limitArg(l.requestsPerMinute), limitArg(l.tokensPerMinute), limitArg(l.maxConcurrent)])];
      const result = await attempt(() => scripts.svcRateAdmit(keys.length, ...keys, ...args) as Promise<number[]>);
      if (!result.ok) {
        const local = await fallback.admit(scopes, tokens, member, inFlightTtlMs);
        if (local.admitted) counted.add(member);
        return local;
      }
      const [admitted, nowMs, second, index, kind, used, requested, wait] = result.value as [number, number, number, number, 1 | 2 | 3, number, number, number];
      const uses: ScopeUse[] = scopes.map((_, i) => {
        const [ru, ro, tu, to, inFlight] = result.value.slice(8 + 5 * i, 13 + 5 * i) as [number, number, number, number, number];
        return { requestsUsed: ru, requestsOldest: ro < 0 ? undefined : ro, tokensUsed: tu, tokensOldest: to < 0 ? undefined : to, inFlight };
      });
      if (admitted) return { admitted: true, nowMs, second, uses };
      const scope = scopes[index - 1]!;
      const limits = scope.limits;
      const limit = kind === 1 ? limits.requestsPerMinute! : kind === 2 ? limits.tokensPerMinute! : limits.maxConcurrent!;
      const refusal: Refusal = { scope: scope.id, kind: KIND[kind], limit, used, requested, retryAfterMs: wait < 0 ? Infinity : wait };
      return { admitted: false, nowMs, refusal, uses };
    },

    async settle(scopes, member, second, estimate, actual) {
      const keys = scopes.flatMap((s) => [key(s.id, 't'), key(s.id, 'c')]);
      const args = [scopes.length, member, second, estimate, actual, ...scopes.flatMap(({ limits: l }) => [l.tokensPerMinute === null ? 0 : 1, l.maxConcurrent === null ? 0 : 1])];
      if (counted.delete(member)) return fallback.settle(scopes, member, second, estimate, actual);
      // A failure leaves the estimate counted until its bucket drops and the request in flight until its TTL.
      coalesce();
      await attempt(() => scripts.svcRateSettle(keys.length, ...keys, ...args));
    },

    async renew(inFlight, inFlightTtlMs) {
      const shared = inFlight.filter((f) => !counted.has(f.member));
      await fallback.renew(inFlight.filter((f) => counted.has(f.member)), inFlightTtlMs);
      if (!shared.length) return;
      const keys = shared.map((f) => key(f.scope, 'c'));
      await attempt(() => scripts.svcRateRenew(keys.length, ...keys, inFlightTtlMs, ...shared.map((f) => f.member)));
    },

    async close() {
      await redis.quit().catch(() => redis.disconnect());
      await fallback.close();
    },
  };
}
