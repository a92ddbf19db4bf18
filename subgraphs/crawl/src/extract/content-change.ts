import { createHash } from 'node:crypto';
import { diffArrays } from 'diff';
import type { ItemDiff } from '../domain/crawl-item.js';

/**
 * What changed in a page's main text from one run to the next (the text the knowledge sync
 * extracts, extract/main-text.ts): a fingerprint that ignores what changes without the page
 * changing, and a short diff of what was added and removed.
 *
 * Decisions:
 * - The text is compared as sentences (split after . ! ? and at line breaks), each
 *   normalised: whitespace collapsed, lower case, and dates, times, "© 2026"-style years and
 *   counters ("1,234 views", "12 comments", "3 hours ago") replaced by placeholders. So a footer's
 *   date, a view counter or "updated 5 minutes ago" does not make a page changed. Ad slots and
 *   navigation are already gone: Readability keeps the article, not the page around it.
 * - The fingerprint is SHA-256 of the normalised sentences joined by spaces: equal fingerprints,
 *   unchanged page.
 * - The diff (jsdiff's `diffArrays` over the normalised sentences) lists the
 *   sentences removed and added, at most DIFF_LIMITS.sentences each, each cut at
 *   DIFF_LIMITS.chars characters; when more changed, `more` says how many were left out. Pages
 *   whose sentences differ beyond DIFF_LIMITS.editLength are reported as rewritten (no sentence
 *   lists), so a diff never costs more than that bound.
 * - Every pattern here is linear: no nested quantifiers, bounded repetitions only.
 */

/** Sentences added and removed; `rewritten` when more than DIFF_LIMITS.editLength changed. */
export type TextDiff = ItemDiff;

export const DIFF_LIMITS = { sentences: 5, chars: 200, editLength: 400 } as const;

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const VOLATILE: readonly [RegExp, string][] = [
  [/\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?(?:\.\d{1,9})?(?:z|[+-]\d{2}:?\d{2})?)?\b/g, '<date>'],
  [/\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/g, '<date>'],
  [new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\.? (?:${MONTHS})\\.?,? \\d{4}\\b`, 'g'), '<date>'],
  [new RegExp(`\\b(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b`, 'g'), '<date>'],
  [/\b\d{1,2}:\d{2}(?::\d{2})?(?: ?[ap]\.?m\.?)?\b/g, '<time>'],
  [/(?:©|\(c\)|copyright) ?\d{4}(?: ?[-–] ?\d{4})?/g, '<year>'],
  [/\b\d[\d,.]{0,15} ?(?:views?|reads?|comments?|likes?|shares?|followers?|visitors?|reviews?|votes?|clicks?)\b/g, '<n>'],
  [/\b\d{1,4} ?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?) ago\b/g, '<ago>'],
];

/** Every volatile pattern in one expression (one pass per sentence); group n+1 is VOLATILE[n]. */
const ANY_VOLATILE = new RegExp(VOLATILE.map(([pattern]) => `(${pattern.source})`).join('|'), 'g');

/** A sentence as compared: lower case, whitespace collapsed, volatile parts replaced. */
export function normaliseSentence(sentence: string): string {
  return sentence
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(ANY_VOLATILE, (...match: unknown[]) => VOLATILE[match.slice(1, VOLATILE.length + 1).findIndex((g) => g !== undefined)]![1]);
}

/** The sentences of a text, in order, empty ones dropped. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/(?<=[.!?])\s+|\n+/)) {
    const sentence = piece.replace(/\s+/g, ' ').trim();
    if (sentence) out.push(sentence);
  }
  return out;
}

/** The fingerprint of a main text: equal for texts that differ only in volatile parts. */
export function contentFingerprint(text: string): string {
  // Joined by a space, so where whitespace split a sentence does not matter; a sentence that is
  // only volatile parts (a bare date line) carries nothing.
  const kept = sentencesOf(text).map(normaliseSentence).filter((normal) => /[\p{L}\p{N}]/u.test(normal.replace(/<[a-z]+>/g, '')));
  return createHash('sha256').update(kept.join(' ')).digest('base64url');
}

const cut = (sentence: string) => (sentence.length > DIFF_LIMITS.chars ? `${sentence.slice(0, DIFF_LIMITS.chars - 1)}…` : sentence);

/** What was added to and removed from `before` to make `after`, sentence by sentence. */
export function textDiff(before: string, after: string): TextDiff {
  const old = sentencesOf(before);
  const now = sentencesOf(after);
  // Diffed as normalised sentences (each normalised once, not at every comparison), listed as written.
  const parts = diffArrays(old.map(normaliseSentence), now.map(normaliseSentence), { maxEditLength: DIFF_LIMITS.editLength });
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
