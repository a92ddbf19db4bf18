import { Redis } from 'ioredis';
import { SvcError } from '../errors.js';
import type { Logger } from '../logger.js';
import { turnBatch } from './turn-batch.js';
import { gateStep, keepMs, settleStep, type BackoffPolicy, type GateResult, type GateSettlement, type GateState } from './attempt-gate.js';

/**
 * The small key-value surface services need: a delivery/response cache and fixed-window
 * counters for rate limits. Redis when REDIS_URL is set; otherwise in-process (one process only).
 */
export interface Cache {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Deletes keys; resolves to how many existed. */
  del(...keys: string[]): Promise<number>;
  /** Increments a counter that expires `windowSeconds` after its first hit; returns count and seconds left. */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetInSeconds: number }>;
  /** Counts an attempt at `key` through a growing-delay gate (see attempt-gate.ts); atomic across instances on Redis. */
  attempt(key: string, policy: BackoffPolicy): Promise<GateResult>;
  /** After a success: forgets the key, or takes back the one attempt it counted. */
  settle(key: string, how: GateSettlement, policy: BackoffPolicy): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// The gate's step (attempt-gate.ts) in Redis, on Redis's clock so that instances agree.
const ATTEMPT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free, first, cap, idle = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local v = redis.call('HMGET', KEYS[1], 'attempts', 'nextAt')
local attempts = tonumber(v[1]) or 0
local nextAt = tonumber(v[2]) or 0
if now < nextAt then return {0, attempts, nextAt - now} end
attempts = attempts + 1
local delay = 0
if attempts >= free then delay = math.min(cap, first * 2 ^ math.min(40, attempts - free)) end
redis.call('HSET', KEYS[1], 'attempts', attempts, 'nextAt', string.format('%.0f', now + delay))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', delay + idle))
return {1, attempts, string.format('%.0f', delay)}`;
const SETTLE_SCRIPT = `
if ARGV[1] == 'reset' then redis.call('DEL', KEYS[1]) return 0 end
local attempts = (tonumber(redis.call('HGET', KEYS[1], 'attempts')) or 0) - 1
if attempts <= 0 then redis.call('DEL', KEYS[1]) return 0 end
redis.call('HSET', KEYS[1], 'attempts', attempts)
if attempts < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], 'nextAt', 0) end
return attempts`;

// One turn's cache writes in one command (each key with its own value and TTL).
const SET_MANY = `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'EX', ARGV[2 * i]) end
return #KEYS`;

/** How long a Redis command may take before the cache counts as unreachable, ms. */
const COMMAND_TIMEOUT_MS = 500;
/** How long connecting to Redis may take, ms. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * Redis that fails fast and degrades: bounded connect and command timeouts and no offline
 * queue, so an unreachable Redis costs a request at most {@link COMMAND_TIMEOUT_MS}, and not
 * at all once it is known to be down (reconnects back off up to 5 s). While it is down, reads
 * miss and writes are skipped (delivery and responses go uncached), rate-limit counters are
 * kept in this process, and deletes (purges) are refused with 503, since a purge that did not
 * happen must not look done. A state change is logged once, not every failed command.
 */
