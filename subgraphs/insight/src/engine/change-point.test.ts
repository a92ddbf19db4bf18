import { describe, expect, it } from '@jest/globals';
import { changeStart, detectChangePoints } from './change-point.js';
import { dayOf } from './days.js';
import { generateDaily } from './synthetic-series.js';

const rows = (points: { t: number; value: number }[]) => points.map((p) => ({ day: dayOf(p.t), value: p.value }));
const shape = { start: '2026-06-01', days: 170, level: 1000, seed: 3 };

describe('change points (augurs BOCPD, refined)', () => {
  it('dates a level shift to its first day', () => {
    const daily = rows(generateDaily(shape, (day) => (day >= '2026-11-05' ? 0.75 : 1)));
    const found = changeStart(daily, '2026-10-20', '2026-11-17', 'down');
    expect(found?.day).toBe('2026-11-05');
    expect(found!.shift).toBeLessThan(-0.2);
    expect(found!.shift).toBeGreaterThan(-0.3);
  });

  it('dates a rise, and one on the last day', () => {
    expect(changeStart(rows(generateDaily({ ...shape, seed: 4 }, (day) => (day >= '2026-11-10' ? 1.3 : 1))), '2026-10-20', '2026-11-17', 'up')?.day).toBe('2026-11-10');
    expect(changeStart(rows(generateDaily({ ...shape, seed: 5 }, (day) => (day === '2026-11-17' ? 0.5 : 1))), '2026-11-01', '2026-11-17', 'down')?.day).toBe('2026-11-17');
  });

  it('finds nothing in a series with only season, trend and noise', () => {
    expect(detectChangePoints(rows(generateDaily({ ...shape, seed: 6 })), '2026-10-01', '2026-11-17')).toEqual([]);
  });

  it('ignores a change in the other direction', () => {
    expect(changeStart(rows(generateDaily(shape, (day) => (day >= '2026-11-05' ? 0.75 : 1))), '2026-10-20', '2026-11-17', 'up')).toBeUndefined();
  });
});
