import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit/random';
import { benjaminiHochberg, findCandidates, laggedCorrelation, rankCorrelationP } from './candidates.js';
import { changeStart } from './change-point.js';
import { addDays, dayOf } from './days.js';
import { generateDaily } from './synthetic-series.js';

const rows = (points: { t: number; value: number }[]) => points.map((p) => ({ day: dayOf(p.t), value: p.value }));
const shape = { start: '2026-06-01', days: 170, level: 1000 };

describe('findCandidates', () => {
  it('offers a series that shifted within a day of the subject, and not one that shifted two days later, with low confidence', () => {
    // The subject is 60 % the mover (with the mover's own day-to-day noise) and 40 % something else.
    const mover = rows(generateDaily({ ...shape, level: 600, noise: 0.06, seed: 2 }, (d) => (d >= '2026-11-05' ? 0.5 : 1)));
    const rest = rows(generateDaily({ ...shape, level: 400, seed: 1 }));
    const subject = mover.map((m, i) => ({ day: m.day, value: m.value + rest[i]!.value }));
    const calm = rows(generateDaily({ ...shape, seed: 3 }));
    const later = rows(generateDaily({ ...shape, seed: 5 }, (d) => (d >= '2026-11-07' ? 0.6 : 1)));
    const cp = changeStart(subject, '2026-10-27', '2026-11-17', 'down');
    expect(cp?.day).toBe('2026-11-05');
    const found = findCandidates(subject, cp, [{ name: 'mover', daily: mover }, { name: 'calm', daily: calm }, { name: 'later', daily: later }], '2026-11-02', '2026-11-17');
    expect(found).toEqual([
      { metric: 'mover', reason: 'change-point', day: '2026-11-05', shift: expect.any(Number), implied: { change: expect.any(Number), share: expect.any(Number), elasticity: expect.any(Number) }, confidence: 'low', wording: 'moved at the same time' },
    ]);
    // Half the mover went, 60 % of the subject: about −30 %; the history's elasticity carries most of it.
    expect(found[0]!.shift).toBeCloseTo(-0.5, 1);
    expect(found[0]!.implied!.elasticity).toBeGreaterThan(0.3);
    expect(found[0]!.implied!.share).toBeGreaterThan(0.5);
    expect(found[0]!.implied!.share).toBeLessThan(1.5);
  });

  it('does not offer a series that shifted the same day when the history before shows its moves do not carry into the subject\'s', () => {
    const subject = rows(generateDaily({ ...shape, seed: 1 }, (d) => (d >= '2026-11-05' ? 0.7 : 1)));
    // Its own, larger day-to-day noise never showed in the subject: a 50 % rise cannot make a 30 % fall.
    const coincidence = rows(generateDaily({ ...shape, noise: 0.1, seed: 2 }, (d) => (d >= '2026-11-05' ? 1.5 : 1)));
    const cp = changeStart(subject, '2026-10-27', '2026-11-17', 'down');
    expect(findCandidates(subject, cp, [{ name: 'coincidence', daily: coincidence }], '2026-11-02', '2026-11-17')).toEqual([]);
  });

  it('offers one label value of another metric that fell with the subject, and not its other values, nor a part that barely moved', () => {
    // One traffic source's visits (a part of another metric) make up half the subject; it fell 60 % the same day.
    const source = rows(generateDaily({ ...shape, level: 500, noise: 0.06, seed: 7 }, (d) => (d >= '2026-11-05' ? 0.4 : 1)));
    const other = rows(generateDaily({ ...shape, level: 500, seed: 8 }));
    const subject = source.map((m, i) => ({ day: m.day, value: m.value + other[i]!.value }));
    const steady = rows(generateDaily({ ...shape, level: 300, seed: 9 }));
    const slight = rows(generateDaily({ ...shape, level: 300, seed: 10 }, (d) => (d >= '2026-11-05' ? 0.9 : 1)));
    const cp = changeStart(subject, '2026-10-27', '2026-11-17', 'down');
    // The metric's total fell with its search part: the part names where.
    const total = source.map((r, i) => ({ day: r.day, value: r.value + steady[i]!.value + slight[i]!.value }));
    const found = findCandidates(subject, cp, [
      { name: 'visits', daily: total },
      { name: 'visits', labels: { source: 'search' }, daily: source },
      { name: 'visits', labels: { source: 'email' }, daily: steady },
      { name: 'visits', labels: { source: 'social' }, daily: slight },
    ], '2026-11-02', '2026-11-17');
    expect(found.map((c) => c.labels)).toEqual([{ source: 'search' }]);
    expect(found[0]).toMatchObject({ metric: 'visits', reason: 'change-point', day: '2026-11-05' });
    expect(found[0]!.implied!.share).toBeGreaterThan(0.5);
  });

  it('offers a series whose day-to-day changes lead the subject\'s, with the test that holds it', () => {
    const random = seededRandom(4);
    const leader: { day: string; value: number }[] = [];
    let level = 100;
    for (let i = 0; i < 120; i++) {
      level *= Math.exp(0.1 * (random() - 0.5));
      leader.push({ day: addDays('2026-07-20', i), value: level });
    }
    const follower = leader.slice(0, -2).map((p) => ({ day: addDays(p.day, 2), value: p.value * 3 }));
    const tests = laggedCorrelation(follower, leader, '2026-11-16');
    expect(tests.map((t) => t.lagDays)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(tests.find((t) => t.lagDays === 2)).toEqual({ lagDays: 2, correlation: expect.any(Number), p: expect.any(Number), pairs: 56 });
    expect(tests.find((t) => t.lagDays === 2)!.correlation).toBeGreaterThan(0.95);
    expect(Math.max(...tests.filter((t) => t.lagDays !== 2).map((t) => Math.abs(t.correlation)))).toBeLessThan(0.4);
    const found = findCandidates(follower, undefined, [{ name: 'leader', daily: leader }], '2026-11-10', '2026-11-16');
    expect(found).toEqual([{ metric: 'leader', reason: 'lagged-correlation', lagDays: 2, correlation: expect.any(Number), adjustedP: expect.any(Number), tests: 8, confidence: 'low', wording: 'moved at the same time' }]);
    expect(found[0]!.adjustedP).toBeLessThan(0.001);
  });

  it('finds no lead between independent series that share a weekly season and each drop a few days apart', () => {
    // The false leads readers met: one season in both, and two unrelated level drops days apart.
    for (let seed = 1; seed <= 20; seed++) {
      const subject = rows(generateDaily({ ...shape, weekly: 0.3, seed: seed * 2 }, (d) => (d >= '2026-11-05' ? 0.7 : 1)));
      const other = rows(generateDaily({ ...shape, weekly: 0.3, seed: seed * 2 + 1 }, (d) => (d >= '2026-11-01' ? 0.6 : 1)));
      const third = rows(generateDaily({ ...shape, weekly: 0.3, seed: seed * 2 + 100 }));
      expect(findCandidates(subject, undefined, [{ name: 'other', daily: other }, { name: 'third', daily: third }], '2026-11-05', '2026-11-17')).toEqual([]);
    }
  });

  it('would have been fooled without the season and level taken out: the raw week-over-week changes correlate', () => {
    const subject = rows(generateDaily({ ...shape, weekly: 0.3, seed: 2 }, (d) => (d >= '2026-11-05' ? 0.7 : 1)));
    const other = rows(generateDaily({ ...shape, weekly: 0.3, seed: 3 }, (d) => (d >= '2026-11-01' ? 0.6 : 1)));
    const wow = (r: { day: string; value: number }[]) => new Map(r.map((x, i) => [x.day, i >= 7 ? Math.log(x.value / r[i - 7]!.value) : NaN]));
    const [ys, xs] = [wow(subject), wow(other)];
    const pairs = Array.from({ length: 56 }, (_, i) => addDays('2026-11-17', -i)).map((day) => [xs.get(addDays(day, -4))!, ys.get(day)!]);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const [a, b] = [pairs.map((p) => p[0]!), pairs.map((p) => p[1]!)];
    const [ma, mb] = [mean(a), mean(b)];
    const r = a.reduce((s, x, i) => s + (x - ma) * (b[i]! - mb), 0) / Math.sqrt(a.reduce((s, x) => s + (x - ma) ** 2, 0) * b.reduce((s, y) => s + (y - mb) ** 2, 0));
    expect(r).toBeGreaterThan(0.8);
  });
});

describe('benjaminiHochberg', () => {
  it('adjusts each p-value for the tests made, keeping their order and monotone in rank', () => {
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.2])).toEqual([0.04, expect.closeTo(0.0533, 3), expect.closeTo(0.0533, 3), 0.2]);
    expect(benjaminiHochberg([])).toEqual([]);
  });
});

describe('rankCorrelationP', () => {
  it('is near 1 for no correlation and small for a strong one over many pairs', () => {
    expect(rankCorrelationP(0, 50)).toBeCloseTo(1, 6);
    expect(rankCorrelationP(0.5, 50)).toBeLessThan(0.001);
    expect(rankCorrelationP(0.2, 50)).toBeGreaterThan(0.1);
  });
});
