import { describe, expect, it } from '@jest/globals';
import { formatSelector, isScopeSelf, parseSelector, specSuffix } from './selector.js';

describe('parseSelector', () => {
  it('extracts text by default', () => {
    expect(parseSelector('h3.title > a')).toEqual({ css: 'h3.title > a', extract: { kind: 'text' } });
  });

  it('accepts an explicit ::text suffix', () => {
    expect(parseSelector('span.date::text')).toEqual({ css: 'span.date', extract: { kind: 'text' } });
    expect(parseSelector('  span.date ::text  ')).toEqual({ css: 'span.date', extract: { kind: 'text' } });
  });

  it('extracts an attribute with ::attr(name), lower-casing the name', () => {
    expect(parseSelector('h3 > a::attr(href)')).toEqual({ css: 'h3 > a', extract: { kind: 'attr', name: 'href' } });
    expect(parseSelector('time::attr( DateTime )')).toEqual({ css: 'time', extract: { kind: 'attr', name: 'datetime' } });
    expect(parseSelector('a::attr(data-id)')).toEqual({ css: 'a', extract: { kind: 'attr', name: 'data-id' } });
  });

  it('leaves an empty CSS part for selectors on the row itself', () => {
    expect(parseSelector('::attr(href)')).toEqual({ css: '', extract: { kind: 'attr', name: 'href' } });
    expect(parseSelector('')).toEqual({ css: '', extract: { kind: 'text' } });
    expect(parseSelector(':scope::text')).toEqual({ css: ':scope', extract: { kind: 'text' } });
  });

  it('keeps pseudo-classes and attribute selectors of the CSS part intact', () => {
    expect(parseSelector('li:nth-of-type(2) a[href^="/n/"]::attr(href)')).toEqual({
      css: 'li:nth-of-type(2) a[href^="/n/"]',
      extract: { kind: 'attr', name: 'href' },
    });
  });

  it.each([['a::attr(href)::text'], ['a::text::attr(href)'], ['a::attr()'], ['a::attr(href) b'], ['a::text b']])(
    'refuses a misplaced or malformed suffix: %s',
    (spec) => {
      expect(() => parseSelector(spec)).toThrow(/::attr\(name\) or ::text/);
    },
  );
});

describe('specSuffix and formatSelector', () => {
  it('returns the suffix a spec was written with', () => {
    expect(specSuffix('a')).toBe('');
    expect(specSuffix('a::text')).toBe('::text');
    expect(specSuffix('a::attr(HREF)')).toBe('::attr(href)');
  });

  it('rebuilds a spec that parses back to the same parts', () => {
    const spec = formatSelector('h3.headline > a', specSuffix(':scope > h3.title > a::attr(href)'));
    expect(spec).toBe('h3.headline > a::attr(href)');
    expect(parseSelector(spec)).toEqual({ css: 'h3.headline > a', extract: { kind: 'attr', name: 'href' } });
  });
});

describe('isScopeSelf', () => {
  it('is true for the empty CSS part and :scope only', () => {
    expect(isScopeSelf('')).toBe(true);
    expect(isScopeSelf(':scope')).toBe(true);
    expect(isScopeSelf(':scope > a')).toBe(false);
    expect(isScopeSelf('a')).toBe(false);
  });
});
