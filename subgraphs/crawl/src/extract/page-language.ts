/**
 * The language change tracking reads a page's dates in (volatile-parts.ts): the page's declared
 * language (`<html lang>`, else `Content-Language` in a meta tag) when it is one the rules read,
 * else a guess from the text's commonest words, else English. Dates are read in one language per
 * page on purpose: read in every language at once, "4.5 out of 5" holds a Portuguese date ("5
 * out", 5 October) and "il y a 3 heures" a Spanish time ("a 3").
 */

/** The languages whose dates, times and relative dates the volatile rules read. */
export const VOLATILE_LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl'] as const;
export type VolatileLanguage = (typeof VOLATILE_LANGUAGES)[number];

/** The supported language of a BCP 47 tag ("de-AT" → "de"), or undefined. */
export function volatileLanguageOf(tag: string | null | undefined): VolatileLanguage | undefined {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/u)[0];
  return (VOLATILE_LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as VolatileLanguage) : undefined;
}

/** Words frequent in running text of each language and rare in the others. */
const COMMON_WORDS: Record<VolatileLanguage, readonly string[]> = {
  en: ['the', 'and', 'of', 'to', 'is', 'with', 'for', 'that', 'this', 'are'],
  de: ['der', 'die', 'und', 'das', 'ist', 'nicht', 'mit', 'sich', 'auf', 'ein', 'eine', 'für'],
  fr: ['le', 'les', 'et', 'des', 'est', 'une', 'dans', 'pour', 'que', 'du', 'au', 'sur'],
  es: ['el', 'los', 'las', 'y', 'del', 'es', 'una', 'por', 'con', 'para', 'que', 'se'],
  pt: ['o', 'os', 'e', 'do', 'da', 'não', 'uma', 'com', 'para', 'que', 'em', 'dos'],
  it: ['il', 'gli', 'e', 'della', 'di', 'non', 'una', 'con', 'per', 'che', 'è', 'sono'],
  nl: ['de', 'het', 'en', 'van', 'een', 'is', 'niet', 'met', 'voor', 'dat', 'op', 'zijn'],
};
const WORD_LANGUAGES = new Map<string, VolatileLanguage[]>();
for (const language of VOLATILE_LANGUAGES) {
  for (const word of COMMON_WORDS[language]) WORD_LANGUAGES.set(word, [...(WORD_LANGUAGES.get(word) ?? []), language]);
}

/** How much text the guess reads. */
const GUESS_CHARS = 5_000;

/** The language of a text by its common words (its first GUESS_CHARS characters); English when unsure. */
export function guessLanguage(text: string): VolatileLanguage {
  const score = new Map<VolatileLanguage, number>();
  for (const word of text.slice(0, GUESS_CHARS).toLowerCase().split(/[^\p{L}]+/u)) {
    for (const language of WORD_LANGUAGES.get(word) ?? []) score.set(language, (score.get(language) ?? 0) + 1);
  }
  let best: VolatileLanguage = 'en';
  let bestScore = 2;
  for (const [language, n] of score) {
    if (n > bestScore) [best, bestScore] = [language, n];
  }
  return best;
}

/** The language a page's dates are read in: its declared one when supported, else the guess from its text. */
export function pageLanguage(declared: string | null | undefined, text: string): VolatileLanguage {
  return volatileLanguageOf(declared) ?? guessLanguage(text);
}
