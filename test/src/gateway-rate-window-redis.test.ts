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
 * it names must equal windowUse/waitFor over the same buckets at the script's own clock. The
 * admissions asked for in one turn go to Redis as one batch: each is decided as if it had run
 * alone, after the ones before it.
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

const key = (scope: string, part: 'r' | 't' | 'c' | 'rs' | 'ts') => `${prefix}llm:rl:{${scope}}:${part}`;

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

  it('decides a batch (the admissions of one turn) as the same requests one after the other', async () => {
    const random = seededRandom(2222);
    const int = (max: number) => Math.floor(random() * (max + 1));
    const outcomes = { admitted: 0, refused: 0 };
    for (let round = 0; round < 60; round++) {
      const nowSec = Number((await redis.time())[0]);
      // Two shared scopes (a key and its agent), windows seeded as above; 12 requests in one turn.
      const model = new Map<string, Map<number, number>>();
      const scopes: LimitScope[] = [];
      for (const id of [`key:b${round}`, `agent:b${round}`]) {
        for (const part of ['r', 't'] as const) {
          const buckets = new Map(Array.from({ length: int(20) }, () => [nowSec - int(70), int(4) === 0 ? 0 : 1 + int(part === 'r' ? 3 : 300)] as [number, number]));
          if (buckets.size) await redis.hset(key(id, part), Object.fromEntries(buckets));
          model.set(key(id, part), buckets);
        }
        scopes.push({ id, limits: { requestsPerMinute: 20 + int(30), tokensPerMinute: int(2) === 0 ? null : 2000 + int(3000), maxConcurrent: null } });
      }
      const needs = Array.from({ length: 12 }, () => int(600));
      const decisions = await Promise.all(needs.map((need, i) => store.admit(scopes, need, `b${round}m${i}`, 30_000)));
      const nowMs = decisions[0]!.nowMs;
      expect(decisions.every((d) => d.nowMs === nowMs)).toBe(true);
      const second = Math.floor(nowMs / 1000);
      needs.forEach((need, i) => {
        const decision = decisions[i]!;
        let refusal: { scope: string; kind: string; used: number; requested: number; retryAfterMs: number } | undefined;
        scopes.forEach((scope, s) => {
          const requests = windowUse(model.get(key(scope.id, 'r'))!, nowMs);
          const tokens = windowUse(model.get(key(scope.id, 't'))!, nowMs);
          expect([decision.uses[s]!.requestsUsed, decision.uses[s]!.requestsOldest]).toEqual([requests.used, requests.buckets[0]?.[0]]);
          const waitRequests = waitFor(requests, scope.limits.requestsPerMinute!, 1, nowMs);
          if (!refusal && waitRequests !== 0) refusal = { scope: scope.id, kind: 'requests', used: requests.used, requested: 1, retryAfterMs: waitRequests };
          if (scope.limits.tokensPerMinute !== null) {
            expect([decision.uses[s]!.tokensUsed, decision.uses[s]!.tokensOldest]).toEqual([tokens.used, tokens.buckets[0]?.[0]]);
            const waitTokens = waitFor(tokens, scope.limits.tokensPerMinute, need, nowMs);
            if (!refusal && waitTokens !== 0) refusal = { scope: scope.id, kind: 'tokens', used: tokens.used, requested: need, retryAfterMs: waitTokens };
          }
        });
        expect(decision.admitted).toBe(!refusal);
        outcomes[decision.admitted ? 'admitted' : 'refused']++;
        if (!decision.admitted) {
          expect(decision.refusal).toMatchObject(refusal!);
          return;
        }
        expect(decision.second).toBe(second);
        // The model counts the admitted request as Redis does: one request, and its tokens where a limit counts them.
        for (const scope of scopes) {
          const r = model.get(key(scope.id, 'r'))!;
          r.set(second, (r.get(second) ?? 0) + 1);
          if (scope.limits.tokensPerMinute !== null && need > 0) {
            const t = model.get(key(scope.id, 't'))!;
            t.set(second, (t.get(second) ?? 0) + need);
          }
        }
      });
      // What Redis holds now is what the model holds (counted buckets).
      for (const scope of scopes) {
        const stored = new Map(Object.entries(await redis.hgetall(key(scope.id, 'r'))).map(([b, v]) => [Number(b), Number(v)]));
        expect(windowUse(stored, nowMs)).toEqual(windowUse(model.get(key(scope.id, 'r'))!, nowMs));
      }
    }
    expect(outcomes.admitted).toBeGreaterThan(50);
    expect(outcomes.refused).toBeGreaterThan(50);
  });

  it('reads a window from its summary within a second exactly as from its buckets, through admissions and settlements', async () => {
    // One pair of windows used over several seconds: the first script of a second walks the
    // buckets, the others read the summary that every admission and settlement keeps. Each batch
    // is checked against the buckets Redis holds right after it, less the batch's own additions.
    const random = seededRandom(2223);
    const int = (max: number) => Math.floor(random() * (max + 1));
    const startSec = Number((await redis.time())[0]);
    const scopes: LimitScope[] = [
      { id: 'key:sum', limits: { requestsPerMinute: 500, tokensPerMinute: 150_000, maxConcurrent: null } },
      { id: 'agent:sum', limits: { requestsPerMinute: 700, tokensPerMinute: 250_000, maxConcurrent: null } },
    ];
    for (const { id } of scopes) {
      for (const part of ['r', 't'] as const) {
        const buckets = new Map(Array.from({ length: 30 }, () => [startSec - int(70), int(4) === 0 ? 0 : 1 + int(part === 'r' ? 5 : 900)] as [number, number]));
        await redis.hset(key(id, part), Object.fromEntries(buckets));
      }
    }
    const stored = async (id: string, part: 'r' | 't') => new Map(Object.entries(await redis.hgetall(key(id, part))).map(([b, v]) => [Number(b), Number(v)]));
    const open: { member: string; second: number; estimate: number }[] = [];
    const seconds = new Set<number>();
    const outcomes = { admitted: 0, refused: 0, settled: 0, oldestSettled: 0 };
    for (let step = 0; step < 400 || seconds.size < 3; step++) {
      // Settlements first (they leave before the next admission, on the same connection): real
      // tickets, and now and then an estimate taken out of the oldest tokens bucket.
      for (let i = int(2); i > 0 && open.length; i--) {
        const ticket = open.splice(int(open.length - 1), 1)[0]!;
        await store.settle(scopes, ticket.member, ticket.second, ticket.estimate, int(3) === 0 ? 0 : int(2 * ticket.estimate));
        outcomes.settled++;
      }
      if (int(5) === 0) {
        const tokens = windowUse(await stored('agent:sum', 't'), Date.now());
        const oldest = tokens.buckets[0];
        if (oldest) await store.settle(scopes.slice(1), `old${step}`, oldest[0], 1 + int(oldest[1]), 0), outcomes.oldestSettled++;
      }
      const needs = Array.from({ length: 1 + int(3) }, () => int(1200));
      const decisions = await Promise.all(needs.map((need, i) => store.admit(scopes, need, `s${step}m${i}`, 30_000)));
      const nowMs = decisions[0]!.nowMs;
      const second = Math.floor(nowMs / 1000);
      seconds.add(second);
      // The buckets before the batch: what Redis holds now, less what the batch added.
      const model = new Map<string, Map<number, number>>();
      for (const { id } of scopes) for (const part of ['r', 't'] as const) model.set(`${id}:${part}`, await stored(id, part));
      decisions.forEach((d, i) => {
        if (!d.admitted) return;
        for (const { id } of scopes) {
          const r = model.get(`${id}:r`)!;
          r.set(second, r.get(second)! - 1);
          if (needs[i]! > 0) model.get(`${id}:t`)!.set(second, model.get(`${id}:t`)!.get(second)! - needs[i]!);
        }
      });
      needs.forEach((need, i) => {
        const decision = decisions[i]!;
        let refusal: { scope: string; kind: string; used: number; requested: number; retryAfterMs: number } | undefined;
        scopes.forEach((scope, s) => {
          const requests = windowUse(model.get(`${scope.id}:r`)!, nowMs);
          const tokens = windowUse(model.get(`${scope.id}:t`)!, nowMs);
          expect([decision.uses[s]!.requestsUsed, decision.uses[s]!.requestsOldest, decision.uses[s]!.tokensUsed, decision.uses[s]!.tokensOldest]).toEqual([requests.used, requests.buckets[0]?.[0], tokens.used, tokens.buckets[0]?.[0]]);
          const waitRequests = waitFor(requests, scope.limits.requestsPerMinute!, 1, nowMs);
          const waitTokens = waitFor(tokens, scope.limits.tokensPerMinute!, need, nowMs);
          if (!refusal && waitRequests !== 0) refusal = { scope: scope.id, kind: 'requests', used: requests.used, requested: 1, retryAfterMs: waitRequests };
          if (!refusal && waitTokens !== 0) refusal = { scope: scope.id, kind: 'tokens', used: tokens.used, requested: need, retryAfterMs: waitTokens };
        });
        expect(decision.admitted).toBe(!refusal);
        outcomes[decision.admitted ? 'admitted' : 'refused']++;
        if (!decision.admitted) return void expect(decision.refusal).toMatchObject(refusal!);
        open.push({ member: `s${step}m${i}`, second: decision.second, estimate: need });
        for (const { id } of scopes) {
          const r = model.get(`${id}:r`)!;
          r.set(second, (r.get(second) ?? 0) + 1);
          if (need > 0) model.get(`${id}:t`)!.set(second, (model.get(`${id}:t`)!.get(second) ?? 0) + need);
        }
      });
      // Each summary the batch left names this second and what its buckets count now.
      for (const { id } of scopes) {
        for (const part of ['r', 't'] as const) {
          const summary = await redis.get(key(id, `${part}s`));
          if (summary === null) continue;
          const use = windowUse(await stored(id, part), nowMs);
          expect(summary.split(':').slice(0, 3).map(Number)).toEqual([second, use.used, use.buckets[0]?.[0] ?? -1]);
        }
      }
    }
    console.log(`summary run: ${JSON.stringify(outcomes)} over ${seconds.size} seconds`);
    expect(outcomes.admitted).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(20);
    expect(outcomes.oldestSettled).toBeGreaterThan(20);
  });

  /** Waits until Redis's clock is early in a second, so what follows happens within it. */
  async function startOfSecond(): Promise<number> {
    for (;;) {
      const [sec, micros] = (await redis.time()).map(Number) as [number, number];
      if (micros < 150_000) return sec;
      await new Promise((r) => setTimeout(r, Math.ceil((1_000_000 - micros) / 1000) + 2));
    }
  }
  const counted = async (id: string, part: 'r' | 't') => Object.values(await redis.hgetall(key(id, part))).reduce((sum, v) => sum + Number(v), 0);

  it('admits from a slice without asking Redis while far below the limit, reports the true use, and hands the unused part back when its second ends', async () => {
    // 100,000 requests and 2,000,000 tokens a minute: slices of 500 requests and 10,000 tokens.
    const scopes: LimitScope[] = [{ id: 'key:slice', limits: { requestsPerMinute: 100_000, tokensPerMinute: 2_000_000, maxConcurrent: null } }];
    const sec = await startOfSecond();
    const first = await store.admit(scopes, 50, 'sl0', 30_000);
    expect(first).toMatchObject({ admitted: true, second: sec, uses: [{ requestsUsed: 0, tokensUsed: 0 }] });
    // The first request, and the slice reserved after it, are in Redis at once.
    expect([await counted('key:slice', 'r'), await counted('key:slice', 't')]).toEqual([501, 10_050]);
    const next: Awaited<ReturnType<typeof store.admit>>[] = [];
    for (let i = 1; i <= 100; i++) next.push(await store.admit(scopes, 50, `sl${i}`, 30_000));
    // A hundred more admitted from the slice: Redis counted none of them again, and each reports the window's true use.
    expect([await counted('key:slice', 'r'), await counted('key:slice', 't')]).toEqual([501, 10_050]);
    expect(next.map((d) => (d.admitted ? [d.second, d.uses[0]!.requestsUsed, d.uses[0]!.tokensUsed] : 'refused'))).toEqual(next.map((_, i) => [sec, i + 1, 50 * (i + 1)]));
    // A settlement (50 estimated, 10 used) within the second is the slice's to take: Redis is not
    // asked, the slice's view follows at once, and the difference goes back with the unused part.
    await store.settle(scopes, 'sl1', sec, 50, 10);
    const after = await store.admit(scopes, 50, 'sl101', 30_000);
    expect(after.uses[0]!.tokensUsed).toBe(50 * 101 - 40);
    await new Promise((r) => setTimeout(r, 20));
    expect([await counted('key:slice', 'r'), await counted('key:slice', 't')]).toEqual([501, 10_050]);
    // One admitted in an earlier second settles in Redis: its estimate leaves that second's bucket.
    await redis.hset(key('key:slice', 't'), String(sec - 5), '50');
    await store.settle(scopes, 'old', sec - 5, 50, 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(await redis.hget(key('key:slice', 't'), String(sec - 5))).toBeNull();
    // When the second ends, the slice's unused part goes back: the window holds what was admitted.
    await new Promise((r) => setTimeout(r, 1300));
    expect(await counted('key:slice', 'r')).toBe(102);
    expect(await counted('key:slice', 't')).toBe(50 * 102 - 40);
  });

  it('never lets two instances with slices pass a limit, and admits exactly the limit once their slices are back', async () => {
    // 4,000 requests a minute: slices of 20 while the window stays under 2,000.
    const scopes: LimitScope[] = [{ id: 'agent:twoslices', limits: { requestsPerMinute: 4000, tokensPerMinute: null, maxConcurrent: null } }];
    const other = createRedisRateWindows(REDIS_URL, prefix, createLogger({ level: 'silent' }));
    const random = seededRandom(4040);
    let admitted = 0;
    let member = 0;
    const round = async () => {
      // Both instances at once, a few requests each in one turn, as traffic arrives.
      const asked = [store, other].flatMap((s) => Array.from({ length: 1 + Math.floor(random() * 12) }, () => s.admit(scopes, 0, `two${member++}`, 30_000)));
      const decisions = await Promise.all(asked);
      const yes = decisions.filter((d) => d.admitted).length;
      admitted += yes;
      return yes;
    };
    try {
      let refusedRounds = 0;
      while (refusedRounds < 3) refusedRounds = (await round()) === 0 ? refusedRounds + 1 : 0;
      // Never more than the limit; at most the two slices short of it while they last.
      expect(admitted).toBeLessThanOrEqual(4000);
      expect(admitted).toBeGreaterThanOrEqual(4000 - 2 * 20);
      await new Promise((r) => setTimeout(r, 1300));
      for (let i = 0; i < 3; i++) await round();
      expect(admitted).toBe(4000);
      expect(await counted('agent:twoslices', 'r')).toBe(4000);
    } finally {
      await other.close();
    }
  });
});
