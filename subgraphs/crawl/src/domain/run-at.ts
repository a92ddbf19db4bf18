// A one-time crawl job's `runAt`: an ISO 8601 date-time with seconds optional and a `Z` or
// `±hh:mm` offset, a real date (checked field by field: Date alone rolls 31 April into May).

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/;

const show = (value: unknown) => JSON.stringify(value) ?? String(value);

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant of an ISO 8601 date-time with offset, or a description of what is wrong. */
export function parseRunAt(text: string): Date | string {
  const iso = text.trim().toUpperCase(); // RFC 3339 allows a lower-case t and z
  const m = ISO_DATE_TIME.exec(iso);
  if (!m) return `must be an ISO 8601 date-time with a time zone, such as "2026-11-21T09:00:00Z"; got ${show(text)}`;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (
    month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!) ||
    hour! > 23 || minute! > 59 || second! > 59 || offsetHours > 23 || offsetMinutes > 59
  ) {
    return `is not a real date-time: ${show(text)}`;
  }
  const instant = new Date(iso);
  return Number.isNaN(instant.getTime()) ? `is not a real date-time: ${show(text)}` : instant;
}

/** Member-type problems (400): `expected` is 'string', 'boolean', 'number' or 'object'. */
