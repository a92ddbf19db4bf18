/**
 * Numbers, money, percentages, dates and durations for the browser's locale (Intl): every figure
 * the dashboard shows goes through here, so a person in Berlin reads "1.234,5" and one in
 * Chicago "1,234.5".
 */
const cache = new Map<string, Intl.NumberFormat>();
function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify(options);
  let format = cache.get(key);
  if (!format) cache.set(key, (format = new Intl.NumberFormat(undefined, options)));
  return format;
}

/** A plain figure: up to `decimals` decimals (default two, more for figures below 1), compact ("1.2M") from a million on. */
export function num(value: number | null | undefined, decimals?: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1e6) return numberFormat({ notation: 'compact', maximumFractionDigits: 2 }).format(value);
  const digits = decimals ?? (value !== 0 && Math.abs(value) < 1 ? 4 : 2);
  return numberFormat({ maximumFractionDigits: Math.min(20, Math.max(0, digits)) }).format(value);
}

/** Decimals that tell apart ticks `increment` apart (0.005 → 3). */
export const decimalsFor = (increment: number) => (increment > 0 && increment < 1 ? Math.ceil(-Math.log10(increment)) : 0);

/** US dollars (the gateway's currency); sub-cent amounts keep four decimals. */
export function usd(value: number): string {
  const small = Math.abs(value) > 0 && Math.abs(value) < 1;
  return numberFormat({ style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: small ? 4 : 2 }).format(value);
}

const MINUS = '\u2212';

/**
 * A figure in the unit an expected impact states it in: an ISO currency code (`USD` → `$2,968`),
 * `ratio` (a change of a ratio, in points: 0.004 → `0.4 pts`), `%` or `percent`, or a noun
 * (`sessions` → `1,200 sessions`); a plain figure without one. `signed` writes `+` and `−`.
 */
export function inUnit(value: number, unit: string | null | undefined, signed = false): string {
  if (!Number.isFinite(value)) return '–';
  const sign = signed ? (value > 0 ? '+' : value < 0 ? MINUS : '') : value < 0 ? MINUS : '';
  const v = Math.abs(value);
  if (unit && /^[A-Z]{3}$/.test(unit)) {
    const whole = v >= 100 ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {};
    try {
      return sign + numberFormat({ style: 'currency', currency: unit, ...whole }).format(v);
    } catch {
      // not a currency Intl knows: the figure and the code
    }
  }
  if (unit === 'ratio') return `${sign}${num(v * 100)} pts`;
  if (unit === '%' || unit === 'percent') return `${sign}${num(v)} %`;
  return `${sign}${num(v)}${unit ? ` ${unit}` : ''}`;
}

/** A share given as a fraction (0.42 → "42 %" in the locale's way). */
export function percentOf(fraction: number): string {
  return numberFormat({ style: 'percent', maximumFractionDigits: 1 }).format(fraction);
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A moment: date and time. Empty for none. */
export function when(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : dateTimeFormat.format(date);
}

/** A day. */
export function day(at: number | string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? String(at) : dateFormat.format(date);
}

/** How long something took: milliseconds below a second, seconds above. */
export function duration(ms: number): string {
  return ms < 1000 ? numberFormat({ style: 'unit', unit: 'millisecond', unitDisplay: 'short' }).format(ms) : numberFormat({ style: 'unit', unit: 'second', unitDisplay: 'short', maximumFractionDigits: 1 }).format(ms / 1000);
}

/** A name that is an identifier (`claim_rate`, `llm.cost_usd`, `adSpend`), not a word: a capital would misspell it. */
const IDENTIFIER = /[_.:0-9]|[a-z][A-Z]/;

/**
 * `text` as a sentence or headline opens: its first letter a capital when its first word is a
 * plain word ("revenue fell 12.8 %" → "Revenue fell 12.8 %"). The rest, and a first word that
 * is an identifier, stay as the report wrote them.
 */
export function sentenceCase(text: string): string {
  const word = /^[^\s,;:!?()]+/.exec(text)?.[0]?.replace(/\.$/, '') ?? '';
  if (!/^\p{Ll}/u.test(word) || IDENTIFIER.test(word)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
