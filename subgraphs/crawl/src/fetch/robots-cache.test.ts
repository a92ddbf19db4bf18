import { describe, expect, it } from '@jest/globals';
import { createRobotsPolicy, disallowAllPolicy } from '../domain/robots.js';
import { createRobotsCache, type RobotsCacheEntry } from './robots-cache.js';

function harness(entry: (origin: string) => RobotsCacheEntry = () => ({ policy: createRobotsPolicy(null) })) {
  let t = 0;
  const loads: string[] = [];
  const cache = createRobotsCache({
    ttlMs: 1000,
    failureTtlMs: 100,
    maxEntries: 3,
    now: () => t,
    load: async (origin) => {
      loads.push(origin);
      return entry(origin);
    },
  });
  return { cache, loads, advance: (ms: number) => void (t += ms) };
}

describe('robots cache', () => {
  it('loads an origin once and shares concurrent loads', async () => {
    const { cache, loads } = harness();
    const [a, b] = await Promise.all([cache.get('http://a.test'), cache.get('http://a.test')]);
    await cache.get('http://a.test');
    expect(a).toBe(b);
    expect(loads).toEqual(['http://a.test']);
  });

  it('reloads after the TTL, and failures after the shorter failure TTL', async () => {
    const { cache, loads, advance } = harness((origin) =>
      origin.includes('down') ? { policy: disallowAllPolicy(), reason: 'HTTP 503' } : { policy: createRobotsPolicy('') },
    );
    await cache.get('http://up.test');
    await cache.get('http://down.test');
    advance(150);
    await cache.get('http://up.test');
    await cache.get('http://down.test');
    expect(loads).toEqual(['http://up.test', 'http://down.test', 'http://down.test']);
    advance(1000);
    await cache.get('http://up.test');
    expect(loads).toHaveLength(4);
  });

  it('does not cache a load that rejects', async () => {
    let fail = true;
    const cache = createRobotsCache({
      load: async () => {
        if (fail) throw new Error('boom');
        return { policy: createRobotsPolicy(null) };
      },
    });
    await expect(cache.get('http://x.test')).rejects.toThrow('boom');
    expect(cache.size()).toBe(0);
    fail = false;
    await expect(cache.get('http://x.test')).resolves.toMatchObject({ policy: { source: 'missing' } });
  });

  it('keeps at most maxEntries origins, dropping the oldest', async () => {
    const { cache, loads } = harness();
    for (const origin of ['http://1.test', 'http://2.test', 'http://3.test', 'http://4.test']) await cache.get(origin);
    expect(cache.size()).toBe(3);
    await cache.get('http://1.test');
    expect(loads.filter((o) => o === 'http://1.test')).toHaveLength(2);
    cache.clear();
    expect(cache.size()).toBe(0);
  });
});
