/**
 * Cron schedules of crawl jobs. A `cronExpression` has exactly six space-separated fields with
 * seconds first (`seconds minutes hours day-of-month month day-of-week`) and is evaluated in UTC by
 * cron-parser, the library agenda uses for `repeatEvery` (agenda must therefore be given
 * `timezone: 'UTC'`, or it evaluates the same expression in the server's local zone). Accepted per
 * field: numbers, `*`, lists `,`, ranges `-`, steps `/`, English month and day names (`JAN`–`DEC`,
 * `SUN`–`SAT`, any case; day-of-week 0 and 7 are both Sunday), `L` in day-of-month, `nL` and `n#k`
 * in day-of-week. `?` (Quartz "no specific value") is accepted only as the whole day-of-month or
 * day-of-week field and means the same as `*`; the expression is kept as written (cron-parser
 * accepts `?` itself). Refused with a 400 naming the expression and what is wrong: any field count
 * other than six (a Quartz seventh, year, field included), `@daily`-style macros, `H` (cron-parser
 * picks a random value per parse, so our nextRunAt and agenda's would disagree), Quartz `W`/`LW`,
 * out-of-range values, restricting both day-of-month and day-of-week (standard cron ORs them, Quartz
 * forbids it; put `?` in one of them), and expressions that can never fire (`0 0 0 30 2 ?`). A
 * seconds field of `*` means every second, the finest schedule possible; it is allowed, nothing can
 * fire more often. `next(after)` is strictly later than `after` and always a whole second; DST
 * never applies because everything is UTC.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { SvcError } from '@svc/kit';

export interface ParsedCron {
  /** The expression as accepted: trimmed, fields separated by single spaces, otherwise as written. */
  expression: string;
  /** The first firing time strictly after `after` (default: now), in UTC. */
  next(after?: Date): Date;
}

const FIELD_NAMES = ['seconds', 'minutes', 'hours', 'day-of-month', 'month', 'day-of-week'] as const;
const SHAPE = 'six fields (seconds minutes hours day-of-month month day-of-week)';
/** A harmless value for every field, used to parse one field on its own. */
const NEUTRAL = ['0', '0', '0', '*', '*', '*'];
const DOM = 3;
const MONTH = 4;
const DOW = 5;
/** Longest month of each month number (February counted with 29 days). */
const MONTH_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** cron-parser gives up after 10 000 search steps and then returns a wrong date; we resume instead. */
const MAX_RESUMES = 200;

function bad(expression: string, what: string): SvcError {
  return new SvcError('BAD_USER_INPUT', `cronExpression ${JSON.stringify(expression)} is invalid: ${what}`);
}

function parseWith(fields: readonly string[], currentDate: Date): CronExpression {
  return CronExpressionParser.parse(fields.join(' '), { currentDate, tz: 'UTC' });
}

/**
 * Checks the shape and every field on its own, so the error names the field at fault; returns
 * each field parsed alone (the others neutral).
 */
