/**
 * Which period the question asks about, and what it is compared with. Relative words are read
 * against "today": the day of `now`, or the day after the data's last day when the data stops
 * earlier (so "yesterday" is the last day with data). Weeks are ISO weeks, Monday to Sunday.
 */
import { addDays, addMonths, daysBetween, isoWeekday, monthEnd, monthStart } from './days.js';

export type PeriodKind = 'iso-week' | 'week-to-date' | 'day' | 'month' | 'month-to-date' | 'last-days' | 'range';

export interface Period {
  /** First day, ISO date, included. */
  from: string;
  /** Last day, ISO date, included. */
  to: string;
  kind: PeriodKind;
}

export interface PeriodChoice {
  period: Period;
  comparison: Period;
  /** The same period a year before (364 days for weeks and days, so weekdays line up), when the data reaches back that far. */
  yearBefore?: Period;
  /** How the words were read, e.g. `"last week": the last complete ISO week (Monday to Sunday)`. */
  reading: string;
  /** The day relative words were read against. */
  today: string;
}

export interface PeriodContext {
  now: number;
  /** Last day with data (ISO date); today moves back to the day after it when the data stops before now. */
  lastDataDay?: string;
  /** First day with data; decides whether the year-before period exists. */
  firstDataDay?: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_WORD = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})\b/g;

function monthIndex(word: string): number {
  return MONTHS.findIndex((m) => m.startsWith(word.slice(0, 3)));
}

function lengthOf(p: Period): number {
  return daysBetween(p.from, p.to) + 1;
}

/** The most recent month `index` (0-11) that has started by `today` (in `year` when given). */
function namedMonth(index: number, today: string, year?: number): Period {
  let y = year ?? Number(today.slice(0, 4));
  let from = `${y}-${String(index + 1).padStart(2, '0')}-01`;
  if (year === undefined && from >= today) {
    y -= 1;
    from = `${y}-${String(index + 1).padStart(2, '0')}-01`;
  }
  const end = monthEnd(from);
  return end < today ? { from, to: end, kind: 'month' } : { from, to: addDays(today, -1), kind: 'month-to-date' };
}

/**
 * How many whole weeks back a run of days is compared: the fewest that clear the run itself, so
 * the comparison holds the same weekdays (three days from a Thursday against three days from the
 * Thursday before, not against a Monday to Wednesday, which a weekly season alone would move).
 */
function weeksBack(p: Period): number {
  return Math.ceil(lengthOf(p) / 7);
}

/** The like period before: the previous week or month; for a day or a run of days, the same weekdays one or more whole weeks before. */
export function comparisonOf(p: Period): Period {
  switch (p.kind) {
    case 'iso-week':
    case 'week-to-date':
      return { from: addDays(p.from, -7), to: addDays(p.to, -7), kind: p.kind };
    case 'day':
      return { from: addDays(p.from, -7), to: addDays(p.to, -7), kind: 'day' };
    case 'month': {
      const from = addMonths(p.from, -1);
      return { from, to: monthEnd(from), kind: 'month' };
    }
    case 'month-to-date': {
      const from = addMonths(p.from, -1);
      const to = addDays(from, Math.min(lengthOf(p), daysBetween(from, monthEnd(from)) + 1) - 1);
      return { from, to, kind: 'month-to-date' };
    }
    case 'last-days':
    case 'range': {
      const shift = weeksBack(p) * 7;
      return { from: addDays(p.from, -shift), to: addDays(p.to, -shift), kind: p.kind };
    }
  }
}

function yearBeforeOf(p: Period): Period {
  if (p.kind === 'month' || p.kind === 'month-to-date') {
    const from = addMonths(p.from, -12);
    return { from, to: p.kind === 'month' ? monthEnd(from) : addDays(from, lengthOf(p) - 1), kind: p.kind };
  }
  return { from: addDays(p.from, -364), to: addDays(p.to, -364), kind: p.kind };
}

