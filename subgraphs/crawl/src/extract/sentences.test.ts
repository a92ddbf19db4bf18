import { describe, expect, it } from '@jest/globals';
import { growthRatio } from '../../test/growth-ratio.js';
import { sentencesOf } from './sentences.js';

describe('sentences', () => {
  it('splits after end punctuation and at line breaks', () => {
    expect(sentencesOf('One. Two!  Three?\nFour\n\nfive   six')).toEqual(['One.', 'Two!', 'Three?', 'Four', 'five six']);
    expect(sentencesOf('今日は晴れです。明日は雨です。', 'ja')).toEqual(['今日は晴れです。', '明日は雨です。']);
  });

  it('does not cut after an abbreviation, an initial, a day ordinal, or before a digit or a lower-case word', () => {
    expect(sentencesOf('Posted Dec. 7, 2026. Teams get five seats.')).toEqual(['Posted Dec. 7, 2026.', 'Teams get five seats.']);
    expect(sentencesOf('Mon. Dec 7 at 10:15. See No. 5, e.g. the blue one. Mr. Smith said so.')).toEqual(['Mon. Dec 7 at 10:15.', 'See No. 5, e.g. the blue one.', 'Mr. Smith said so.']);
    expect(sentencesOf('Am 7. Dezember 2026 z.B. hier. Es gibt u.a. Kaffee.', 'de')).toEqual(['Am 7. Dezember 2026 z.B. hier.', 'Es gibt u.a. Kaffee.']);
    expect(sentencesOf('Le 7 déc. 2026 à Paris. J. Dupont était là.', 'fr')).toEqual(['Le 7 déc. 2026 à Paris.', 'J. Dupont était là.']);
    expect(sentencesOf('Posted 3 days ago. The harbour opens.')).toEqual(['Posted 3 days ago.', 'The harbour opens.']);
  });

  it('never joins across a line break', () => {
    expect(sentencesOf('Posted Dec.\n7 people came.')).toEqual(['Posted Dec.', '7 people came.']);
  });
});

describe('sentences on hostile text', () => {
  // Worse than linear would show as a time ratio near 64 for 8 times the text, linear near 8 (bound 32: room for a
  // loaded machine). Both texts are long: below about 200,000 characters the time per character is lower
  // (strings and arrays still fit the young generation), which reads as growth where there is none.
  it.each([['abbreviations', 'Dec. '], ['initials', 'J. '], ['ordinals', '7. '], ['stops', 'a. '], ['one long word', 'a']])('splits a long run of %s in linear time', (_name, unit) => {
    expect(growthRatio((text) => sentencesOf(text), unit.repeat(200_000 / unit.length), unit.repeat(1_600_000 / unit.length), 3)).toBeLessThan(32);
  }, 60_000);
});
