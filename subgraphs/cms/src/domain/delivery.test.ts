import { describe, expect, it } from '@jest/globals';
import { etagOf, localeSurrogateKey } from './cache-keys.js';
import { VersionStatus, type ContentVersion } from './content.js';
import { localizedDelivery, type LocaleVersion } from './delivery.js';
import type { SiteLocales } from './locale.js';
import type { ContentFields, Seo } from './seo.js';

const at = new Date('2026-01-02T03:04:05Z');
const GROUP = '11111111-1111-4111-8111-111111111111';
const site: SiteLocales & { siteKey: string } = {
  siteKey: 'demo',
  defaultLocale: 'en',
  locales: [
    { tag: 'en', fallback: null },
    { tag: 'de', fallback: 'en' },
    { tag: 'de-AT', fallback: 'de' },
    { tag: 'fr', fallback: null },
  ],
};

function row(locale: string, slug: string, title: string, fields: ContentFields = {}, seo: Seo = {}, groupId = GROUP): LocaleVersion {
  const version: ContentVersion = { version: 2, status: VersionStatus.PUBLISHED, title, fields, seo, createdAt: at, createdBy: 'ed', publishedAt: at };
  return { contentId: `${groupId.slice(0, 4)}-${locale}`, groupId, locale, slug, publishedAt: at, version };
}

const en = row('en', 'pricing', 'Pricing', { headline: 'Plans', description: 'Three plans.', bannerUrl: 'https://cdn/en.png', ctaText: 'Buy', ctaLink: '/buy' });
const de = row('de', 'preise', 'Preise', { headline: 'Tarife', description: '', ctaText: 'Kaufen' });
const deAt = row('de-AT', 'preise-at', 'Preise (AT)', { headline: null, ctaText: '  ' });
const fr = row('fr', 'prix', 'Prix', { headline: 'Offres' });

const deliver = (slug: string, requested: string, rows: LocaleVersion[]) => localizedDelivery(site, slug, requested, rows, 300)!;