function checkFields(expression: string, fields: string[]): CronExpression[] {
  if (fields.length === 0 || fields[0] === '') {
    throw new SvcError('BAD_USER_INPUT', `cronExpression must have ${SHAPE}; got an empty expression`);
  }
  if (fields.length === 1 && fields[0]!.startsWith('@')) {
    throw new SvcError(
      'BAD_USER_INPUT',
      `cronExpression must have ${SHAPE}; macros such as ${JSON.stringify(fields[0])} are not supported`,
    );
  }
  if (fields.length === 7) {
    throw new SvcError(
      'BAD_USER_INPUT',
      `cronExpression must have ${SHAPE}; got 7: ${JSON.stringify(expression)} (a seventh, year, field is not supported)`,
    );
  }
  if (fields.length !== 6) {
    throw new SvcError('BAD_USER_INPUT', `cronExpression must have ${SHAPE}; got ${fields.length}: ${JSON.stringify(expression)}`);
  }
  return fields.map((value, i) => {
    const name = FIELD_NAMES[i]!;
    const where = `${name} field ${JSON.stringify(value)}`;
    if (value.includes('?') && (value !== '?' || (i !== DOM && i !== DOW))) {
      throw bad(expression, `${where}: "?" is allowed only as the whole day-of-month or day-of-week field`);
    }
    if (/h/i.test(value.replace(/thu/gi, ''))) {
      throw bad(expression, `${where}: hashed values (H) are not supported`);
    }
    if (/w/i.test(value.replace(/wed/gi, ''))) {
      throw bad(expression, `${where}: W (nearest weekday) is not supported`);
    }
    const alone = [...NEUTRAL];
    alone[i] = value;
    try {
      return parseWith(alone, new Date(0));
    } catch (error) {
      throw bad(expression, `${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** The day-of-month / month combinations that can never occur, and the OR ambiguity. */
function checkDays(expression: string, fields: string[], alone: CronExpression[]): void {
  const dom = alone[DOM]!.fields.dayOfMonth;
  const dow = alone[DOW]!.fields.dayOfWeek;
  if (!dom.isWildcard && !dow.isWildcard) {
    throw bad(
      expression,
      'it restricts both day-of-month and day-of-week; put "?" in one of them (cron would fire when either matches)',
    );
  }
  if (!dom.isWildcard && !dom.hasLastChar) {
    const firstDay = Math.min(...dom.values.flatMap((v) => (typeof v === 'number' ? [v] : [])));
    const longest = Math.max(...alone[MONTH]!.fields.month.values.map((m) => MONTH_DAYS[m] ?? 0));
    if (firstDay > longest) {
      throw bad(expression, `it never fires: day ${firstDay} does not occur in month field ${JSON.stringify(fields[MONTH])}`);
    }
  }
}

function nextAfter(parsed: CronExpression, fields: readonly string[], after: Date): Date {
  let from = after;
  for (let attempt = 0; attempt < MAX_RESUMES; attempt++) {
    const candidate = parseWith(fields, from).next().toDate();
    if (candidate.getTime() > after.getTime() && parsed.includesDate(candidate)) return candidate;
    // cron-parser stopped at its step limit (a rare schedule such as `0 0 0 ? 2 MON#5`) without a
    // match; every instant it skipped was a non-match, so the search resumes from where it stopped.
    from = candidate.getTime() > from.getTime() ? candidate : new Date(from.getTime() + 1000);
  }
  throw new Error(`cronExpression ${JSON.stringify(fields.join(' '))}: no firing time found after ${after.toISOString()}`);
}

/** Validates a six-field cron expression; throws a 400 SvcError naming it and the problem. */
export function parseCron(expression: string): ParsedCron {
  if (typeof expression !== 'string') {
    throw new SvcError('BAD_USER_INPUT', `cronExpression must be a string; got ${JSON.stringify(expression) ?? String(expression)}`);
  }
  const fields = expression.trim().split(/\s+/);
  const normalised = fields.join(' ');
  checkDays(normalised, fields, checkFields(normalised, fields));
  let parsed: CronExpression;
  try {
    parsed = parseWith(fields, new Date(0));
  } catch (error) {
    throw bad(normalised, error instanceof Error ? error.message : String(error));
  }
  // Schedules that pass the checks above fire at least once every few decades; prove it once.
  try {
    nextAfter(parsed, fields, new Date(Date.UTC(2000, 0, 1)));
  } catch {
    throw bad(normalised, 'it never fires');
  }
  return {
    expression: normalised,
    next(after: Date = new Date()): Date {
      if (!(after instanceof Date) || Number.isNaN(after.getTime())) throw new RangeError('after must be a valid Date');
      return nextAfter(parsed, fields, after);
    },
  };
}

/** The first time `expression` fires strictly after `after` (default: now), in UTC. */
export function nextRunAt(expression: string, after: Date = new Date()): Date {
  return parseCron(expression).next(after);
}
