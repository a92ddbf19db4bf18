import { createHash } from 'node:crypto';
import { diffArrays } from 'diff';
import type { ItemDiff } from '../domain/crawl-item.js';
import { guessLanguage, type VolatileLanguage } from './page-language.js';
import { sentencesOf } from './sentences.js';
import { maskVolatile } from './volatile-parts.js';

/**
 * What changed in a page's main text from one run to the next (the text the knowledge sync
 * extracts, extract/main-text.ts): a fingerprint that ignores what changes without the page
 * changing, and a short diff of what was added and removed.
 *
 * Decisions:
 * - The text is compared as sentences (sentences.ts: Unicode sentence breaks, but not after
 *   "Dec.", "Mr.", "z.B." or "7."; a line break always ends one), each normalised: whitespace
 *   collapsed, lower case, and the parts that move without the page changing replaced by
 *   placeholders (volatile-parts.ts): dates, times and relative dates in the page's language
 *   ("Dec. 7, 2026", "7 Dec", "an hour ago", "just now", "yesterday", "vor 3 Stunden"; read by
 *   chrono-node), "© 2026"-style years, and counters of the page's audience ("1.2K views",
 *   "Views: 1,234", "Comments (12)", "Read by 1,234 people"; volatile-counters.ts says which
 *   numbers count and why prices do not). Ad slots and navigation are already gone: Readability
 *   keeps the article, not the page around it, and a job's volatileSelectors drop more (main-text.ts).
 * - The fingerprint is SHA-256 of the normalised sentences' words (placeholders and punctuation
 *   left out) joined by spaces: equal fingerprints, unchanged page.
 * - The diff (jsdiff's `diffArrays` over the normalised sentences) lists the
 *   sentences removed and added, at most DIFF_LIMITS.sentences each, each cut at
 *   DIFF_LIMITS.chars characters; when more changed, `more` says how many were left out. Pages
 *   whose sentences differ beyond DIFF_LIMITS.editLength are reported as rewritten (no sentence
 *   lists), so a diff never costs more than that bound.
 * - Linear time: see sentences.ts and volatile-parts.ts. The volatile rules read the first
 *   VOLATILE_TEXT_CHARS characters; past them only whitespace, case and punctuation are ignored.
 */

/** Sentences added and removed; `rewritten` when more than DIFF_LIMITS.editLength changed. */
export type TextDiff = ItemDiff;

export const DIFF_LIMITS = { sentences: 5, chars: 200, editLength: 400 } as const;

/** The volatile rules read this many characters of a text (the text stored for the next diff is as long). */
export const VOLATILE_TEXT_CHARS = 100_000;

/** A sentence as compared: lower case, whitespace collapsed, volatile parts replaced. */
export function normaliseSentence(sentence: string, language: VolatileLanguage = 'en'): string {
  return maskVolatile(sentence.replace(/\s+/g, ' ').trim(), language);
}

/**
 * What of a normalised sentence counts: its words and numbers, lower case, without placeholders
 * and punctuation. So where a date's full stop ended a sentence, or whether a line that is only a
 * date ("3 hours ago") stands alone or is joined to the next, does not matter.
 */
export function comparedWords(normal: string): string {
  return normal.replace(/<[a-z]+>/g, ' ').split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ');
}

/**
 * The sentences of a text with their compared words, those without any left out. Past the first
 * VOLATILE_TEXT_CHARS characters only whitespace, case and punctuation are ignored, so a huge page
 * costs the volatile rules no more than that many characters.
 */
function comparedSentences(text: string, language: VolatileLanguage): { sentence: string; words: string }[] {
  let read = 0;
  return sentencesOf(text, language)
    .map((sentence) => {
      read += sentence.length;
      const normal = read <= VOLATILE_TEXT_CHARS ? normaliseSentence(sentence, language) : sentence.toLowerCase();
      return { sentence, words: comparedWords(normal) };
    })
    .filter((s) => s.words);
}

/** The fingerprint of a main text: equal for texts that differ only in volatile parts, whitespace, case and punctuation. */
export function contentFingerprint(text: string, language: VolatileLanguage = guessLanguage(text)): string {
  return createHash('sha256').update(comparedSentences(text, language).map((s) => s.words).join(' ')).digest('base64url');
}

const cut = (sentence: string) => (sentence.length > DIFF_LIMITS.chars ? `${sentence.slice(0, DIFF_LIMITS.chars - 1)}…` : sentence);

/** What was added to and removed from `before` to make `after`, sentence by sentence (dates read in `language`, default the guess from `after`). */
export function textDiff(before: string, after: string, language: VolatileLanguage = guessLanguage(after)): TextDiff {
  // Diffed as the fingerprint compares them (each normalised once, not at every comparison),
  // sentences that are only volatile parts left out; listed as written.
  const oldCompared = comparedSentences(before, language);
  const nowCompared = comparedSentences(after, language);
  const old = oldCompared.map((s) => s.sentence);
  const now = nowCompared.map((s) => s.sentence);
  const parts = diffArrays(oldCompared.map((s) => s.words), nowCompared.map((s) => s.words), { maxEditLength: DIFF_LIMITS.editLength });
  if (!parts) return { added: [], removed: [], more: 0, rewritten: true };
  const added: string[] = [];
  const removed: string[] = [];
  let more = 0;
  let inOld = 0;
  let inNow = 0;
  for (const part of parts) {
    const count = part.value.length;
    if (!part.added && !part.removed) {
      inOld += count;
      inNow += count;
      continue;
    }
    const [into, from, at] = part.added ? [added, now, inNow] : [removed, old, inOld];
    for (const sentence of from.slice(at, at + count)) {
      if (into.length < DIFF_LIMITS.sentences) into.push(cut(sentence));
      else more++;
    }
    if (part.added) inNow += count;
    else inOld += count;
  }
  return { added, removed, more, rewritten: false };
}
