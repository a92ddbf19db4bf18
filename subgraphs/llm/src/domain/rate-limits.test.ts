import { describe, expect, it } from '@jest/globals';
import { createMemoryRateWindows } from '../store/rate-window-store.js';
import { bucketEndsAt, formatDuration, rateLimitHeaders, refusalMessage, sliceOf, waitFor, windowUse, type LimitScope } from './rate-limits.js';

const T0 = 1_700_000_000_000; // a whole second
const scope = (limits: Partial<LimitScope['limits']>, id = 'key:k1'): LimitScope => ({ id, limits: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrent: null, ...limits } });

describe('the sliding minute of one-second buckets', () => {
  it('counts a bucket for 61 whole seconds, so a request counts for 60 to 61 s', () => {
    const second = T0 / 1000;
    expect(windowUse([[second, 3]], T0 + 60_999).used).toBe(3);
    expect(windowUse([[second, 3]], T0 + 61_000).used).toBe(0);
    expect(bucketEndsAt(second)).toBe(T0 + 61_000);
  });

  it('waits until enough of the oldest buckets have dropped for what is needed', () => {
    const s = T0 / 1000;
    const use = windowUse([[s + 2, 4], [s, 5], [s + 1, 1]], T0 + 10_000);
    expect(use.used).toBe(10);
    expect(waitFor(use, 12, 2, T0 + 10_000)).toBe(0); // fits
    expect(waitFor(use, 10, 1, T0 + 10_000)).toBe(bucketEndsAt(s) - (T0 + 10_000)); // the oldest frees 5
    expect(waitFor(use, 10, 7, T0 + 10_000)).toBe(bucketEndsAt(s + 2) - (T0 + 10_000)); // needs all three gone
    expect(waitFor(use, 10, 11, T0 + 10_000)).toBe(Infinity); // never fits
  });
});

describe('headers and messages', () => {
  it("formats durations as OpenAI does: 20ms, 1.5s, 6m0s", () => {
    expect(formatDuration(20)).toBe('20ms');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(360_000)).toBe('6m0s');
    expect(formatDuration(61_250)).toBe('1m1.25s');
  });

  it('reports the scope with the least left, per dimension, and nothing for an unlimited one', () => {
    const headers = rateLimitHeaders([
      { requests: { limit: 100, remaining: 40, resetMs: 1000 } },
      { requests: { limit: 50, remaining: 3, resetMs: 2500 }, tokens: { limit: 1000, remaining: 900, resetMs: 20 } },
    ]);
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '50', 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '2.5s',
      'x-ratelimit-limit-tokens': '1000', 'x-ratelimit-remaining-tokens': '900', 'x-ratelimit-reset-tokens': '20ms',
    });
    expect(rateLimitHeaders([{ concurrent: { limit: 2, inFlight: 1 } }])).toEqual({});
  });

  it('names the scope, the limit and the wait', () => {
    expect(refusalMessage({ scope: 'agent:sales', kind: 'requests', limit: 50, used: 50, requested: 1, retryAfterMs: 12_000 })).toBe('Rate limit reached for agent sales on requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in 12s.');
    expect(refusalMessage({ scope: 'key:abc', kind: 'tokens', limit: 100, used: 0, requested: 500, retryAfterMs: Infinity })).toMatch(/^Request too large for API key abc on tokens per min \(TPM\): Limit 100, Requested 500/);
  });
});

