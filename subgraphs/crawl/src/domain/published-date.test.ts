import { describe, expect, it } from '@jest/globals';
import { normalizePublishedDate } from './published-date.js';

describe('normalizePublishedDate: ISO 8601 and other year-first forms', () => {
  it.each([
    ['2026-11-21', '2026-11-21'],
    ['2026-1-5', '2026-01-05'],
    ['2026/11/21', '2026-11-21'],
    ['2026.11.21', '2026-11-21'],
    ['2026. 11. 21.', '2026-11-21'],
    ['2026-11-21T10:00:00Z', '2026-11-21'],
    ['2026-11-21T10:00:00.123Z', '2026-11-21'],
    ['2026-11-21 10:00', '2026-11-21'],
    ['2026年11月21日', '2026-11-21'],
    ['2026년 11월 21일', '2026-11-21'],
    ['２０２６－１１－２１', '2026-11-21'],
    ['2026 Nov 21', '2026-11-21'],
    ['2026-Nov-21', '2026-11-21'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
  });

  it('uses the calendar date as written, never shifting it by the offset', () => {
    expect(normalizePublishedDate('2026-11-21T23:30:00-05:00')).toBe('2026-11-21');
    expect(normalizePublishedDate('2026-11-21T00:30:00+09:00')).toBe('2026-11-21');
    expect(normalizePublishedDate('Sat, 21 Nov 2026 23:59:59 -1200')).toBe('2026-11-21');
  });

  it('is not confused by dayFirst for year-first dates', () => {
    expect(normalizePublishedDate('2026/02/01', { dayFirst: true })).toBe('2026-02-01');
    expect(normalizePublishedDate('2026/02/01', { dayFirst: false })).toBe('2026-02-01');
  });

  it('reads URL paths with a date in them', () => {
    expect(normalizePublishedDate('https://example.com/news/2026/11/21/launch')).toBe('2026-11-21');
  });
});

describe('normalizePublishedDate: <time datetime> values', () => {
  it.each([
    ['2026-11-21', '2026-11-21'],
    ['2026-11-21T10:00', '2026-11-21'],
    ['2026-11-21T10:00:00+01:00', '2026-11-21'],
    ['2026-11-21 10:00:00Z', '2026-11-21'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
  });

  it.each(['2026-11', '2026', '2026-W47', '--11-21', '10:00'])('%s (no full date) → null', (input) => {
    expect(normalizePublishedDate(input)).toBeNull();
  });
});

describe('normalizePublishedDate: RFC 2822', () => {
  it.each([
    ['Sat, 21 Nov 2026 10:00:00 +0000', '2026-11-21'],
    ['Sat, 21 Nov 2026 10:00:00 GMT', '2026-11-21'],
    ['21 Nov 2026 10:00 +0100', '2026-11-21'],
    ['Mon, 2 Feb 2026 08:00:00 -0800', '2026-02-02'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
  });
});

describe('normalizePublishedDate: English month names', () => {
  it.each([
    ['21 Nov 2026', '2026-11-21'],
    ['21 November 2026', '2026-11-21'],
    ['21 nov 2026', '2026-11-21'],
    ['21 NOVEMBER 2026', '2026-11-21'],
    ['21 Nov. 2026', '2026-11-21'],
    ['21-Nov-2026', '2026-11-21'],
    ['21. November 2026', '2026-11-21'],
    ['21st November 2026', '2026-11-21'],
    ['1st Jan 2026', '2026-01-01'],
    ['2nd February 2026', '2026-02-02'],
    ['3rd March 2026', '2026-03-03'],
    ['the 21st of November, 2026', '2026-11-21'],
    ['Nov 21, 2026', '2026-11-21'],
    ['Nov. 21, 2026', '2026-11-21'],
    ['November 21, 2026', '2026-11-21'],
    ['November 21st, 2026', '2026-11-21'],
    ['november 21 2026', '2026-11-21'],
    ['Sept 9, 2026', '2026-09-09'],
    ['Sep 9, 2026', '2026-09-09'],
    ['September 9, 2026', '2026-09-09'],
    ['May 5, 2026', '2026-05-05'],
    ['Dec 31, 2026', '2026-12-31'],
    ['Feb 29, 2028', '2028-02-29'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
  });

  it('is independent of dayFirst', () => {
    expect(normalizePublishedDate('Nov 1, 2026', { dayFirst: true })).toBe('2026-11-01');
    expect(normalizePublishedDate('1 Nov 2026', { dayFirst: false })).toBe('2026-11-01');
  });
});

describe('normalizePublishedDate: numeric day and month', () => {
  it.each([
    ['21/11/2026', '2026-11-21'],
    ['21.11.2026', '2026-11-21'],
    ['21-11-2026', '2026-11-21'],
    ['1/2/2026', '2026-02-01'],
    ['01/02/2026', '2026-02-01'],
  ])('day first (default): %s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
    expect(normalizePublishedDate(input, { dayFirst: true })).toBe(expected);
  });

  it.each([
    ['11/21/2026', '2026-11-21'],
    ['01/02/2026', '2026-01-02'],
    ['2.1.2026', '2026-02-01'],
    ['12-31-2026', '2026-12-31'],
  ])('month first: %s → %s', (input, expected) => {
    expect(normalizePublishedDate(input, { dayFirst: false })).toBe(expected);
  });

  it('never swaps the configured order, even when only the other order would be a real date', () => {
    expect(normalizePublishedDate('11/21/2026')).toBeNull();
    expect(normalizePublishedDate('21/11/2026', { dayFirst: false })).toBeNull();
  });

  it('requires the same separator twice', () => {
    expect(normalizePublishedDate('21/11-2026')).toBeNull();
    expect(normalizePublishedDate('2026-11/21')).toBeNull();
  });
});

describe('normalizePublishedDate: surrounding text', () => {
  it.each([
    ['Published: 21 Nov 2026, 10:00', '2026-11-21'],
    ['Posted on November 21, 2026 by Ada', '2026-11-21'],
    ['  Date:\n\t21.11.2026  ', '2026-11-21'],
    ['(2026-11-21)', '2026-11-21'],
    ['Updated 2026-12-01 · first published 21 Nov 2026', '2026-12-01'],
    ['Posted 21 Nov 2026 — updated 2026-12-01', '2026-11-21'],
    ['Published\u00a021\u00a0Nov\u00a02026', '2026-11-21'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePublishedDate(input)).toBe(expected);
  });

  it('skips a candidate that is not a real date and takes the next one', () => {
    expect(normalizePublishedDate('Ref 2026-13-45, published 2026-11-21')).toBe('2026-11-21');
  });

  it('does not read digits out of longer numbers', () => {
    expect(normalizePublishedDate('Order 120261121')).toBeNull();
    expect(normalizePublishedDate('id 12026-11-21')).toBeNull();
    expect(normalizePublishedDate('2026-11-211')).toBeNull();
    expect(normalizePublishedDate('121 Nov 2026')).toBeNull();
  });

  it('does not read a month name out of a longer word', () => {
    expect(normalizePublishedDate('21 Novel 2026')).toBeNull();
    expect(normalizePublishedDate('Decade 21, 2026')).toBeNull();
  });
});

describe('normalizePublishedDate: calendar validation', () => {
  it.each(['2026-02-30', '2026-02-29', '2026-04-31', '31/04/2026', 'Feb 30, 2026', '30 February 2026', '2026-00-10', '2026-13-01', '2026-11-00', '0/11/2026'])(
    '%s → null',
    (input) => {
      expect(normalizePublishedDate(input)).toBeNull();
    },
  );

  it('accepts 29 February in leap years only', () => {
    expect(normalizePublishedDate('2028-02-29')).toBe('2028-02-29');
    expect(normalizePublishedDate('2000-02-29')).toBe('2000-02-29');
    expect(normalizePublishedDate('2100-02-29')).toBeNull();
  });

  it('refuses years outside 1000–9999', () => {
    expect(normalizePublishedDate('0999-01-01')).toBeNull();
    expect(normalizePublishedDate('1000-01-01')).toBe('1000-01-01');
  });
});

describe('normalizePublishedDate: refused input', () => {
  it.each([
    ['two-digit year, numeric', '21/11/26'],
    ['two-digit year, year-first', '26.11.21'],
    ['two-digit year, month name', "Nov 21, '26"],
    ['two-digit year, RFC 2822', 'Sat, 21 Nov 26 10:00:00 +0000'],
    ['relative', 'yesterday'],
    ['relative, with number', '3 days ago'],
    ['month and year only', 'November 2026'],
    ['non-English month', '21 novembre 2026'],
    ['garbage', 'lorem ipsum'],
    ['punctuation', '--/--/----'],
    ['empty', ''],
    ['whitespace', '   \n '],
  ])('%s (%s) → null', (_label, input) => {
    expect(normalizePublishedDate(input)).toBeNull();
  });

  it('returns null for null, undefined and non-strings', () => {
    expect(normalizePublishedDate(null)).toBeNull();
    expect(normalizePublishedDate(undefined)).toBeNull();
    expect(normalizePublishedDate(20261121 as unknown as string)).toBeNull();
  });

  it('is stable across repeated calls (no regex state leaks)', () => {
    for (let i = 0; i < 3; i++) {
      expect(normalizePublishedDate('Published: 21 Nov 2026')).toBe('2026-11-21');
      expect(normalizePublishedDate('nothing here')).toBeNull();
    }
  });
});
