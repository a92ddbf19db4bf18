import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createCache, type Cache } from '@svc/kit';
import { eventually } from './support/eventually.js';
import { REDIS_URL, requireRedis } from './support/services.js';

/**
 * The Redis cache's writes on a real Redis, watched with MONITOR: the writes of one turn of the
 * event loop leave as one command, each key with its own value and TTL; a lone write is a plain SET.
 */

const prefix = `svctest:cache-writes:${process.pid}:${Date.now()}:`;
let cache: Cache;
let raw: Redis;
let monitorClient: Redis;
let monitor: Redis;
/** The commands clients sent on this test's keys, as MONITOR shows them (name lower-cased, then arguments). */
const seen: string[][] = [];

beforeAll(async () => {
  await requireRedis();
  cache = createCache({ redisUrl: REDIS_URL, prefix });
  raw = new Redis(REDIS_URL, { keyPrefix: prefix });
  // monitor() opens a connection of its own: both are closed at the end.
  monitorClient = new Redis(REDIS_URL);
  monitor = await monitorClient.monitor();
  // Commands a script runs show up too, with the source "lua": only the client's own are kept.
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua' && args.some((a) => a.startsWith(prefix))) seen.push([args[0]!.toLowerCase(), ...args.slice(1)]);
  });
  await cache.ping();
});

afterAll(async () => {
  const keys = await raw.keys(`${prefix}*`);
  if (keys.length) await raw.del(...keys.map((k) => k.slice(prefix.length)));
  monitor?.disconnect();
  await Promise.all([cache?.close(), raw?.quit(), monitorClient?.quit()]);
});

describe('Redis cache writes', () => {
  it('sends the writes of one turn as one command, each with its own value and TTL', async () => {
    seen.length = 0;
    const values = Array.from({ length: 20 }, (_, i) => `value ${i}: "quoted", new\nline, é, ${'x'.repeat(i * 100)}`);
    await Promise.all(values.map((value, i) => cache.set(`turn:${i}`, value, 60 + i)));
    for (const [i, value] of values.entries()) {
      expect(await cache.get(`turn:${i}`)).toBe(value);
      const ttl = await raw.ttl(`turn:${i}`);
      expect(ttl).toBeGreaterThan(55 + i);
      expect(ttl).toBeLessThanOrEqual(60 + i);
    }
    const writes = await eventually(async () => {
      const found = seen.filter(([name]) => name !== 'get' && name !== 'ttl');
      return found.length ? found : undefined;
    }, 5000, 'the writes in MONITOR');
    // One script call with all 20 keys (an EVAL may follow a first EVALSHA the server did not know yet).
    for (const [name, , keyCount] of writes) {
      expect(['evalsha', 'eval']).toContain(name);
      expect(keyCount).toBe('20');
    }
    expect(writes.filter(([name]) => name === 'set')).toEqual([]);
  });

  it('sends a lone write as a plain SET with its TTL, and writes nothing for a TTL of 0', async () => {
    seen.length = 0;
    await cache.set('lone', 'one', 30);
    await cache.set('never', 'kept', 0);
    expect(await cache.get('lone')).toBe('one');
    expect(await cache.get('never')).toBeUndefined();
    const set = await eventually(async () => seen.find(([name]) => name === 'set'), 5000, 'the SET in MONITOR');
    expect(set).toEqual(['set', `${prefix}lone`, 'one', 'EX', '30']);
  });
});

describe('Redis cache start-up', () => {
  it('answers a command sent before its first connection is up, rather than reporting Redis down', async () => {
    const fresh = createCache({ redisUrl: REDIS_URL, prefix: `${prefix}fresh:` });
    try {
      // No await between creating and using it: the connection is still being made.
      await expect(fresh.ping()).resolves.toBeUndefined();
      await fresh.set('k', 'v', 30);
      expect(await fresh.get('k')).toBe('v');
    } finally {
      await fresh.close();
    }
  });

  it('still reports a Redis nobody listens on as unreachable, and reads miss', async () => {
    const nowhere = createCache({ redisUrl: 'redis://127.0.0.1:1', prefix: `${prefix}nowhere:` });
    try {
      await expect(nowhere.ping()).rejects.toThrow('The cache (Redis) is unreachable');
      expect(await nowhere.get('k')).toBeUndefined();
    } finally {
      await nowhere.close();
    }
  });
});
