import * as chrono from 'chrono-node';
import { RE2JS } from 're2js';
import type { VolatileLanguage } from './page-language.js';
import { maskCounters } from './volatile-counters.js';

/**
 * The parts of a sentence that move without the page changing, replaced by placeholders so that
 * two runs of the same page compare equal (content-change.ts).
 *
 * - Dates, times and relative dates are found by chrono-node (maintained, no dependencies, no
 *   install script), in the page's language (page-language.ts): "Dec. 7, 2026", "7 Dec",
 *   "Monday, 7 December 2026", "2026-12-07T10:15Z", "07.12.2026", "10:15 pm", "an hour ago",
 *   "yesterday", "today at 10:15", "vor 3 Stunden", "gestern", "Montag, 7. Dezember 2026",
 *   "il y a 3 heures", "hier", "lundi 7 décembre 2026", "ayer", "hoy a las 10:15",
 *   "lunes, 7 de diciembre de 2026"... Each becomes `<date>`, and dates next to each other
 *   ("Monday, 7 December · 10:15") one `<date>`.
 * - What chrono does not read: "just now" and its kin in each language, Spanish "hace 3 horas",
 *   and "© 2025"-style years (RELATIVE_EXTRA, `<date>` and `<year>`).
 * - Counters by volatile-counters.ts (`<n>`), before the dates, so that "1.234 Aufrufe" is not
 *   read as a date.
 *
 * Linear time: counters and the extra rules run on RE2 (re2js); chrono runs on windows of at most
 * CHRONO_WINDOW characters cut at spaces (some of its expressions cost more than linear time in a
 * long run of dates), so a sentence costs at most a constant per character however it is made.
 */

/** chrono reads a sentence in pieces of at most this many characters, cut at a space. */
export const CHRONO_WINDOW = 300;

/** How many times chrono reads a window at most (see maskDates). */
const DATE_PASSES = 3;

/** Fixed, so that what is read does not depend on the day of the run. */
const REFERENCE = new Date(Date.UTC(2026, 0, 1, 12));

const PARSERS: Record<VolatileLanguage, chrono.Chrono> = {
  en: chrono.en.casual,
  de: chrono.de.casual,
  fr: chrono.fr.casual,
  es: chrono.es.casual,
  pt: chrono.pt.casual,
  it: chrono.it.casual,
  nl: chrono.nl.casual,
};

const UNITS_ES = String.raw`(?:segundos?|minutos?|mins?|horas?|d[ií]as?|semanas?|mes(?:es)?|años?)`;
const FEW = String.raw`(?:\d{1,4}|un|una|unos|unas|algunos|algunas|pocos|pocas)`;
/** Relative times chrono does not read, in every language the rules read. */
const RELATIVE_EXTRA = RE2JS.compile(
  [
    String.raw`\bjust now\b|\bmoments? ago\b|\ba few (?:seconds|moments) ago\b`,
    String.raw`\bgerade eben\b|\beben gerade\b|\bsoeben\b|\bvor wenigen (?:sekunden|augenblicken|minuten)\b|\bvor kurzem\b`,
    String.raw`à l'instant|à l’instant|\bil y a (?:quelques|un) (?:instants?|secondes|moments?)\b`,
    String.raw`\bjusto ahora\b|\bahora mismo\b|\bhace (?:un momento|unos (?:segundos|momentos|instantes)|instantes|poco)\b|\bhace ${FEW} ${UNITS_ES}\b`,
    String.raw`\bagora mesmo\b|\bh[áa] (?:pouco|instantes|alguns segundos)\b|\bh[áa] (?:\d{1,4}|um|uma) (?:segundos?|minutos?|horas?|dias?|semanas?|m[eê]s(?:es)?|anos?)\b`,
    String.raw`\bproprio ora\b|\bpoco fa\b`,
    String.raw`\bzojuist\b|\bzo-even\b|\benkele seconden geleden\b`,
  ].join('|'),
  RE2JS.CASE_INSENSITIVE,
);
/** A word every RELATIVE_EXTRA phrase holds (fixed words: linear). */
const RELATIVE_HINT = /just|moment|few|gerade|eben|soeben|wenigen|kurzem|instant|ahora|hace|agora|h[áa] |proprio|poco|zojuist|zo-even|second/iu;
const H_TIME_HINT = /\dh\d/iu;
const COPYRIGHT_HINT = /©|\(c\)|copyright/iu;
/** "10h15", as French and Portuguese pages write times. */
const H_TIME = RE2JS.compile(String.raw`\b\d{1,2}h\d{2}\b`, RE2JS.CASE_INSENSITIVE);
const COPYRIGHT_YEAR = RE2JS.compile(String.raw`(?:©|\(c\)|\bcopyright) ?\d{4}(?: ?[-–] ?\d{4})?`, RE2JS.CASE_INSENSITIVE);
/** Dates side by side, or joined by "at", "um", "à", "a las"...: one date. */
const DATE_RUN = RE2JS.compile(String.raw`<date>(?:[\s,·|/–—-]{0,8}(?:(?:at|um|à|a las|a la|às|om|alle|ore|le|el|am|on|de|del|the)\s)?<date>)+`);
/** The "Uhr" or "h" after a time ("10.15 Uhr"), which chrono leaves out (fixed length: linear). */
const HOUR_WORD = /<date> ?(?:uhr|h)(?![\p{L}\p{N}])/gu;

