/**
 * Calendar days in UTC. The engine works on daily series: a day is an ISO date string
 * (`2026-11-09`), a point's `t` is the UTC midnight that starts its day.
 */

export const DAY_MS = 86_400_000;

/** Day names by day number; the few hundred days an analysis touches are formatted once. */
const names = new Map<number, string>();
const ranges = new Map<string, readonly string[]>();

export function dayOf(t: number): string {
  const n = Math.floor(t / DAY_MS);
  let name = names.get(n);
  if (name === undefined) {
    name = new Date(n * DAY_MS).toISOString().slice(0, 10);
    if (names.size < 100_000) names.set(n, name);
  }
  return name;
}

const times = new Map<string, number>();

export function timeOf(day: string): number {
  let t = times.get(day);
  if (t !== undefined) return t;
  t = Date.parse(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(t)) throw new RangeError(`not an ISO date: ${JSON.stringify(day)}`);
  if (times.size < 100_000) times.set(day, t);
  return t;
}

export function addDays(day: string, n: number): string {
  return dayOf(timeOf(day) + n * DAY_MS);
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  return Math.round((timeOf(b) - timeOf(a)) / DAY_MS);
}

/** ISO weekday, Monday 1 … Sunday 7. */
export function isoWeekday(day: string): number {
  return ((new Date(timeOf(day)).getUTCDay() + 6) % 7) + 1;
}

export function addMonths(day: string, n: number): string {
  const d = new Date(timeOf(day));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1)).toISOString().slice(0, 10);
}

export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

export function monthEnd(day: string): string {
  return addDays(addMonths(monthStart(day), 1), -1);
}

/** Every day from `from` to `to`, both included (the same array for the same range: do not modify it). */
export function dayRange(from: string, to: string): readonly string[] {
  const key = `${from}|${to}`;
  let out = ranges.get(key);
  if (!out) {
    const days: string[] = [];
    for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
    out = days;
    if (ranges.size < 1000) ranges.set(key, out);
  }
  return out;
}