export function createRedisCache(url: string, prefix: string, log?: Logger): Cache {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
    lazyConnect: false,
  });
  const fallback = createMemoryCache();
  let up = true;
  const down = (error: unknown) => {
    if (up) log?.warn({ dependency: 'redis', reason: (error as Error).message }, 'redis unreachable: cache degraded (uncached reads, per-process rate limits, purges refused) until it is back');
    up = false;
  };
  redis.on('error', down);
  redis.on('ready', () => {
    if (!up) log?.info({ dependency: 'redis' }, 'redis reachable again');
    up = true;
  });
  const unavailable = () => new SvcError('UNAVAILABLE', 'The cache (Redis) is unreachable; retry shortly', { retryAfter: 5 });
  // The first connection: a command sent before it is up would fail at once (there is no offline
  // queue) and report a Redis that is merely starting as down, so it waits for it, at most the connect timeout.
  const firstConnection = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', done);
    redis.once('error', done);
    redis.once('end', done);
  });
  /** Runs a command unless Redis is known to be down; a failure marks it down. */
  async function attempt<T>(command: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    if (redis.status === 'connecting' || redis.status === 'connect') await firstConnection;
    if (!up && redis.status !== 'ready') return { ok: false };
    try {
      return { ok: true, value: await command() };
    } catch (error) {
      down(error);
      return { ok: false };
    }
  }
  // EVALSHA, loading the script once (ioredis retries with EVAL after NOSCRIPT); the key count comes first.
  redis.defineCommand('svcSetMany', { lua: SET_MANY });
  const setMany = (redis as unknown as { svcSetMany(...args: (string | number)[]): Promise<number> }).svcSetMany.bind(redis);
  // One turn's writes in one command (about 15 per turn at concurrency 64 in the gateway benchmark); a lone write is a plain SET.
  const writes = turnBatch<[key: string, value: string, ttlSeconds: number]>(async (batch) => {
    if (batch.length === 1) {
      const [[key, value, ttl]] = batch as [[string, string, number]];
      await attempt(() => redis.set(key, value, 'EX', ttl));
    } else await attempt(() => setMany(batch.length, ...batch.map(([key]) => key), ...batch.flatMap(([, value, ttl]) => [value, ttl])));
  });
  return {
    kind: 'redis',
    async get(key) {
      const result = await attempt(() => redis.get(key));
      return result.ok ? (result.value ?? undefined) : undefined;
    },
    set(key, value, ttlSeconds) {
      return ttlSeconds > 0 ? writes.add([key, value, Math.ceil(ttlSeconds)]) : Promise.resolve();
    },
    async del(...keys) {
      if (!keys.length) return 0;
      const result = await attempt(() => redis.del(...keys));
      if (!result.ok) throw unavailable();
      return result.value;
    },
    async hit(key, windowSeconds) {
      const result = await attempt(async () => {
        const [[, count], [, ttl]] = (await redis.multi().incr(key).ttl(key).exec()) as [[null, number], [null, number]];
        if (ttl < 0) await redis.expire(key, windowSeconds);
        return { count, resetInSeconds: ttl < 0 ? windowSeconds : ttl };
      });
      return result.ok ? result.value : fallback.hit(key, windowSeconds);
    },
    async attempt(key, policy) {
      const result = await attempt(async () => {
        const [allowed, attempts, delayMs] = (await redis.eval(ATTEMPT_SCRIPT, 1, key, policy.freeAttempts, policy.firstDelayMs, policy.maxDelayMs, policy.idleMs)) as [number, number, number | string];
        return { allowed: allowed === 1, attempts: Number(attempts), delayMs: Number(delayMs) };
      });
      return result.ok ? result.value : fallback.attempt(key, policy);
    },
    async settle(key, how, policy) {
      const result = await attempt(() => redis.eval(SETTLE_SCRIPT, 1, key, how, policy.freeAttempts));
      if (!result.ok) await fallback.settle(key, how, policy);
    },
    async ping() {
      const result = await attempt(() => redis.ping());
      if (!result.ok) throw unavailable();
    },
    async close() {
      await writes.flush();
      await redis.quit().catch(() => redis.disconnect());
      await fallback.close();
    },
  };
}

export function createMemoryCache(maxEntries = 10_000): Cache {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    kind: 'memory',
    async get(key) {
      return live(key)?.value;
    },
    async set(key, value, ttlSeconds) {
      if (ttlSeconds <= 0) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async del(...keys) {
      return keys.filter((k) => live(k) && entries.delete(k)).length;
    },
    async hit(key, windowSeconds) {
      const entry = live(key) ?? { value: '0', expiresAt: Date.now() + windowSeconds * 1000 };
      entry.value = String(Number(entry.value) + 1);
      entries.set(key, entry);
      return { count: Number(entry.value), resetInSeconds: Math.ceil((entry.expiresAt - Date.now()) / 1000) };
    },
    async attempt(key, policy) {
      const now = Date.now();
      const stored = live(key);
      const { state, result } = gateStep(stored ? (JSON.parse(stored.value) as GateState) : undefined, now, policy);
      if (result.allowed) {
        if (!stored && entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { value: JSON.stringify(state), expiresAt: now + keepMs(state, now, policy) });
      }
      return result;
    },
    async settle(key, how, policy) {
      const stored = live(key);
      const state = settleStep(stored ? (JSON.parse(stored.value) as GateState) : undefined, how, policy);
      if (state) entries.set(key, { value: JSON.stringify(state), expiresAt: stored!.expiresAt });
      else entries.delete(key);
    },
    async ping() {},
    async close() {
      entries.clear();
    },
  };
}

export function createCache(options: { redisUrl?: string; prefix: string; log?: Logger }): Cache {
  return options.redisUrl ? createRedisCache(options.redisUrl, options.prefix, options.log) : createMemoryCache();
}