/** Words that join a number to a date without being one ("von 14", "a 3", "at 10"). */
const CONNECTORS = new Set(['at', 'on', 'to', 'from', 'by', 'in', 'von', 'bis', 'am', 'um', 'ab', 'de', 'del', 'a', 'à', 'le', 'la', 'el', 'en', 'em', 'di', 'da', 'alle', 'van', 'op', 'om', 'tot']);

/**
 * Whether something chrono read is a date that moves by itself. Not: a bare number behind a
 * preposition ("innerhalb von 14 Tagen" gives "von 14"; "a 3"), which chrono takes for a day or an
 * hour; and a duration ahead in days or longer ("returns within 30 days", "delivery in 2 days",
 * "2 days later"), which is what the page promises, not when it was seen. A countdown in hours and
 * minutes ("order within 5 hrs 12 mins") does move, and dates ahead ("tomorrow", "Dec 9") do too.
 */
function isVolatileDate(found: chrono.ParsedResult): boolean {
  const tags = found.tags();
  if (tags.has('result/relativeDate') && !tags.has('result/relativeDateAndTime') && found.start.date() > REFERENCE) return false;
  if (/\d[:./h-]\d|\d{4}/u.test(found.text)) return true;
  return found.text.toLowerCase().split(/[^\p{L}]+/u).some((word) => word.length > 1 && !CONNECTORS.has(word)) || !/\d/u.test(found.text);
}

const LETTER = /\p{L}/u;
/**
 * A word's first letter p, h or a followed by a letter outside ASCII ("pêcheurs", "hôtel",
 * "höher"): chrono's expressions see only the first letter, as p.m., hours or a.m. ("13:00 p" then
 * spoils the whole time), so the copy it reads has an "x" there ("año" keeps its "a").
 */
const ASCII_PREFIX = /(?<![\p{L}\p{N}])[pha](?=(?![\x00-\x7f])\p{L})/giu;

/**
 * Where a match from `start` to `end` in `text` ends without cutting a word: chrono's expressions
 * know only ASCII letters, so "00:00 pêcheurs" reads as "00:00 p" (p.m.) and "1995 hölzern" as
 * "1995 h". A match that ends inside a word ends at the space before it instead.
 */
function wordEnd(text: string, start: number, end: number): number {
  if (!LETTER.test(text[end] ?? '') || !LETTER.test(text[end - 1] ?? '')) return end;
  return text.lastIndexOf(' ', end - 1) >= start ? text.lastIndexOf(' ', end - 1) : start;
}

/** `text` cut into pieces of at most CHRONO_WINDOW characters, at spaces where there is one. */
export function windowsOf(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (text.length - at > CHRONO_WINDOW) {
    const space = text.lastIndexOf(' ', at + CHRONO_WINDOW);
    const end = space > at ? space + 1 : at + CHRONO_WINDOW;
    out.push(text.slice(at, end));
    at = end;
  }
  out.push(text.slice(at));
  return out;
}

/**
 * Spellings chrono does not know, each rewritten to one it does of the same length (so what it
 * finds sits where it was): Spanish "sept" for September, as Spanish newspapers write it.
 */
