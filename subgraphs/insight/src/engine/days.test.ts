import { describe, expect, it } from '@jest/globals';
import { addDays, addMonths, dayOf, dayRange, daysBetween, isoWeekday, monthEnd, timeOf } from './days.js';

describe('days', () => {
  it('converts between times and UTC days', () => {
    expect(dayOf(Date.parse('2026-11-09T23:59:59Z'))).toBe('2026-11-09');
    expect(timeOf('2026-11-09')).toBe(Date.UTC(2026, 10, 9));
    expect(() => timeOf('9 Nov')).toThrow('not an ISO date: "9 Nov"');
  });

  it('does calendar arithmetic', () => {
    expect([addDays('2026-02-27', 2), addDays('2026-01-01', -1), daysBetween('2026-10-25', '2026-11-01')]).toEqual(['2026-03-01', '2025-12-31', 7]);
    expect([isoWeekday('2026-11-09'), isoWeekday('2026-11-15')]).toEqual([1, 7]);
    expect([addMonths('2026-01-31', 1), monthEnd('2028-02-10')]).toEqual(['2026-02-01', '2028-02-29']);
    expect(dayRange('2026-11-29', '2026-12-02')).toEqual(['2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02']);
    expect(dayRange('2026-11-29', '2026-12-02')).toBe(dayRange('2026-11-29', '2026-12-02'));
  });
});
