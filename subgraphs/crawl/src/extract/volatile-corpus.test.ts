import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { contentFingerprint, textDiff } from './content-change.js';
import { VOLATILE_LANGUAGES, type VolatileLanguage } from './page-language.js';

// The volatile rules against spellings copied from news sites and shops (test/fixtures/volatile-corpus.json):
// each `same` pair must read as the same page, each `changed` pair as a changed one.

interface Case { lang: VolatileLanguage; seen: string; before: string; after: string }
const corpus = JSON.parse(readFileSync(new URL('../../../test/fixtures/volatile-corpus.json', import.meta.url), 'utf8')) as { body: Record<VolatileLanguage, string>; same: Case[]; changed: Case[] };

/** The spelling on a line of its own (a byline, a counter bar) and inside a paragraph. */
const pages = (c: Case, spelling: string) => [`${corpus.body[c.lang]}\n${spelling}`, `${spelling}. ${corpus.body[c.lang]}`];

describe('volatile rules against real page spellings', () => {
  it('covers every language the rules read, with pairs that must stay the same and pairs that must change', () => {
    for (const lang of VOLATILE_LANGUAGES) {
      expect(corpus.same.filter((c) => c.lang === lang).length).toBeGreaterThanOrEqual(2);
      expect(corpus.changed.filter((c) => c.lang === lang).length).toBeGreaterThanOrEqual(1);
    }
  });

  it.each(corpus.same.map((c) => [c.lang, c.seen, c.before, c.after, c] as const))('%s %s: %j → %j reads as unchanged', (_l, _s, _b, _a, c) => {
    const [beforeLine, beforeInline] = pages(c, c.before);
    const [afterLine, afterInline] = pages(c, c.after);
    expect(contentFingerprint(afterLine!, c.lang)).toBe(contentFingerprint(beforeLine!, c.lang));
    expect(contentFingerprint(afterInline!, c.lang)).toBe(contentFingerprint(beforeInline!, c.lang));
  });

  it.each(corpus.changed.map((c) => [c.lang, c.seen, c.before, c.after, c] as const))('%s %s: %j → %j reads as changed', (_l, _s, _b, _a, c) => {
    const [beforeLine] = pages(c, c.before);
    const [afterLine] = pages(c, c.after);
    expect(contentFingerprint(afterLine!, c.lang)).not.toBe(contentFingerprint(beforeLine!, c.lang));
    expect(textDiff(beforeLine!, afterLine!, c.lang)).toEqual({ added: [c.after], removed: [c.before], more: 0, rewritten: false });
  });
});