const ALIASES: Partial<Record<VolatileLanguage, [RegExp, string][]>> = {
  es: [[/\bsept\b/giu, 'sep.']],
};

/** Whether `text` ("1 Jan.") is a day of a named month, as a whole (not a weekday: "3 Monday" is not). */
function dayOfMonth(text: string, language: VolatileLanguage): boolean {
  const [found] = PARSERS[language].parse(text, REFERENCE);
  return !!found && found.text.length === text.length && found.start.isCertain('month') && found.start.isCertain('day');
}

const DAY_BEFORE = /(\d{1,2})\s+$/u;
const MONTH_AFTER = /^\s+(\p{L}{3,9}\.?)/u;

/**
 * A date's edges widened over a day number before it or a month word after it that make a date
 * with its own first or last word: in "1 Jan. 10 Jan" chrono reads "Jan. 10" and leaves "1" and
 * "Jan", which belong to the dates on either side of it (two dates that share a word).
 */
function sharedEdges(read: string, from: number, start: number, end: number, language: VolatileLanguage): { start: number; after: number } {
  const text = read.slice(start, end);
  const day = DAY_BEFORE.exec(read.slice(from, start));
  const firstWord = /^\p{L}{3,9}\.?/u.exec(text)?.[0];
  if (day && firstWord && dayOfMonth(`${day[1]} ${firstWord}`, language)) start -= day[0].length;
  const month = MONTH_AFTER.exec(read.slice(end, end + 16));
  const lastDay = /(\d{1,2})$/u.exec(text)?.[1];
  if (month && lastDay && dayOfMonth(`${lastDay} ${month[1]}`, language)) end += month[0].length;
  return { start, after: end };
}

/** One reading of a window by chrono: each date it finds replaced by `<date>`. */
function maskDatesOnce(window: string, language: VolatileLanguage): string {
  const read = (ALIASES[language] ?? [])
    .reduce((t, [pattern, alias]) => t.replace(pattern, alias), window)
    .replace(ASCII_PREFIX, (letter: string, offset: number, all: string) => (letter.toLowerCase() === 'a' && all[offset + 1]?.toLowerCase() === 'ñ' ? letter : 'x'));
  let masked = '';
  let at = 0;
  for (const found of PARSERS[language].parse(read, REFERENCE)) {
    if (found.index < at || !isVolatileDate(found)) continue;
    let end = wordEnd(read, found.index, found.index + found.text.length);
    if (end <= found.index) continue;
    const { start, after } = sharedEdges(read, at, found.index, end, language);
    end = after;
    masked += `${window.slice(at, start)}<date>`;
    at = end;
  }
  return masked + window.slice(at);
}

/**
 * `text` with its dates replaced. chrono keeps the longer of two overlapping dates and drops the
 * other ("1 Jan. 10 Jan 1995" gives only "10 Jan 1995"), so a window is read again while a
 * reading finds more (at most DATE_PASSES times).
 */
function maskDates(text: string, language: VolatileLanguage): string {
  return windowsOf(text)
    .map((window) => {
      let masked = window;
      for (let pass = 0; pass < DATE_PASSES; pass++) {
        const again = maskDatesOnce(masked, language);
        if (again === masked) break;
        masked = again;
      }
      return masked;
    })
    .join('');
}

/** A sentence with its dates, times, relative dates, counters and copyright years replaced by placeholders. */
export function maskVolatile(sentence: string, language: VolatileLanguage): string {
  // Each RE2 rule runs only on sentences that hold what it needs (a cheap, linear look first):
  // RE2 in JavaScript costs about 0.1 ms a sentence, four times what parsing the page costs.
  let text = COPYRIGHT_HINT.test(sentence) ? COPYRIGHT_YEAR.matcher(sentence).replaceAll('<year>') : sentence;
  text = maskCounters(text);
  if (RELATIVE_HINT.test(text)) text = RELATIVE_EXTRA.matcher(text).replaceAll('<date>');
  if (H_TIME_HINT.test(text)) text = H_TIME.matcher(text).replaceAll('<date>');
  text = maskDates(text, language).toLowerCase().replace(HOUR_WORD, '<date>');
  return text.indexOf('<date>') !== text.lastIndexOf('<date>') ? DATE_RUN.matcher(text).replaceAll('<date>') : text;
}
