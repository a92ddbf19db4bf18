import { describe, expect, it } from '@jest/globals';
import { thrown } from '@svc/kit/testing/thrown';
import { nextRunAt, parseCron } from './cron.js';


function badRequest(expression: string): string {
  const error = thrown(() => parseCron(expression));
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.status).toBe(400);
  expect(error.message).toContain('cronExpression');
  return error.message;
}

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('parseCron: accepted expressions and their next run (UTC)', () => {
  it('fires daily at 09:00:00 UTC for `0 0 9 * * ?`', () => {
    const cron = parseCron('0 0 9 * * ?');
    expect(cron.expression).toBe('0 0 9 * * ?');
    expect(iso(cron.next(at('2026-11-21T08:15:00Z')))).toBe('2026-11-21T09:00:00.000Z');
    expect(iso(cron.next(at('2026-11-21T09:00:00Z')))).toBe('2026-11-22T09:00:00.000Z');
    expect(iso(cron.next(at('2026-12-31T23:59:59.999Z')))).toBe('2027-01-01T09:00:00.000Z');
  });

  it('fires every 30 seconds for `*/30 * * * * *`', () => {
    const cron = parseCron('*/30 * * * * *');
    expect(iso(cron.next(at('2026-11-21T10:00:00Z')))).toBe('2026-11-21T10:00:30.000Z');
    expect(iso(cron.next(at('2026-11-21T10:00:30Z')))).toBe('2026-11-21T10:01:00.000Z');
    expect(iso(cron.next(at('2026-11-21T10:00:29.400Z')))).toBe('2026-11-21T10:00:30.000Z');
  });

  it('fires on weekdays at 10:15 for `0 15 10 ? * MON-FRI`', () => {
    const cron = parseCron('0 15 10 ? * MON-FRI');
    // 2026-11-20 is a Friday, 2026-11-21 a Saturday.
    expect(iso(cron.next(at('2026-11-20T10:00:00Z')))).toBe('2026-11-20T10:15:00.000Z');
    expect(iso(cron.next(at('2026-11-20T10:15:00Z')))).toBe('2026-11-23T10:15:00.000Z');
    expect(iso(cron.next(at('2026-11-21T00:00:00Z')))).toBe('2026-11-23T10:15:00.000Z');
  });

  it('accepts month and day names in any case', () => {
    expect(iso(nextRunAt('0 0 12 1 jan,Jul ?', at('2026-03-01T00:00:00Z')))).toBe('2026-07-01T12:00:00.000Z');
    expect(iso(nextRunAt('0 30 6 ? * sun', at('2026-11-21T00:00:00Z')))).toBe('2026-11-22T06:30:00.000Z');
    expect(iso(nextRunAt('0 0 0 ? DEC SAT,SUN', at('2026-11-21T00:00:00Z')))).toBe('2026-12-05T00:00:00.000Z');
  });

  it('treats day-of-week 0 and 7 as Sunday', () => {
    const after = at('2026-11-21T00:00:00Z');
    expect(nextRunAt('0 0 8 ? * 7', after)).toEqual(nextRunAt('0 0 8 ? * 0', after));
    expect(iso(nextRunAt('0 0 8 ? * 7', after))).toBe('2026-11-22T08:00:00.000Z');
  });

  it('accepts `*` in both day fields, and `?` in both', () => {
    expect(iso(nextRunAt('0 0 9 * * *', at('2026-11-21T10:00:00Z')))).toBe('2026-11-22T09:00:00.000Z');
    expect(iso(nextRunAt('0 0 9 ? * ?', at('2026-11-21T10:00:00Z')))).toBe('2026-11-22T09:00:00.000Z');
  });

  it('accepts L (last day of month), nL (last weekday n) and n#k (k-th weekday n)', () => {
    expect(iso(nextRunAt('0 0 0 L * ?', at('2026-02-01T00:00:00Z')))).toBe('2026-02-28T00:00:00.000Z');
    expect(iso(nextRunAt('0 0 0 L 2 ?', at('2028-01-01T00:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(nextRunAt('0 0 0 ? * 5L', at('2026-11-01T00:00:00Z')))).toBe('2026-11-27T00:00:00.000Z');
    expect(iso(nextRunAt('0 0 0 ? * MON#2', at('2026-11-01T00:00:00Z')))).toBe('2026-11-09T00:00:00.000Z');
  });

  it('finds a rare but real date (29 February; a fifth Monday in February)', () => {
    expect(iso(nextRunAt('0 0 0 29 2 ?', at('2026-01-01T00:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(nextRunAt('0 0 0 ? 2 MON#5', at('2026-01-01T00:00:00Z')))).toBe('2044-02-29T00:00:00.000Z');
  });

  it('allows a seconds field of `*` (every second, the finest schedule there is)', () => {
    expect(iso(nextRunAt('* * * * * *', at('2026-11-21T10:00:00Z')))).toBe('2026-11-21T10:00:01.000Z');
    expect(iso(nextRunAt('* * * * * *', at('2026-11-21T10:00:00.999Z')))).toBe('2026-11-21T10:00:01.000Z');
  });

  it('normalises surrounding and repeated whitespace but keeps the fields as written', () => {
    expect(parseCron('  0   15\t10 ? *  MON-FRI \n').expression).toBe('0 15 10 ? * MON-FRI');
  });

  it('evaluates in UTC, so a DST change in any zone does not move the run', () => {
    // Europe and the US change clocks on these days; UTC does not.
    expect(iso(nextRunAt('0 30 2 * * ?', at('2026-03-29T00:00:00Z')))).toBe('2026-03-29T02:30:00.000Z');
    expect(iso(nextRunAt('0 30 1 * * ?', at('2026-11-01T00:00:00Z')))).toBe('2026-11-01T01:30:00.000Z');
    expect(iso(nextRunAt('0 30 1 * * ?', at('2026-11-01T01:30:00Z')))).toBe('2026-11-02T01:30:00.000Z');
  });
});

describe('nextRunAt', () => {
  it('is strictly after `after`, a whole second, for many instants', () => {
    const cron = parseCron('*/7 */3 * * * ?');
    let after = at('2026-11-21T10:00:00.000Z');
    for (let i = 0; i < 200; i++) {
      const next = cron.next(after);
      expect(next.getTime()).toBeGreaterThan(after.getTime());
      expect(next.getUTCMilliseconds()).toBe(0);
      after = new Date(next.getTime() + (i % 3 === 0 ? 0 : 137));
    }
  });

  it('returns the same instant as parseCron(...).next(after)', () => {
    const after = at('2026-11-21T10:11:12.345Z');
    expect(nextRunAt('0 15 10 ? * MON-FRI', after)).toEqual(parseCron('0 15 10 ? * MON-FRI').next(after));
  });

  it('defaults `after` to now', () => {
    const before = Date.now();
    const next = nextRunAt('* * * * * *');
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('refuses an invalid `after` date', () => {
    expect(() => parseCron('* * * * * *').next(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('parseCron: refused expressions (400 naming the expression)', () => {
  it('refuses five fields with the shape it expects', () => {
    expect(badRequest('*/5 * * * *')).toBe(
      'cronExpression must have six fields (seconds minutes hours day-of-month month day-of-week); got 5: "*/5 * * * *"',
    );
  });

  it('refuses seven fields (the Quartz year field)', () => {
    const message = badRequest('0 0 12 * * ? 2026');
    expect(message).toContain('got 7: "0 0 12 * * ? 2026"');
    expect(message).toContain('year');
  });

  it('refuses a single word, an empty string and macros', () => {
    expect(badRequest('abc')).toContain('got 1: "abc"');
    expect(badRequest('')).toContain('empty');
    expect(badRequest('   ')).toContain('empty');
    expect(badRequest('@daily')).toContain('"@daily" are not supported');
  });

  it.each([
    ['61 * * * * *', 'seconds field "61"'],
    ['0 60 * * * *', 'minutes field "60"'],
    ['0 0 24 * * ?', 'hours field "24"'],
    ['0 0 0 32 * ?', 'day-of-month field "32"'],
    ['0 0 0 0 * ?', 'day-of-month field "0"'],
    ['0 0 0 1 13 ?', 'month field "13"'],
    ['0 0 0 ? * 8', 'day-of-week field "8"'],
    ['0 0 0 ? FOO *', 'month field "FOO"'],
    ['abc * * * * *', 'seconds field "abc"'],
    ['0 */0 * * * *', 'minutes field "*/0"'],
    ['0 5-1 * * * *', 'minutes field "5-1"'],
    ['1.5 * * * * *', 'seconds field "1.5"'],
  ])('refuses %s, naming the %s', (expression, where) => {
    const message = badRequest(expression);
    expect(message).toContain(JSON.stringify(expression));
    expect(message).toContain(where);
  });

  it('refuses `?` anywhere but as the whole day-of-month or day-of-week field', () => {
    expect(badRequest('? * * * * *')).toContain('seconds field "?"');
    expect(badRequest('0 0 0 ?? * *')).toContain('only as the whole day-of-month or day-of-week');
    expect(badRequest('0 0 0 1 1 ?/2')).toContain('day-of-week field "?/2"');
  });

  it('refuses H (random per parse) and W (nearest weekday)', () => {
    expect(badRequest('H * * * * *')).toContain('hashed values (H)');
    expect(badRequest('0 0 0 15W * ?')).toContain('W (nearest weekday)');
    expect(badRequest('0 0 0 LW * ?')).toContain('W (nearest weekday)');
  });

  it('refuses restricting both day-of-month and day-of-week', () => {
    expect(badRequest('0 0 9 1 * MON')).toContain('restricts both day-of-month and day-of-week');
    expect(badRequest('0 0 9 1-31 * 1-5')).toContain('put "?" in one of them');
  });

  it('refuses expressions that never fire', () => {
    expect(badRequest('0 0 0 30 2 ?')).toContain('never fires: day 30');
    expect(badRequest('0 0 0 31 2,4,6 ?')).toContain('never fires: day 31 does not occur in month field "2,4,6"');
    expect(badRequest('0 0 0 31 APR ?')).toContain('never fires');
  });

  it('accepts day 31 when at least one selected month has it', () => {
    expect(iso(nextRunAt('0 0 0 31 2,4,5 ?', at('2026-01-01T00:00:00Z')))).toBe('2026-05-31T00:00:00.000Z');
  });

  it('refuses a non-string', () => {
    expect(thrown(() => parseCron(42 as unknown as string)).message).toBe('cronExpression must be a string; got 42');
  });
});