describe('the in-process window store', () => {
  it('admits exactly the limit in a burst, then again once the minute has passed', async () => {
    let now = T0 + 300;
    const store = createMemoryRateWindows(() => now);
    const scopes = [scope({ requestsPerMinute: 5 })];
    const admitted = [];
    for (let i = 0; i < 8; i++) admitted.push((await store.admit(scopes, 0, `m${i}`, 30_000)).admitted);
    expect(admitted).toEqual([true, true, true, true, true, false, false, false]);
    const refused = await store.admit(scopes, 0, 'late', 30_000);
    expect(refused).toMatchObject({ admitted: false, refusal: { kind: 'requests', limit: 5, used: 5, retryAfterMs: 61_000 - 300 } });
    now = T0 + 61_000;
    expect((await store.admit(scopes, 0, 'next-minute', 30_000)).admitted).toBe(true);
  });

  it('refuses when any scope would pass its limit, and then charges none of them', async () => {
    const store = createMemoryRateWindows(() => T0);
    const key = scope({ requestsPerMinute: 10 });
    const agent = scope({ requestsPerMinute: 1 }, 'agent:a');
    expect((await store.admit([key, agent], 0, 'm1', 30_000)).admitted).toBe(true);
    const second = await store.admit([key, agent], 0, 'm2', 30_000);
    expect(second).toMatchObject({ admitted: false, refusal: { scope: 'agent:a' }, uses: [{ requestsUsed: 1 }, { requestsUsed: 1 }] });
    expect((await store.admit([key], 0, 'm3', 30_000)).uses[0]!.requestsUsed).toBe(1); // m2 charged nothing
  });

  it('holds the token estimate until settlement, then counts the actual tokens', async () => {
    const now = T0;
    const store = createMemoryRateWindows(() => now);
    const scopes = [scope({ tokensPerMinute: 1000 })];
    const first = await store.admit(scopes, 800, 'm1', 30_000);
    expect(first.admitted).toBe(true);
    expect((await store.admit(scopes, 300, 'm2', 30_000)).admitted).toBe(false); // 800 held
    await store.settle(scopes, 'm1', (first as { second: number }).second, 800, 120);
    const third = await store.admit(scopes, 300, 'm3', 30_000);
    expect(third).toMatchObject({ admitted: true, uses: [{ tokensUsed: 120 }] });
  });

  it('caps requests in flight, and frees a slot at settlement or when its TTL passes unrenewed', async () => {
    let now = T0;
    const store = createMemoryRateWindows(() => now);
    const scopes = [scope({ maxConcurrent: 1 })];
    const first = await store.admit(scopes, 0, 'm1', 30_000);
    expect(first.admitted).toBe(true);
    expect(await store.admit(scopes, 0, 'm2', 30_000)).toMatchObject({ admitted: false, refusal: { kind: 'concurrent', retryAfterMs: 1000 } });
    await store.settle(scopes, 'm1', T0 / 1000, 0, 0);
    expect((await store.admit(scopes, 0, 'm3', 30_000)).admitted).toBe(true);
    now += 20_000;
    await store.renew([{ scope: 'key:k1', member: 'm3' }], 30_000);
    now += 20_000;
    expect((await store.admit(scopes, 0, 'm4', 30_000)).admitted).toBe(false); // renewed: still in flight
    now += 31_000;
    expect((await store.admit(scopes, 0, 'm5', 30_000)).admitted).toBe(true); // its instance stopped renewing
  });

  it('slices only limits whose 0.5 % is at least 10 requests or 4,096 tokens, and never a scope that counts requests in flight', () => {
    const limits = (requestsPerMinute: number | null, tokensPerMinute: number | null, maxConcurrent: number | null = null) => ({ requestsPerMinute, tokensPerMinute, maxConcurrent });
    expect(sliceOf(limits(50, null))).toBeUndefined();
    expect(sliceOf(limits(1999, null))).toBeUndefined();
    expect(sliceOf(limits(2000, null))).toEqual({ requests: 10, tokens: 0 });
    expect(sliceOf(limits(null, 200_000))).toBeUndefined();
    expect(sliceOf(limits(null, 1_000_000))).toEqual({ requests: 0, tokens: 5000 });
    // Both dimensions must be sliceable; the slice is capped however high the limit.
    expect(sliceOf(limits(100_000, 200_000))).toBeUndefined();
    expect(sliceOf(limits(1_000_000_000, 1_000_000_000_000))).toEqual({ requests: 500, tokens: 2_000_000 });
    expect(sliceOf(limits(100_000, null, 5))).toBeUndefined();
    expect(sliceOf(limits(null, null, 5))).toBeUndefined();
  });
});
