import { describe, expect, it } from '@jest/globals';
import { formatChange, formatDay, formatDelta, formatPeriod, formatShare, formatValue } from './format.js';

describe('format', () => {
  it('prints values in their unit', () => {
    expect(formatValue(66581.72, { kind: 'currency', code: 'USD' })).toBe('$66,582');
    expect(formatValue(12.5, { kind: 'currency', code: 'EUR' })).toBe('€12.50');
    expect(formatValue(34900, { kind: 'count', noun: 'sessions' })).toBe('34,900 sessions');
    expect(formatValue(1234.567, { kind: 'count' })).toBe('1,235');
    expect(formatValue(0.0307, { kind: 'ratio' })).toBe('3.07 %');
    expect(formatValue(3.07, { kind: 'percent' })).toBe('3.07 %');
  });

  it('follows the locale', () => {
    expect(formatValue(66581.72, { kind: 'currency', code: 'EUR' }, 'de-DE')).toBe('66.582\u00a0€');
    expect(formatValue(34900, { kind: 'count' }, 'de-DE')).toBe('34.900');
  });

  it('signs changes with a true minus', () => {
    expect(formatChange(-0.0821)).toBe('\u22128.2 %');
    expect(formatChange(0.0644)).toBe('+6.4 %');
    expect(formatChange(0.0046)).toBe('+0.46 %');
    expect(formatDelta(-5462.2, { kind: 'currency', code: 'USD' })).toBe('\u2212$5,462');
    expect(formatDelta(120, { kind: 'count', noun: 'bookings' })).toBe('+120 bookings');
    expect(formatDelta(-0.0042, { kind: 'ratio' })).toBe('\u22120.42 pts');
    expect(formatShare(0.9437)).toBe('94 %');
  });

  it('gives no sign to a change that shows as zero', () => {
    expect(formatDelta(-0.001, { kind: 'currency', code: 'USD' })).toBe('$0.00');
    expect(formatDelta(-0.004, { kind: 'currency', code: 'EUR' }, 'de-DE')).toBe('0,00\u00a0€');
    expect(formatDelta(-0.006, { kind: 'currency', code: 'USD' })).toBe('\u2212$0.01');
    expect(formatDelta(-1e-9, { kind: 'ratio' })).toBe('0 pts');
    expect(formatDelta(-1e-4, { kind: 'ratio' })).toBe('\u22120.01 pts');
    expect(formatDelta(0, { kind: 'count', noun: 'bookings' })).toBe('0 bookings');
    expect(formatChange(-0.00001)).toBe('0.00 %');
    expect(formatChange(-0.0001)).toBe('\u22120.01 %');
  });

  it('prints days with their weekday and periods compactly', () => {
    expect(formatDay('2026-11-09')).toBe('Mon 9 Nov');
    expect(formatPeriod({ from: '2026-11-09', to: '2026-11-15', kind: 'iso-week' })).toBe('Mon 9 – Sun 15 Nov');
    expect(formatPeriod({ from: '2026-10-26', to: '2026-11-01', kind: 'iso-week' })).toBe('Mon 26 Oct – Sun 1 Nov');
    expect(formatPeriod({ from: '2026-11-17', to: '2026-11-17', kind: 'day' })).toBe('Tue 17 Nov');
    expect(formatPeriod({ from: '2026-10-01', to: '2026-10-31', kind: 'month' })).toBe('October 2026');
  });
});