describe('localizedDelivery: the locale and fields a request gets', () => {
  it('serves the requested locale with its own fields when it has them all, without falling back', () => {
    const out = deliver('pricing', 'en', [en, de]);
    expect(out.content).toMatchObject({ locale: 'en', requestedLocale: 'en', fellBack: false, slug: 'pricing', title: 'Pricing', contentId: en.contentId });
    expect(out.content.fields).toEqual({ headline: 'Plans', description: 'Three plans.', bannerUrl: 'https://cdn/en.png', ctaText: 'Buy', ctaLink: '/buy' });
  });

  // requested locale → rows published → served locale, where each field came from
  const matrix: [string, string, LocaleVersion[], string, Partial<Record<keyof ContentFields, string | null>>][] = [
    ['de-AT reads de-AT → de → en', 'de-AT', [en, de, deAt], 'de-AT', { headline: 'Tarife', description: 'Three plans.', ctaText: 'Kaufen', ctaLink: '/buy', bannerUrl: 'https://cdn/en.png' }],
    ['de-AT without de-AT published', 'de-AT', [en, de], 'de', { headline: 'Tarife', description: 'Three plans.', ctaText: 'Kaufen' }],
    ['de-AT with only en published', 'de-AT', [en], 'en', { headline: 'Plans', ctaText: 'Buy' }],
    ['de with de-AT published only: a fallback never goes down the chain', 'de', [en, deAt], 'en', { headline: 'Plans' }],
    ['fr has no fallback but the default', 'fr', [en, fr], 'fr', { headline: 'Offres', description: 'Three plans.', ctaText: 'Buy' }],
    ['fr unpublished falls back to the default', 'fr', [en, de], 'en', { headline: 'Plans' }],
  ];
  it.each(matrix)('%s', (_name, requested, rows, served, fields) => {
    const out = deliver(rows.find((r) => r.locale === served)!.slug, requested, rows);
    expect(out.content.locale).toBe(served);
    expect(out.content.requestedLocale).toBe(requested);
    expect(out.content.fields).toMatchObject(fields);
    expect(out.content.fellBack).toBe(true);
    // No field is an empty or blank string where a locale along the chain has text.
    for (const value of Object.values(out.content.fields)) expect(value === null || value.trim() !== '').toBe(true);
  });

  it('reaches the same content by any of its slugs, and serves the locale asked for', () => {
    const viaGerman = deliver('preise', 'en', [en, de]);
    const viaEnglish = deliver('pricing', 'en', [en, de]);
    expect(viaGerman.content).toEqual(viaEnglish.content);
    expect(viaGerman.content.slug).toBe('pricing');
    // Tagged with the slug asked for, so each URL's on-demand purge finds its own answer.
    expect(viaGerman.surrogateKeys[0]).toBe('svc-content-demo-preise');
  });

  it('reaches a content by its own slug even when the chain asked for does not hold its locale', () => {
    const out = deliver('prix', 'de', [fr]);
    expect(out.content).toMatchObject({ locale: 'fr', requestedLocale: 'de', fellBack: true, slug: 'prix' });
    expect(out.surrogateKeys).toContain(localeSurrogateKey('demo', GROUP, 'fr'));
  });

  it('prefers, among contents sharing a slug in different locales, the one nearest the locale asked for', () => {
    const other = '22222222-2222-4222-8222-222222222222';
    const germanGift = row('de', 'gift', 'Gift (Gift is German for poison)', {}, {}, other);
    const englishGift = row('en', 'gift', 'Gift cards');
    expect(deliver('gift', 'de', [germanGift, englishGift]).content.title).toBe('Gift (Gift is German for poison)');
    expect(deliver('gift', 'en', [germanGift, englishGift]).content.title).toBe('Gift cards');
    expect(deliver('gift', 'fr', [germanGift, englishGift]).content.title).toBe('Gift cards');
  });

  it('answers nothing when no locale of the slug is published', () => {
    expect(localizedDelivery(site, 'pricing', 'en', [], 300)).toBeUndefined();
    expect(localizedDelivery(site, 'pricing', 'en', [de], 300)).toBeUndefined();
  });

  it('falls back SEO within the locale first (its own title), then along the chain, and lists every published locale as hreflang', () => {
    const enSeo = row('en', 'pricing', 'Pricing', { description: 'Three plans.' }, { metaTitle: 'Pricing | Svc', ogImage: 'https://cdn/og.png' });
    const deNoSeo = row('de', 'preise', 'Preise', {});
    const out = deliver('preise', 'de', [enSeo, deNoSeo, fr]);
    expect(out.content.seo).toEqual({
      metaTitle: 'Preise',
      metaDescription: 'Three plans.',
      ogImage: 'https://cdn/og.png',
      alternates: [{ hreflang: 'en', slug: 'pricing' }, { hreflang: 'de', slug: 'preise' }, { hreflang: 'fr', slug: 'prix' }, { hreflang: 'x-default', slug: 'pricing' }],
    });
  });

  it('tags the answer with every locale it read, so that publishing another locale leaves it alone', () => {
    const keys = deliver('preise-at', 'de-AT', [en, de, deAt]).surrogateKeys;
    expect(keys).toEqual(['svc-content-demo-preise-at', 'svc-site-demo', ...['de-AT', 'de', 'en'].map((l) => localeSurrogateKey('demo', GROUP, l))]);
    expect(keys).not.toContain(localeSurrogateKey('demo', GROUP, 'fr'));
  });

  it('survives a stored fallback loop (sites refuse them, but a chain must still end)', () => {
    const looping = { ...site, locales: [{ tag: 'en', fallback: null }, { tag: 'de', fallback: 'de-AT' }, { tag: 'de-AT', fallback: 'de' }] };
    const out = localizedDelivery(looping, 'pricing', 'de', [en], 60)!;
    expect(out.content.locale).toBe('en');
  });

  it('keeps a stable member order for the ETag, and the ETag hashes the record', () => {
    const out = deliver('pricing', 'en', [en]);
    expect(Object.keys(out.content)).toEqual(['contentId', 'slug', 'title', 'status', 'publishedAt', 'version', 'fields', 'seo', 'locale', 'requestedLocale', 'fellBack']);
    expect(out.etag).toBe(etagOf(out.content));
    expect(out.content.publishedAt).toBe(at.toISOString());
    expect(out.maxAgeSeconds).toBe(300);
  });

  it('renders a preview as delivery does, uncached, with publishedAt null', () => {
    const draft = { ...de, version: { ...de.version, status: VersionStatus.DRAFT, version: 3 } };
    const expiresAt = new Date('2026-12-01T00:00:00Z');
    const out = localizedDelivery(site, 'preise', 'de', [de, en], 0, { draft, expiresAt })!;
    expect(out).toMatchObject({ maxAgeSeconds: 0, surrogateKeys: [], preview: { version: 3, expiresAt: expiresAt.toISOString() } });
    expect(out.content).toMatchObject({ status: 'DRAFT', publishedAt: null, version: 3, title: 'Preise', locale: 'de' });
    expect(out.content.fields.description).toBe('Three plans.');
    // Alternates are the published locales, the draft's own locale among them when it has a live version.
    expect(out.content.seo.alternates).toEqual([{ hreflang: 'en', slug: 'pricing' }, { hreflang: 'de', slug: 'preise' }, { hreflang: 'x-default', slug: 'pricing' }]);
  });
});