function todayOf(ctx: PeriodContext): string {
  const nowDay = new Date(Math.floor(ctx.now / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
  if (ctx.lastDataDay && addDays(ctx.lastDataDay, 1) < nowDay) return addDays(ctx.lastDataDay, 1);
  return nowDay;
}

/** "the same weekdays a week before", "the 14 days before them", "the same weekdays 2 weeks before". */
function sameWeekdaysBefore(p: Period): string {
  const n = lengthOf(p);
  const weeks = weeksBack(p);
  if (n === weeks * 7) return `the ${n} days before them`;
  return `the same weekdays ${weeks === 1 ? 'a week' : `${weeks} weeks`} before`;
}

interface Reading {
  period: Period;
  comparison?: Period;
  reading: string;
}

function read(q: string, today: string): Reading {
  const vs = '\\s+(?:vs\\.?|versus|against|compared\\s+(?:with|to))\\s+';
  const mm = new RegExp(`\\b${MONTH_WORD}(?:\\s+(\\d{4}))?${vs}${MONTH_WORD}(?:\\s+(\\d{4}))?\\b`).exec(q);
  if (mm) {
    const a = namedMonth(monthIndex(mm[1]!), today, mm[2] ? Number(mm[2]) : undefined);
    let b = namedMonth(monthIndex(mm[3]!), today, mm[4] ? Number(mm[4]) : undefined);
    if (!mm[4] && b.from >= a.from) b = namedMonth(monthIndex(mm[3]!), today, Number(a.from.slice(0, 4)) - 1);
    return { period: a, comparison: b, reading: `"${mm[0]}": ${a.from.slice(0, 7)} against ${b.from.slice(0, 7)}, whole calendar months` };
  }
  const dates = [...q.matchAll(ISO_DATE)].map((m) => m[1]!);
  if (dates.length >= 4 && new RegExp(vs).test(q)) {
    const [a0, a1, b0, b1] = dates as [string, string, string, string];
    return {
      period: { from: a0 < a1 ? a0 : a1, to: a0 < a1 ? a1 : a0, kind: 'range' },
      comparison: { from: b0 < b1 ? b0 : b1, to: b0 < b1 ? b1 : b0, kind: 'range' },
      reading: 'the dates given, against the dates given',
    };
  }
  if (dates.length >= 2) {
    const [a, b] = [dates[0]!, dates[1]!].sort() as [string, string];
    const period: Period = { from: a, to: b, kind: 'range' };
    return { period, reading: `${a} to ${b}, both days included, against ${sameWeekdaysBefore(period)}` };
  }
  if (dates.length === 1) return { period: { from: dates[0]!, to: dates[0]!, kind: 'day' }, reading: `${dates[0]}, against the same weekday a week before` };
  if (/\byesterday\b/.test(q)) {
    const d = addDays(today, -1);
    return { period: { from: d, to: d, kind: 'day' }, reading: '"yesterday": the last full day, against the same weekday a week before' };
  }
  const lastN = /\b(?:last|past|previous)\s+(\d{1,3})\s+days?\b/.exec(q);
  if (lastN) {
    const n = Math.max(1, Number(lastN[1]));
    const period: Period = { from: addDays(today, -n), to: addDays(today, -1), kind: 'last-days' };
    return { period, reading: `"${lastN[0]}": the ${n} full days before today, against ${sameWeekdaysBefore(period)}` };
  }
  if (/\bthis\s+week\b|\bweek\s+to\s+date\b/.test(q)) {
    const from = addDays(today, 1 - isoWeekday(today));
    if (from < today) return { period: { from, to: addDays(today, -1), kind: 'week-to-date' }, reading: '"this week": Monday to yesterday, against the same days a week before' };
  }
  if (/\bthis\s+month\b|\bmonth\s+to\s+date\b/.test(q) && monthStart(today) < today) {
    return { period: { from: monthStart(today), to: addDays(today, -1), kind: 'month-to-date' }, reading: '"this month": the 1st to yesterday, against the same days of the month before' };
  }
  if (/\b(?:last|past|previous)\s+month\b|\bmonth\s+over\s+month\b/.test(q)) {
    const from = addMonths(monthStart(today), -1);
    return { period: { from, to: monthEnd(from), kind: 'month' }, reading: '"last month": the last complete calendar month, against the month before' };
  }
  const inMonth = new RegExp(`\\b(?:in|during|for|of)\\s+${MONTH_WORD}(?:\\s+(\\d{4}))?\\b`).exec(q);
  if (inMonth) {
    const p = namedMonth(monthIndex(inMonth[1]!), today, inMonth[2] ? Number(inMonth[2]) : undefined);
    return { period: p, reading: `"${inMonth[0].trim()}": ${p.kind === 'month' ? 'the whole calendar month' : 'the 1st to yesterday'}, against the month before` };
  }
  const week = addDays(today, 1 - isoWeekday(today) - 7);
  const lastWeek = /\b(?:last|past|previous)\s+week\b|\bweek\s+over\s+week\b/.test(q);
  return {
    period: { from: week, to: addDays(week, 6), kind: 'iso-week' },
    reading: `${lastWeek ? '"last week"' : 'no period named, so last week'}: the last complete ISO week (Monday to Sunday), against the week before`,
  };
}

/** "compared to last year", "vs. a year ago", "year over year", "YoY", "than the same week last year": the period is compared with the same one a year before. */
const AGAINST_YEAR_BEFORE = /\b(?:year[\s-]+over[\s-]+year|yoy|y\/y|(?:vs\.?|versus|against|compared\s+(?:with|to)|than|from|to)\s+(?:the\s+same\s+\w+\s+)?(?:of\s+)?(?:last|a|the\s+previous|the\s+prior)\s+year|a\s+year\s+(?:ago|before|earlier))\b/;

/** Whether `comparison` is `period`'s year-before (364 days for weeks and days, 12 months for months). */
export function isYearBefore(period: Period, comparison: Period): boolean {
  const year = yearBeforeOf(period);
  return comparison.from === year.from && comparison.to === year.to;
}

/** Reads the question's period (lower or mixed case) and chooses its comparisons. */
export function choosePeriods(question: string, ctx: PeriodContext): PeriodChoice {
  const today = todayOf(ctx);
  const q = question.toLowerCase();
  const r = read(q, today);
  const yearBefore = yearBeforeOf(r.period);
  const yoy = !r.comparison && AGAINST_YEAR_BEFORE.test(q);
  return {
    period: r.period,
    comparison: yoy ? yearBefore : r.comparison ?? comparisonOf(r.period),
    ...(ctx.firstDataDay && ctx.firstDataDay <= yearBefore.from ? { yearBefore } : {}),
    reading: yoy ? `${r.reading.replace(/, against [^,]*$/, '')}, against the same period a year before (the question compares with last year)` : r.reading,
    today,
  };
}

export function periodDays(p: Period): number {
  return lengthOf(p);
}
