import { describe, expect, it } from '@jest/globals';
import { delayAfter, gateStep, settleStep, type BackoffPolicy, type GateState } from './attempt-gate.js';
import { createMemoryCache } from './cache.js';

const policy: BackoffPolicy = { freeAttempts: 3, firstDelayMs: 1000, maxDelayMs: 8000, idleMs: 60_000 };

describe('attempt gate', () => {
  it('lets the free attempts through, then closes for a doubling delay up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => delayAfter(n, policy))).toEqual([0, 0, 1000, 2000, 4000, 8000, 8000, 8000]);
    let state: GateState | undefined;
    const results = [];
    for (let i = 0; i < 3; i++) {
      const step = gateStep(state, 10_000, policy);
      state = step.state;
      results.push(step.result);
    }
    expect(results.map((r) => r.allowed)).toEqual([true, true, true]);
    expect(results[2]).toEqual({ allowed: true, attempts: 3, delayMs: 1000 });
    // Refused while closed, and not counted.
    expect(gateStep(state, 10_500, policy)).toEqual({ state, result: { allowed: false, attempts: 3, delayMs: 500 } });
    const next = gateStep(state, 11_000, policy);
    expect(next.result).toEqual({ allowed: true, attempts: 4, delayMs: 2000 });
    expect(next.state).toEqual({ attempts: 4, nextAt: 13_000 });
  });

  it('settles: a reset forgets, a forgiveness takes back one attempt and reopens below the free count', () => {
    expect(settleStep({ attempts: 3, nextAt: 5000 }, 'reset', policy)).toBeUndefined();
    expect(settleStep({ attempts: 3, nextAt: 5000 }, 'forgive', policy)).toEqual({ attempts: 2, nextAt: 0 });
    expect(settleStep({ attempts: 5, nextAt: 5000 }, 'forgive', policy)).toEqual({ attempts: 4, nextAt: 5000 });
    expect(settleStep({ attempts: 1, nextAt: 0 }, 'forgive', policy)).toBeUndefined();
    expect(settleStep(undefined, 'forgive', policy)).toBeUndefined();
  });

  it('runs in the in-process cache: refused while closed, open again after the delay, forgotten after a reset', async () => {
    const cache = createMemoryCache();
    const fast = { ...policy, freeAttempts: 2, firstDelayMs: 150 };
    expect((await cache.attempt('k', fast)).allowed).toBe(true);
    expect(await cache.attempt('k', fast)).toEqual({ allowed: true, attempts: 2, delayMs: 150 });
    const refused = await cache.attempt('k', fast);
    expect(refused.allowed).toBe(false);
    expect(refused.delayMs).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 160));
    expect(await cache.attempt('k', fast)).toEqual({ allowed: true, attempts: 3, delayMs: 300 });
    await cache.settle('k', 'reset', fast);
    expect(await cache.attempt('k', fast)).toEqual({ allowed: true, attempts: 1, delayMs: 0 });
    await cache.settle('k', 'forgive', fast);
    expect(await cache.attempt('k', fast)).toEqual({ allowed: true, attempts: 1, delayMs: 0 });
  });
});
