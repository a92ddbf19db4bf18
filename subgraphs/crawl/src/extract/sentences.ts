/**
 * The sentences of a page's main text, as change tracking compares them (content-change.ts).
 *
 * Sentence breaks are Unicode's (UAX #29, `Intl.Segmenter`, the ICU rules built into Node), which
 * already keep "e.g. the" and "No. 5 is" together and split "。" and "!Wie". ICU breaks after any
 * full stop followed by a space and a capital or a digit, though, and pages write "Posted Dec. 7,
 * 2026", "Mon. Dec 7", "Mr. Smith" and "am 7. Dezember": so a break is taken back when the piece
 * before it ends in a known abbreviation (ABBREVIATIONS: months, weekdays, titles and the like in
 * the languages the volatile rules read), in an initial or dotted abbreviation ("J.", "U.S.",
 * "z.B."), or in a one- or two-digit ordinal ("7."), or when the piece after it starts with a digit
 * or a lower-case letter. A line break always ends a sentence. Joining too much only makes a diff
 * coarser; cutting a date in two makes it unrecognisable, so doubtful breaks are joined.
 *
 * Linear: one segmenter pass, then a constant amount of work per break (no regular expression
 * runs over a whole sentence).
 */

/** Words written with a final full stop that does not end a sentence (lower case, without the stop). */
const ABBREVIATIONS = new Set(
  [
    // Months (en, de, fr, es, pt, it, nl); not "ago" (Spanish and Italian August), which ends "3 days ago.".
    'jan janv ene gen feb febr fév févr fev mar mär märz mrt apr avr abr mai mag may mei jun juin giu jul juil lug aug sep sept set oct okt out ott nov dec dez déc dic',
    // Weekdays.
    'mon tue tues wed thu thur thurs fri sat sun mo di mi do fr sa so lun mer jeu ven sam dim mié jue vie sáb dom seg ter qua qui sex sáb',
    // Titles, references and common abbreviations.
    'mr mrs ms dr prof st mt no nr nº núm num vol p pp ca approx vs etc inc ltd co corp jr sr sra srta dña hr hrn frau mme mlle art abs bzw usw ggf evtl inkl zzgl vgl tel fig abb s pág cap ed eds min max ref dept est',
  ].join(' ').split(' '),
);

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let found = segmenters.get(locale);
  if (!found) {
    found = new Intl.Segmenter(locale, { granularity: 'sentence' });
    segmenters.set(locale, found);
  }
  return found;
}

/** The last whitespace-separated word of `piece` (trailing whitespace ignored). */
function lastWord(piece: string): string {
  const trimmed = piece.trimEnd();
  return trimmed.slice(Math.max(trimmed.lastIndexOf(' '), trimmed.lastIndexOf('\u00a0'), trimmed.lastIndexOf('\t')) + 1);
}

/** Whether the full stop ending `piece` belongs to its last word rather than ending the sentence. */
function endsInAbbreviation(piece: string): boolean {
  const word = lastWord(piece).replace(/^[("'“‘«¿¡]+/u, '');
  if (!word.endsWith('.')) return false;
  const bare = word.slice(0, -1);
  if (ABBREVIATIONS.has(bare.toLowerCase())) return true;
  // An initial or dotted abbreviation: single letters each followed by a stop ("J.", "U.S.", "z.B.", "e.g.").
  if (bare.split('.').every((part) => part.length === 1 && /\p{L}/u.test(part))) return true;
  // A day or ordinal number ("am 7. Dezember", "der 3. Platz").
  return /^\d{1,2}$/u.test(bare);
}

/** The sentences of a text, in order, whitespace collapsed, empty ones dropped. */
export function sentencesOf(text: string, locale = 'en'): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/u)) {
    // The pieces of the sentence being built, joined once it ends: only the last piece is looked
    // at (it holds the stop), and a string grown piece by piece is never compared, which would
    // flatten it at every step and make a long run of joins quadratic.
    let current: string[] = [];
    for (const { segment } of segmenter(locale).segment(line)) {
      const last = current.at(-1);
      if (last !== undefined && !endsInAbbreviation(last) && !/^[\p{Nd}\p{Ll}]/u.test(segment)) {
        out.push(current.join(''));
        current = [];
      }
      current.push(segment);
    }
    out.push(current.join(''));
  }
  return out.map((sentence) => sentence.replace(/\s+/gu, ' ').trim()).filter(Boolean);
}
