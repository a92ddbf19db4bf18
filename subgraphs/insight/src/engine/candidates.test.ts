import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit/random';
import { findCandidates, laggedCorrelation } from './candidates.js';
import { changeStart } from './change-point.js';
import { addDays, dayOf } from './days.js';
import { generateDaily } from './synthetic-series.js';

const rows = (points: { t: number; value: number }[]) => points.map((p) => ({ day: dayOf(p.t), value: p.value }));
const shape = { start: '2026-06-01', days: 170, level: 1000 };

describe('findCandidates', () => {
  it('offers a series that shifted within two days of the subject, with low confidence', () => {
    const subject = rows(generateDaily({ ...shape, seed: 1 }, (d) => (d >= '2026-11-05' ? 0.7 : 1)));
    const mover = rows(generateDaily({ ...shape, seed: 2 }, (d) => (d >= '2026-11-06' ? 1.5 : 1)));
    const calm = rows(generateDaily({ ...shape, seed: 3 }));
    const cp = changeStart(subject, '2026-10-27', '2026-11-17', 'down');
    expect(cp?.day).toBe('2026-11-05');
    expect(findCandidates(subject, cp, [{ name: 'mover', daily: mover }, { name: 'calm', daily: calm }], '2026-11-02', '2026-11-17')).toEqual([
      { metric: 'mover', reason: 'change-point', day: '2026-11-06', shift: expect.any(Number), confidence: 'low', wording: 'moved at the same time' },
    ]);
  });

  it('offers a series whose week-over-week changes lead the subject\'s', () => {
    const random = seededRandom(4);
    const leader: { day: string; value: number }[] = [];
    let level = 100;
    for (let i = 0; i < 120; i++) {
      level *= Math.exp(0.1 * (random() - 0.5));
      leader.push({ day: addDays('2026-07-20', i), value: level });
    }
    const follower = leader.slice(0, -2).map((p) => ({ day: addDays(p.day, 2), value: p.value * 3 }));
    expect(laggedCorrelation(follower, leader, '2026-11-16')).toEqual({ lagDays: 2, correlation: expect.closeTo(1, 10) });
    const found = findCandidates(follower, undefined, [{ name: 'leader', daily: leader }], '2026-11-10', '2026-11-16');
    expect(found).toEqual([{ metric: 'leader', reason: 'lagged-correlation', lagDays: 2, correlation: expect.closeTo(1, 10), confidence: 'low', wording: 'moved at the same time' }]);
  });
});
