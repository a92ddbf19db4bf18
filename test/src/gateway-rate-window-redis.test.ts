import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createLogger, seededRandom } from '@svc/kit';
import { waitFor, windowUse, type LimitScope, type RateLimits } from '@svc/llm/domain/rate-limits';
import { createRedisRateWindows } from '@svc/llm/store/rate-window-redis';
import { REDIS_URL, requireRedis } from './support/services.js';

/**
 * The admission script in Redis decides as the in-process arithmetic (domain/rate-limits.ts)
 * does: windows of random per-second buckets (some stale, some zero) under random limits, and
 * for each the used amounts, the oldest counted buckets, which limit refuses first and the wait
 * it names must equal windowUse/waitFor over the same buckets at the script's own clock.
 */

const prefix = `svctest:rlscript:${process.pid}:${Date.now()}:`;
let redis: Redis;
let store: ReturnType<typeof createRedisRateWindows>;

beforeAll(async () => {
  await requireRedis();
  redis = new Redis(REDIS_URL);
  store = createRedisRateWindows(REDIS_URL, prefix, createLogger({ level: 'silent' }));
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await store.close();
});

const key = (scope: string, part: 'r' | 't' | 'c') => `${prefix}llm:rl:{${scope}}:${part}`;

describe('the Redis admission script', () => {
  it('agrees with the in-process window arithmetic on 300 random windows', async () => {
    const random = seededRandom(22);
    const int = (max: number) => Math.floor(random() * (max + 1));
    const outcomes = { admitted: 0, refused: 0 };
    for (let round = 0; round < 300; round++) {
      const nowSec = Number((await redis.time())[0]);
      const scopes: LimitScope[] = [];
      const seeded: { requests: [number, number][]; tokens: [number, number][] }[] = [];
      for (let s = 0; s < 1 + int(1); s++) {
        const id = `agent:r${round}s${s}`;
        // Buckets from 70 s ago to now: those older than 60 s are stale, some are zero.
        const bucketsOf = (scale: number): [number, number][] => Array.from({ length: int(25) }, () => [nowSec - int(70), int(4) === 0 ? 0 : 1 + int(scale)] as [number, number]);
        const requests = [...new Map(bucketsOf(5))];
        const tokens = [...new Map(bucketsOf(500))];
        if (requests.length) await redis.hset(key(id, 'r'), Object.fromEntries(requests));
        if (tokens.length) await redis.hset(key(id, 't'), Object.fromEntries(tokens));
        const limits: RateLimits = { requestsPerMinute: int(3) === 0 ? null : int(60), tokensPerMinute: int(3) === 0 ? null : int(6000), maxConcurrent: null };
        if (limits.requestsPerMinute === null && limits.tokensPerMinute === null) limits.requestsPerMinute = 30;
        scopes.push({ id, limits });
        seeded.push({ requests, tokens });
      }
      const need = int(800);
      const decision = await store.admit(scopes, need, `m${round}`, 30_000);
      const nowMs = decision.nowMs;

      let refusal: { scope: string; kind: string; used: number; requested: number; retryAfterMs: number } | undefined;
      scopes.forEach((scope, i) => {
        const requests = windowUse(seeded[i]!.requests, nowMs);
        const tokens = windowUse(seeded[i]!.tokens, nowMs);
        const { requestsPerMinute: rpm, tokensPerMinute: tpm } = scope.limits;
        const use = decision.uses[i]!;
        if (rpm !== null) {
          expect([use.requestsUsed, use.requestsOldest]).toEqual([requests.used, requests.buckets[0]?.[0]]);
          const wait = waitFor(requests, rpm, 1, nowMs);
          if (!refusal && wait !== 0) refusal = { scope: scope.id, kind: 'requests', used: requests.used, requested: 1, retryAfterMs: wait };
        }
        if (tpm !== null) {
          expect([use.tokensUsed, use.tokensOldest]).toEqual([tokens.used, tokens.buckets[0]?.[0]]);
          const wait = waitFor(tokens, tpm, need, nowMs);
          if (!refusal && wait !== 0) refusal = { scope: scope.id, kind: 'tokens', used: tokens.used, requested: need, retryAfterMs: wait };
        }
      });
      expect(decision.admitted).toBe(!refusal);
      outcomes[decision.admitted ? 'admitted' : 'refused']++;
      if (!decision.admitted) expect(decision.refusal).toMatchObject(refusal!);
      // Stale buckets of a limited window are gone from Redis after the decision.
      for (const scope of scopes) {
        if (scope.limits.requestsPerMinute === null) continue;
        const left = Object.keys(await redis.hgetall(key(scope.id, 'r'))).map(Number);
        expect(left.every((second) => second >= Math.floor(nowMs / 1000) - 60)).toBe(true);
      }
    }
    expect(outcomes.admitted).toBeGreaterThan(30);
    expect(outcomes.refused).toBeGreaterThan(30);
  });
});
