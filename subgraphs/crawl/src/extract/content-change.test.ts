import { describe, expect, it } from '@jest/globals';
import { DIFF_LIMITS, contentFingerprint, normaliseSentence, textDiff } from './content-change.js';

const ARTICLE = 'Pro plan costs 39 EUR a month. Teams get five seats. Support answers within a day.';

describe('content fingerprints and diffs', () => {
  it('ignores whitespace, case, dates, times, years, counters and "ago" in the fingerprint', () => {
    const before = `${ARTICLE} Updated 28 Nov 2026 at 10:15. 1,234 views. © 2025 Example Ltd. Posted 3 hours ago.`;
    const after = `${ARTICLE.toUpperCase().replace(/ /g, '   ')} Updated 29 November 2026 at 11:20 pm. 1,301 views. © 2026 Example Ltd. Posted 5 hours ago.`;
    expect(contentFingerprint(after)).toBe(contentFingerprint(before));
    expect(contentFingerprint('Released on 2026-11-28T10:00:00Z. ' + ARTICLE)).toBe(contentFingerprint('Released on 2026-11-29. ' + ARTICLE));
    expect(normaliseSentence('Seen 12 comments, 3,400 views, on 12/11/2026')).toBe('seen <n>, <n>, on <date>');
  });

  it('changes the fingerprint when a sentence says something else', () => {
    expect(contentFingerprint(ARTICLE.replace('39 EUR', '49 EUR'))).not.toBe(contentFingerprint(ARTICLE));
    expect(contentFingerprint(`${ARTICLE} A free trial lasts 14 days.`)).not.toBe(contentFingerprint(ARTICLE));
  });

  it('lists the sentences removed and added, and none for volatile differences', () => {
    const diff = textDiff(`${ARTICLE} Updated 28 Nov 2026.`, `${ARTICLE.replace('39 EUR', '49 EUR')} Updated 30 Nov 2026. A free trial lasts 14 days.`);
    expect(diff).toEqual({ added: ['Pro plan costs 49 EUR a month.', 'A free trial lasts 14 days.'], removed: ['Pro plan costs 39 EUR a month.'], more: 0, rewritten: false });
  });

  it('keeps a diff short: a few sentences, each cut, the rest counted; a rewrite past the bound is said to be one', () => {
    const many = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word} sentence number ${i} ${'x'.repeat(300)}.`).join(' ');
    const diff = textDiff(many('Old', 8), many('New', 8));
    expect(diff.added).toHaveLength(DIFF_LIMITS.sentences);
    expect(diff.removed).toHaveLength(DIFF_LIMITS.sentences);
    expect(diff.added.every((s) => s.length <= DIFF_LIMITS.chars)).toBe(true);
    expect(diff.more).toBe(6);
    expect(textDiff(many('Old', DIFF_LIMITS.editLength + 10), many('New', DIFF_LIMITS.editLength + 10))).toMatchObject({ rewritten: true, added: [], removed: [] });
  });
});

describe('dates and counters as sites spell them', () => {
  const same = (before: string, after: string) => expect(contentFingerprint(`${ARTICLE} ${after}`)).toBe(contentFingerprint(`${ARTICLE} ${before}`));

  it('does not cut a sentence after an abbreviation, so "Dec. 7, 2026" is read as a date (sentences.test.ts has the splitting)', () => {
    same('Posted Dec. 7, 2026.', 'Posted Dec. 8, 2026.');
    expect(textDiff(`${ARTICLE} Posted Dec. 7, 2026.`, `${ARTICLE} Posted Dec. 8, 2026.`)).toEqual({ added: [], removed: [], more: 0, rewritten: false });
  });

  it.each([
    ['Posted an hour ago.', 'Posted 2 hours ago.'],
    ['Updated a minute ago.', 'Updated 5 minutes ago.'],
    ['Posted just now.', 'Posted 3 minutes ago.'],
    ['Posted yesterday.', 'Posted 2 days ago.'],
    ['Updated today at 10:15.', 'Updated yesterday at 10:15.'],
    ['Monday, 7 December 2026.', 'Tuesday, 8 December 2026.'],
    ['Published 7 Dec.', 'Published 8 Dec.'],
    ['Published Dec 7.', 'Published Dec 8.'],
  ])('reads %j → %j as the same page (dates and times)', (before, after) => same(before, after));

  it.each([
    ['1.2K views.', '1.3K views.'],
    ['Views: 1,234.', 'Views: 1,301.'],
    ['Comments (12).', 'Comments (13).'],
    ['Read by 1,234 people.', 'Read by 1,301 people.'],
    ['1 comment.', '2 comments.'],
    ['No comments yet.', '3 comments yet.'],
  ])('reads %j → %j as the same page (counters)', (before, after) => same(before, after));

  it('still sees a changed price, a changed headline and a changed quantity', () => {
    expect(contentFingerprint(`${ARTICLE} Now €24.99.`)).not.toBe(contentFingerprint(`${ARTICLE} Now €19.99.`));
    expect(contentFingerprint(`Harbour reopens after storm. ${ARTICLE}`)).not.toBe(contentFingerprint(`Harbour closes after storm. ${ARTICLE}`));
    expect(contentFingerprint(`${ARTICLE} The factory employs 1,300 people.`)).not.toBe(contentFingerprint(`${ARTICLE} The factory employs 1,234 people.`));
  });
});
