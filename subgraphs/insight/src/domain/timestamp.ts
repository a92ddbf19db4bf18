import { z } from 'zod';

/**
 * Timestamps clients send: RFC 3339 date-times (`2026-11-09T00:00:00Z`,
 * `2026-11-09T01:00:00.250+01:00`), RFC 3339 full dates (`2026-11-09`, midnight UTC) or
 * integer epoch milliseconds, nothing else: no bare years,
 * no "Nov 1 2026", no impossible dates (31 April), no precision below a millisecond (it would
 * read back as a duplicate of its neighbour).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Epoch milliseconds of an RFC 3339 date-time; a reason when it is not one. */
export function parseRfc3339(text: string): number | { problem: string } {
  const m = RFC3339.exec(text);
  const bad = { problem: `${JSON.stringify(text.slice(0, 60))} is not an RFC 3339 date-time (e.g. 2026-11-09T00:00:00Z) or integer epoch milliseconds` };
  if (!m) return bad;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return bad;
  const fraction = m[7] ?? '';
  if (/[1-9]/.test(fraction.slice(3))) return { problem: `${JSON.stringify(text)} is more precise than a millisecond` };
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return bad;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset * 60_000;
}

/** The zod schema of such a timestamp (ingest, lookups, events): epoch milliseconds out, a reason naming the value otherwise. */
export const timestampSchema = z
  .union([z.string().min(1).max(40), z.number()])
  .transform((v, ctx) => {
    const t = typeof v !== 'number' ? parseRfc3339(v) : Number.isInteger(v) ? v : { problem: `epoch milliseconds must be a whole number, got ${v}` };
    if (typeof t !== 'number') {
      ctx.addIssue({ code: 'custom', message: t.problem });
      return z.NEVER;
    }
    return t;
  })
  .meta({ description: 'RFC 3339 date-time (e.g. 2026-11-09T00:00:00Z) or integer epoch milliseconds' });
