import { describe, expect, it } from '@jest/globals';
import { META_DESCRIPTION_MAX, resolveSeo } from './seo.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('resolveSeo', () => {
  it('falls back to the title, the description and the banner when nothing is explicit', () => {
    expect(resolveSeo('Welcome', { description: 'A short description.', bannerUrl: 'https://cdn.example.com/b.png' }, {})).toEqual({
      metaTitle: 'Welcome',
      metaDescription: 'A short description.',
      ogImage: 'https://cdn.example.com/b.png',
    });
  });

  it('lets explicit values win over every fallback', () => {
    const seo = resolveSeo(
      'Title',
      { description: 'Field description', bannerUrl: 'https://cdn.example.com/banner.png' },
      { metaTitle: 'Meta title', metaDescription: 'Meta description', ogImage: 'https://cdn.example.com/og.png' },
    );
    expect(seo).toEqual({ metaTitle: 'Meta title', metaDescription: 'Meta description', ogImage: 'https://cdn.example.com/og.png' });
  });

  it('treats whitespace-only and null explicit values as empty', () => {
    const seo = resolveSeo('Title', { description: 'Desc', bannerUrl: 'https://b' }, { metaTitle: '   ', metaDescription: '\n\t', ogImage: null });
    expect(seo).toEqual({ metaTitle: 'Title', metaDescription: 'Desc', ogImage: 'https://b' });
  });

  it('trims explicit values and fallbacks', () => {
    const seo = resolveSeo('Title', { description: '  Desc  ', bannerUrl: ' https://b ' }, { metaTitle: '  Meta  ' });
    expect(seo).toEqual({ metaTitle: 'Meta', metaDescription: 'Desc', ogImage: 'https://b' });
  });

  it('gives empty strings when neither explicit values nor fields exist (or are blank)', () => {
    expect(resolveSeo('Title', {}, {})).toEqual({ metaTitle: 'Title', metaDescription: '', ogImage: '' });
    expect(resolveSeo('Title', { description: '   ', bannerUrl: ' ' }, {})).toEqual({ metaTitle: 'Title', metaDescription: '', ogImage: '' });
  });

  it('keeps a description of exactly 160 characters as it is', () => {
    const text = 'x'.repeat(META_DESCRIPTION_MAX);
    expect(META_DESCRIPTION_MAX).toBe(160);
    expect(resolveSeo('T', { description: text }, {}).metaDescription).toBe(text);
  });

  it('clips a long description on a word boundary and adds an ellipsis', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '); // 269 characters
    const clipped = resolveSeo('T', { description: words }, {}).metaDescription;
    expect(clipped.length).toBeLessThanOrEqual(160);
    expect(clipped.endsWith('…')).toBe(true);
    const kept = clipped.slice(0, -1);
    // The kept text is a prefix of the original that ends at a whole word.
    expect(words.startsWith(kept)).toBe(true);
    expect(words[kept.length]).toBe(' ');
    expect(kept).toMatch(/word\d+$/);
    // And it is the longest such prefix that fits.
    expect(kept).toBe('word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12 word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23');
  });

  it('cuts inside a word when the only space is in the first half', () => {
    const text = `short ${'y'.repeat(300)}`;
    const clipped = resolveSeo('T', { description: text }, {}).metaDescription;
    expect(clipped).toBe(`${text.slice(0, 159)}…`);
    expect(clipped).toHaveLength(160);
  });

  it('does not end the kept text with trailing spaces before the ellipsis', () => {
    const text = `${'a'.repeat(100)} ${'b'.repeat(50)}      ${'c'.repeat(40)}`;
    const clipped = resolveSeo('T', { description: text }, {}).metaDescription;
    expect(clipped).toMatch(/[ab]…$/);
  });

  it('does not clip an explicit metaDescription', () => {
    const long = 'z '.repeat(150).trim();
    expect(resolveSeo('T', { description: 'short' }, { metaDescription: long }).metaDescription).toBe(long);
  });

  it('never splits an emoji (surrogate pair) when clipping text without spaces', () => {
    const text = '😀'.repeat(200); // 200 code points (400 UTF-16 units), no spaces
    const clipped = resolveSeo('T', { description: text }, {}).metaDescription;
    expect(clipped.endsWith('…')).toBe(true);
    expect(LONE_SURROGATE.test(clipped)).toBe(false);
  });
});
