import { Redis } from 'ioredis';
import { SvcError } from '../errors.js';
import type { Logger } from '../logger.js';

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
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How long a Redis command may take before the cache counts as unreachable, ms. */
const COMMAND_TIMEOUT_MS = 500;

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
    connectTimeout: 2000,
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
  /** Runs a command unless Redis is known to be down; a failure marks it down. */
  async function attempt<T>(command: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
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
    async get(key) {
      const result = await attempt(() => redis.get(key));
      return result.ok ? (result.value ?? undefined) : undefined;
    },
    async set(key, value, ttlSeconds) {
      if (ttlSeconds > 0) await attempt(() => redis.set(key, value, 'EX', ttlSeconds));
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
    async ping() {
      const result = await attempt(() => redis.ping());
      if (!result.ok) throw unavailable();
    },
    async close() {
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
    async ping() {},
    async close() {
      entries.clear();
    },
  };
}

export function createCache(options: { redisUrl?: string; prefix: string; log?: Logger }): Cache {
  return options.redisUrl ? createRedisCache(options.redisUrl, options.prefix, options.log) : createMemoryCache();
}
