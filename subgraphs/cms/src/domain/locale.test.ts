import { describe, expect, it } from '@jest/globals';
import { SvcError } from '@svc/kit';
import fc from 'fast-check';
import { canonicalTag, checkSiteLocales, fallbackChain, lookupLocale, parseAcceptLanguage, requestedLocale, type SiteLocales } from './locale.js';

const site: SiteLocales = {
  defaultLocale: 'en',
  locales: [
    { tag: 'en', fallback: null },
    { tag: 'de', fallback: 'en' },
    { tag: 'de-AT', fallback: 'de' },
    { tag: 'zh-Hant-TW', fallback: null },
  ],
};

function problems(input: Parameters<typeof checkSiteLocales>[0]): { pointer: string; detail: string }[] {
  try {
    checkSiteLocales(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    return (error as SvcError).extensions.errors as { pointer: string; detail: string }[];
  }
  throw new Error('expected the locales to be refused');
}

describe('canonicalTag', () => {
  it('canonicalises case and refuses what is no language tag', () => {
    expect(canonicalTag('de-at')).toBe('de-AT');
    expect(canonicalTag('ZH-hant-tw')).toBe('zh-Hant-TW');
    for (const bad of ['', '*', 'de_AT', 'de-', '-de', 'a'.repeat(40), 'de AT', 'en-US-x-twain;']) expect(canonicalTag(bad)).toBeUndefined();
  });
});

describe('checkSiteLocales', () => {
  it('accepts a site with chains and returns canonical tags', () => {
    expect(checkSiteLocales({ defaultLocale: 'EN', locales: [{ tag: 'en' }, { tag: 'de', fallback: 'en' }, { tag: 'de-at', fallback: 'DE' }] })).toEqual({
      defaultLocale: 'en',
      locales: [{ tag: 'en', fallback: null }, { tag: 'de', fallback: 'en' }, { tag: 'de-AT', fallback: 'de' }],
    });
  });

  it('names a loop once, with its path', () => {
    const found = problems({ defaultLocale: 'en', locales: [{ tag: 'en' }, { tag: 'de', fallback: 'de-AT' }, { tag: 'de-AT', fallback: 'de-CH' }, { tag: 'de-CH', fallback: 'de' }] });
    expect(found).toEqual([{ pointer: '/locales/1/fallback', detail: 'the fallbacks loop: de → de-AT → de-CH → de' }]);
  });

  it('names every other problem by its pointer', () => {
    const found = problems({ defaultLocale: 'fr', locales: [{ tag: 'en' }, { tag: 'en' }, { tag: 'de', fallback: 'it' }, { tag: 'x y' }, { tag: 'nl', fallback: 'nl' }] });
    expect(found.map((p) => p.pointer).sort()).toEqual(['/defaultLocale', '/locales/1/tag', '/locales/2/fallback', '/locales/3/tag', '/locales/4/fallback']);
    expect(problems({ defaultLocale: 'en', locales: [] })[0]!.pointer).toBe('/locales');
  });
});

describe('fallbackChain', () => {
  it('follows fallbacks and ends with the default', () => {
    expect(fallbackChain(site, 'de-AT')).toEqual(['de-AT', 'de', 'en']);
    expect(fallbackChain(site, 'zh-Hant-TW')).toEqual(['zh-Hant-TW', 'en']);
    expect(fallbackChain(site, 'en')).toEqual(['en']);
  });

  it('ends on a stored loop', () => {
    const looping: SiteLocales = { defaultLocale: 'en', locales: [{ tag: 'en', fallback: null }, { tag: 'a', fallback: 'b' }, { tag: 'b', fallback: 'a' }] };
    expect(fallbackChain(looping, 'a')).toEqual(['a', 'b', 'en']);
  });
});

describe('Accept-Language negotiation (RFC 9110 12.5.4, RFC 4647 lookup)', () => {
  it('orders ranges by weight, keeping the header order among equals, and drops q=0', () => {
    expect(parseAcceptLanguage('fr;q=0.5, de-AT, en;q=0.8, es;q=0, it').map((r) => r.range)).toEqual(['de-AT', 'it', 'en', 'fr']);
  });

  it('skips malformed ranges and weights instead of failing', () => {
    expect(parseAcceptLanguage('de;q=2, en;q=abc, ;q=1, x!y, fr;q=0.7, *;q=0.1, pt;Q=0.9').map((r) => r.range)).toEqual(['pt', 'fr', '*']);
    expect(parseAcceptLanguage(undefined)).toEqual([]);
    expect(parseAcceptLanguage('')).toEqual([]);
  });

  it('looks up by truncation, case-insensitively, dropping a trailing singleton; the wildcard matches nothing', () => {
    expect(lookupLocale(['de-AT-1996'], site)).toBe('de-AT');
    expect(lookupLocale(['DE-ch'], site)).toBe('de');
    expect(lookupLocale(['zh-Hant-TW-x-private'], site)).toBe('zh-Hant-TW');
    expect(lookupLocale(['zh-Hant'], site)).toBeUndefined();
    expect(lookupLocale(['*'], site)).toBeUndefined();
    expect(lookupLocale(['fr', 'de'], site)).toBe('de');
  });

  it('prefers ?locale= to Accept-Language, and answers the default when neither finds a locale', () => {
    expect(requestedLocale(site, { locale: 'de-at', acceptLanguage: 'en' })).toBe('de-AT');
    expect(requestedLocale(site, { acceptLanguage: 'fr-CA, fr;q=0.9, de-DE;q=0.8, en;q=0.5' })).toBe('de');
    expect(requestedLocale(site, { acceptLanguage: 'fr, *;q=0.5' })).toBe('en');
    expect(requestedLocale(site, { locale: 'fr' })).toBe('en');
    expect(requestedLocale(site, {})).toBe('en');
    expect(() => requestedLocale(site, { locale: 'not a tag' })).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }) as unknown as Error);
  });

  it('never throws and always answers one of the site locales, whatever the header holds', () => {
    const tags = new Set(site.locales.map((l) => l.tag));
    const piece = fc.oneof(
      fc.constantFrom('de', 'de-AT', 'EN', 'en-GB', '*', 'zh-Hant-TW', 'fr', 'x', '', ' ', ';', ',', '-', 'q=', ';q=0.3', ';q=1.000', ';q=0', ';q=1.5', ';level=1'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const header = parts.join('');
        expect(tags.has(requestedLocale(site, { acceptLanguage: header }))).toBe(true);
      }),
      { numRuns: 1000 },
    );
    expect(tags.has(requestedLocale(site, { acceptLanguage: 'de-AT,'.repeat(10_000) }))).toBe(true);
  });
});
