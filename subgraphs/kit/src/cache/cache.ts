import { Redis } from 'ioredis';

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

export function createRedisCache(url: string, prefix: string): Cache {
  const redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  return {
    kind: 'redis',
    async get(key) {
      return (await redis.get(key)) ?? undefined;
    },
    async set(key, value, ttlSeconds) {
      if (ttlSeconds > 0) await redis.set(key, value, 'EX', ttlSeconds);
    },
    async del(...keys) {
      return keys.length ? redis.del(...keys) : 0;
    },
    async hit(key, windowSeconds) {
      const [[, count], [, ttl]] = (await redis.multi().incr(key).ttl(key).exec()) as [[null, number], [null, number]];
      if (ttl < 0) await redis.expire(key, windowSeconds);
      return { count, resetInSeconds: ttl < 0 ? windowSeconds : ttl };
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
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

export function createCache(options: { redisUrl?: string; prefix: string }): Cache {
  return options.redisUrl ? createRedisCache(options.redisUrl, options.prefix) : createMemoryCache();
}
