/**
 * Publication dates of crawled items, normalised to `YYYY-MM-DD`. The input is whatever text a
 * `publishedAt` selector yields, or the `datetime` attribute of a `<time>` element (callers pass
 * the attribute value). Recognised anywhere in the text, leftmost match first: year-first numbers
 * (`2026-11-21`, `2026/11/21`, `2026.11.21`, also `2026. 11. 21.`, with the same separator twice,
 * ISO 8601 with a time and offset such as `2026-11-21T23:30:00-05:00`), `2026年11月21日` and
 * `2026년 11월 21일`, English month names full or abbreviated (any case, optional dot, `Sept`
 * too) in `21 Nov 2026`, `21st of November, 2026`, `21-Nov-2026`, `Nov 21, 2026`, `November 21st
 * 2026` and `2026 Nov 21` orders (RFC 2822 `Sat, 21 Nov 2026 10:00:00 +0000` is the first of
 * these), and day/month/year numbers `21/11/2026`, `21.11.2026`, `21-11-2026`. The date is the
 * calendar date as written: a time zone or offset never shifts it, because the site's own date is
 * what readers saw. Numeric day/month order follows `dayFirst` (default true, so `01/02/2026` is 1
 * February; false reads it as 2 January) and is never guessed from the values: a date that is not
 * real in the configured order (`11/21/2026` with dayFirst) gives null, which exposes a wrong
 * setting instead of mixing orders within one site. Two-digit years (`21/11/26`, `Nov 21, '26`) are
 * refused because `26.11.21` is as likely year-first; so are relative dates ("yesterday"), dates
 * without a day (`2026-11`, `November 2026`), ISO week dates and non-English month names. Every
 * result is a real calendar date (no `2026-02-30`), year 1000–9999; anything else gives null.
 */

export interface PublishedDateOptions {
  /** Order of numeric `dd/mm/yyyy` dates: true (default) day first, false month first. */
  dayFirst?: boolean;
}

const MONTHS: Record<string, number> = {
  jan: 1, january: 1,
  feb: 2, february: 2,
  mar: 3, march: 3,
  apr: 4, april: 4,
  may: 5,
  jun: 6, june: 6,
  jul: 7, july: 7,
  aug: 8, august: 8,
  sep: 9, sept: 9, september: 9,
  oct: 10, october: 10,
  nov: 11, november: 11,
  dec: 12, december: 12,
};

/** Longest names first so `sept` wins over `sep`; a letter right after the name refuses the match. */
const MONTH = `(${Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|')})\\.?(?![a-z])`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?(?![a-z\\d])';
const YEAR = '(\\d{4})(?!\\d)';
const NO_DIGIT_BEFORE = '(?<!\\d)';
const NO_LETTER_BEFORE = '(?<![a-z])';

type Parts = (match: RegExpExecArray, dayFirst: boolean) => [year: string, month: string | number, day: string];

interface Form {
  pattern: RegExp;
  parts: Parts;
}

const form = (source: string, parts: Parts): Form => ({ pattern: new RegExp(source, 'giu'), parts });

const FORMS: Form[] = [
  // 2026-11-21, 2026/11/21, 2026.11.21, 2026. 11. 21., ISO 8601 with time and offset.
  form(`${NO_DIGIT_BEFORE}(\\d{4})([-/.])\\s?(\\d{1,2})\\2\\s?(\\d{1,2})(?!\\d)`, (m) => [m[1]!, m[3]!, m[4]!]),
  // 2026年11月21日, 2026년 11월 21일.
  form(`${NO_DIGIT_BEFORE}(\\d{4})\\s?[年년]\\s?(\\d{1,2})\\s?[月월]\\s?(\\d{1,2})\\s?[日일]`, (m) => [m[1]!, m[2]!, m[3]!]),
  // 21 Nov 2026, 21st of November, 2026, 21-Nov-2026, 21. November 2026, RFC 2822.
  form(`${NO_DIGIT_BEFORE}${DAY}[\\s.\\-/]*(?:of\\s+)?${MONTH}[\\s,.\\-/]*${YEAR}`, (m) => [m[3]!, MONTHS[m[2]!.toLowerCase()]!, m[1]!]),
  // Nov 21, 2026, November 21st 2026, Nov. 21 2026.
  form(`${NO_LETTER_BEFORE}${MONTH}[\\s.\\-/]*${DAY}[\\s,.\\-/]*${YEAR}`, (m) => [m[3]!, MONTHS[m[1]!.toLowerCase()]!, m[2]!]),
  // 2026 Nov 21, 2026-Nov-21.
  form(`${NO_DIGIT_BEFORE}(\\d{4})[\\s,.\\-/]+${MONTH}[\\s.\\-/]*${DAY}`, (m) => [m[1]!, MONTHS[m[2]!.toLowerCase()]!, m[3]!]),
  // 21/11/2026, 21.11.2026, 21-11-2026 (or month first when dayFirst is false).
  form(`${NO_DIGIT_BEFORE}(\\d{1,2})([-/.])(\\d{1,2})\\2${YEAR}`, (m, dayFirst) =>
    dayFirst ? [m[4]!, m[3]!, m[1]!] : [m[4]!, m[1]!, m[3]!],
  ),
];

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function toIsoDate(yearText: string, monthValue: string | number, dayText: string): string | null {
  const year = Number(yearText);
  const month = Number(monthValue);
  const day = Number(dayText);
  if (!Number.isInteger(year) || year < 1000 || year > 9999) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  if (!Number.isInteger(day) || day < 1 || day > daysIn(year, month)) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The publication date in `text` as `YYYY-MM-DD`, or null when no real date is found. The
 * leftmost date in the text wins; one that is not a real calendar date is skipped.
 */
export function normalizePublishedDate(text: string | null | undefined, options: PublishedDateOptions = {}): string | null {
  if (typeof text !== 'string') return null;
  const dayFirst = options.dayFirst ?? true;
  const input = text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  if (input === '') return null;

  let best: { index: number; date: string } | null = null;
  for (const { pattern, parts } of FORMS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(input); m !== null; m = pattern.exec(input)) {
      if (best !== null && m.index >= best.index) break;
      const date = toIsoDate(...parts(m, dayFirst));
      if (date !== null) {
        best = { index: m.index, date };
        break;
      }
      // Not a real date: look again from the next character, so overlapping candidates are seen.
      pattern.lastIndex = m.index + 1;
    }
  }
  return best?.date ?? null;
}
