/**
 * Numbers and dates for a reader, with Intl: `$66,582`, `34,900 sessions`, `3.07 %`, signed
 * changes `−8.2 %` (a true minus sign), days with their weekday `Mon 9 Nov`. Currency amounts
 * of 100 or more drop their cents; ratios show three significant digits.
 */
import type { Unit } from './catalog.js';
import { timeOf } from './days.js';
import type { Period } from './periods.js';

export const DEFAULT_LOCALE = 'en-US';
const MINUS = '\u2212';

function number(v: number, locale: string, options: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(locale, options).format(v).replace('-', MINUS);
}

function countDigits(v: number): Intl.NumberFormatOptions {
  const a = Math.abs(v);
  return a >= 100 || Number.isInteger(v) ? { maximumFractionDigits: 0 } : a >= 1 ? { maximumFractionDigits: 2 } : { maximumSignificantDigits: 3 };
}

/** A value in its unit, e.g. `$66,582`, `34,900 sessions`, `3.07 %`. */
export function formatValue(v: number, unit: Unit, locale = DEFAULT_LOCALE): string {
  switch (unit.kind) {
    case 'currency': {
      const big = Math.abs(v) >= 100;
      return number(v, locale, { style: 'currency', currency: unit.code, ...(big ? { maximumFractionDigits: 0, minimumFractionDigits: 0 } : {}) });
    }
    case 'count': {
      const n = number(v, locale, countDigits(v));
      return unit.noun ? `${n} ${unit.noun}` : n;
    }
    case 'ratio':
      return `${number(v * 100, locale, { maximumSignificantDigits: 3 })} %`;
    case 'percent':
      return `${number(v, locale, { maximumSignificantDigits: 3 })} %`;
  }
}

/** A signed difference in the value's unit, e.g. `−$5,462`, `+120 bookings`, `−0.42 pts` for ratios. */
export function formatDelta(v: number, unit: Unit, locale = DEFAULT_LOCALE): string {
  const magnitude = (x: number) =>
    unit.kind === 'ratio' || unit.kind === 'percent'
      // Three significant digits, but no deeper than 0.0001 pts: a floating-point residue reads as 0.
      ? `${number(unit.kind === 'ratio' ? x * 100 : x, locale, { maximumSignificantDigits: 3, maximumFractionDigits: 4, roundingPriority: 'lessPrecision' })} pts`
      : formatValue(x, unit, locale);
  const text = magnitude(Math.abs(v));
  return `${signOf(v, text === magnitude(0))}${text}`;
}

/** The sign of a change, none when it shows as zero (a residue of −0.001 reads `$0.00`, not `−$0.00`). */
const signOf = (v: number, showsAsZero: boolean) => (showsAsZero ? '' : v > 0 ? '+' : v < 0 ? MINUS : '');

/** A relative change, e.g. `−8.2 %`, `+0.46 %`. */
export function formatChange(relative: number, locale = DEFAULT_LOCALE): string {
  const pct = relative * 100;
  const digits = Math.abs(pct) < 1 ? 2 : 1;
  const shown = (x: number) => number(x, locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const text = shown(Math.abs(pct));
  return `${signOf(pct, text === shown(0))}${text} %`;
}

/** A share, e.g. `94 %`. */
export function formatShare(share: number, locale = DEFAULT_LOCALE): string {
  return `${number(share * 100, locale, { maximumFractionDigits: 0 })} %`;
}

function parts(day: string, locale: string): { weekday: string; day: string; month: string; year: string } {
  const out = { weekday: '', day: '', month: '', year: '' };
  for (const p of new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).formatToParts(new Date(timeOf(day)))) {
    if (p.type === 'weekday' || p.type === 'day' || p.type === 'month' || p.type === 'year') out[p.type] = p.value;
  }
  return out;
}

/** A day with its weekday, e.g. `Mon 9 Nov`. */
export function formatDay(day: string, locale = DEFAULT_LOCALE): string {
  const p = parts(day, locale);
  return `${p.weekday} ${p.day} ${p.month}`;
}

/** A period: `Mon 9 – Sun 15 Nov`, `Mon 26 Oct – Sun 1 Nov`, `Mon 9 Nov`, or `October 2026` for a whole month. */
export function formatPeriod(period: Period, locale = DEFAULT_LOCALE): string {
  if (period.kind === 'month') {
    return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(timeOf(period.from)));
  }
  if (period.from === period.to) return formatDay(period.from, locale);
  const a = parts(period.from, locale);
  const b = parts(period.to, locale);
  const start = a.month === b.month && a.year === b.year ? `${a.weekday} ${a.day}` : `${a.weekday} ${a.day} ${a.month}`;
  return `${start} – ${b.weekday} ${b.day} ${b.month}`;
}

/** "visits'", "basket's": a name as the owner of what follows. */
export function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}
