import { describe, expect, it } from '@jest/globals';
import { choosePeriods, comparisonOf } from './periods.js';
import { daysBetween, isoWeekday } from './days.js';

// Wednesday 18 November 2026.
const now = Date.parse('2026-11-18T10:00:00Z');
const read = (q: string, extra: { lastDataDay?: string; firstDataDay?: string } = {}) => choosePeriods(q, { now, ...extra });

describe('choosePeriods', () => {
  it('reads "last week" as the last complete ISO week, Monday to Sunday, against the week before, and says so', () => {
    const c = read('Why did bookings drop last week?');
    expect([c.period, c.comparison, c.today]).toEqual([
      { from: '2026-11-09', to: '2026-11-15', kind: 'iso-week' },
      { from: '2026-11-02', to: '2026-11-08', kind: 'iso-week' },
      '2026-11-18',
    ]);
    expect(c.reading).toBe('"last week": the last complete ISO week (Monday to Sunday), against the week before');
  });

  it('falls back to last week, saying no period was named', () => {
    const c = read('Why are signups down?');
    expect(c.period.from).toBe('2026-11-09');
    expect(c.reading.startsWith('no period named')).toBe(true);
  });

  it('compares with the same period a year before when the question says so, and only then', () => {
    const week = read('How did fuel litres change compared to last year?');
    expect([week.period, week.comparison]).toEqual([{ from: '2026-11-09', to: '2026-11-15', kind: 'iso-week' }, { from: '2025-11-10', to: '2025-11-16', kind: 'iso-week' }]);
    expect(week.reading).toBe('no period named, so last week: the last complete ISO week (Monday to Sunday), against the same period a year before (the question compares with last year)');
    expect(read('revenue last month year over year').comparison).toEqual({ from: '2025-10-01', to: '2025-10-31', kind: 'month' });
    expect(read('Is revenue up vs a year ago?').comparison.from).toBe('2025-11-10');
    expect(read('why did sales drop last week YoY').comparison.from).toBe('2025-11-10');
    // "last year" alone, or a comparison the question already gives, keeps its reading.
    expect(read('why did sales drop last week, as they did last year').comparison.from).toBe('2026-11-02');
    expect(read('October vs September compared to last year').comparison).toEqual({ from: '2026-09-01', to: '2026-09-30', kind: 'month' });
  });

  it('reads "yesterday" against the same weekday a week before', () => {
    const c = read('why did it fall yesterday');
    expect([c.period, c.comparison]).toEqual([{ from: '2026-11-17', to: '2026-11-17', kind: 'day' }, { from: '2026-11-10', to: '2026-11-10', kind: 'day' }]);
  });

  it('moves today back to the day after the data ends', () => {
    const c = read('what happened yesterday', { lastDataDay: '2026-11-12' });
    expect([c.today, c.period.from]).toEqual(['2026-11-13', '2026-11-12']);
    expect(read('last week', { lastDataDay: '2026-11-12' }).period).toEqual({ from: '2026-11-02', to: '2026-11-08', kind: 'iso-week' });
  });

  it('reads "last month" and a named month as whole calendar months against the month before', () => {
    expect([read('last month').period, read('last month').comparison]).toEqual([
      { from: '2026-10-01', to: '2026-10-31', kind: 'month' },
      { from: '2026-09-01', to: '2026-09-30', kind: 'month' },
    ]);
    expect(read('why did gmv fall in October?').period).toEqual({ from: '2026-10-01', to: '2026-10-31', kind: 'month' });
    expect(read('what happened in December?').period).toEqual({ from: '2025-12-01', to: '2025-12-31', kind: 'month' });
    expect(read('in November').period).toEqual({ from: '2026-11-01', to: '2026-11-17', kind: 'month-to-date' });
    expect(read('in march 2025').comparison).toEqual({ from: '2025-02-01', to: '2025-02-28', kind: 'month' });
  });

  it('reads month against month', () => {
    const c = read('bookings in October compared with September');
    expect([c.period, c.comparison]).toEqual([{ from: '2026-10-01', to: '2026-10-31', kind: 'month' }, { from: '2026-09-01', to: '2026-09-30', kind: 'month' }]);
    const d = read('January vs December');
    expect([d.period.from, d.comparison.from]).toEqual(['2026-01-01', '2025-12-01']);
  });

  it('reads the last N days against the N days before', () => {
    const c = read('over the last 14 days');
    expect([c.period, c.comparison]).toEqual([{ from: '2026-11-04', to: '2026-11-17', kind: 'last-days' }, { from: '2026-10-21', to: '2026-11-03', kind: 'last-days' }]);
  });

  it('reads a run of days that is not whole weeks against the same weekdays whole weeks before', () => {
    // Today is Wednesday 2026-11-18: the last 3 days are Sunday to Tuesday, against Sunday to Tuesday a week before.
    const c = read('why did revenue fall over the last 3 days?');
    expect([c.period, c.comparison]).toEqual([{ from: '2026-11-15', to: '2026-11-17', kind: 'last-days' }, { from: '2026-11-08', to: '2026-11-10', kind: 'last-days' }]);
    expect(c.reading).toContain('against the same weekdays a week before');
    for (const n of [1, 2, 5, 9, 10, 13, 20]) {
      const r = read(`the last ${n} days`);
      expect(isoWeekday(r.comparison.from)).toBe(isoWeekday(r.period.from));
      expect(daysBetween(r.comparison.from, r.comparison.to)).toBe(n - 1);
      // The comparison ends before the period starts, and no earlier than needed.
      expect(r.comparison.to < r.period.from).toBe(true);
      expect(daysBetween(r.comparison.to, r.period.from)).toBeLessThanOrEqual(7);
    }
    expect(read('the last 10 days').reading).toContain('the same weekdays 2 weeks before');
  });

  it('reads explicit ISO dates: one day, a range, and a range against a range', () => {
    expect(read('on 2026-11-03').period).toEqual({ from: '2026-11-03', to: '2026-11-03', kind: 'day' });
    const r = read('between 2026-11-10 and 2026-11-01');
    expect([r.period, r.comparison]).toEqual([{ from: '2026-11-01', to: '2026-11-10', kind: 'range' }, { from: '2026-10-18', to: '2026-10-27', kind: 'range' }]);
    expect(r.reading).toContain('against the same weekdays 2 weeks before');
    const v = read('2026-11-09 to 2026-11-15 against 2025-11-10 to 2025-11-16');
    expect(v.comparison).toEqual({ from: '2025-11-10', to: '2025-11-16', kind: 'range' });
  });

  it('reads this week and this month to date', () => {
    expect(read('this week').period).toEqual({ from: '2026-11-16', to: '2026-11-17', kind: 'week-to-date' });
    expect(read('this month').comparison).toEqual({ from: '2026-10-01', to: '2026-10-17', kind: 'month-to-date' });
  });

  it('offers the same period a year before only when the data reaches back that far', () => {
    expect(read('last week', { firstDataDay: '2025-11-01' }).yearBefore).toEqual({ from: '2025-11-10', to: '2025-11-16', kind: 'iso-week' });
    expect(read('last week', { firstDataDay: '2026-01-01' }).yearBefore).toBeUndefined();
    expect(read('in October', { firstDataDay: '2025-01-01' }).yearBefore).toEqual({ from: '2025-10-01', to: '2025-10-31', kind: 'month' });
  });

  it('compares a month-to-date with as many days of the month before, never past its end', () => {
    expect(comparisonOf({ from: '2026-03-01', to: '2026-03-30', kind: 'month-to-date' })).toEqual({ from: '2026-02-01', to: '2026-02-28', kind: 'month-to-date' });
  });
});
