import { etagOf, surrogateKeys } from './cache-keys.js';
import type { ContentVersion } from './content.js';
import { fallbackChain, type SiteLocales } from './locale.js';
import { resolveSeo, type ContentFields, type ResolvedSeo, type Seo } from './seo.js';

/** Another published locale of the same content (hreflang). */
export interface Alternate {
  /** A locale tag, or `x-default` for the site's default locale. */
  hreflang: string;
  slug: string;
}

/** The content record of the delivery API: the latest PUBLISHED version, or in a preview the draft it shows. */
export interface PublishedContent {
  contentId: string;
  slug: string;
  title: string;
  status: string;
  /** ISO 8601 UTC; null in a preview (a draft was never published). */
  publishedAt: string | null;
  version: number;
  fields: { headline: string | null; description: string | null; bannerUrl: string | null; ctaText: string | null; ctaLink: string | null };
  seo: ResolvedSeo & { alternates: Alternate[] };
  /** The locale served (its version, title and fields first). */
  locale: string;
  /** The locale the request asked for, after negotiation. */
  requestedLocale: string;
  /** True when the served locale is not the one asked for, or a field came from a fallback locale. */
  fellBack: boolean;
}

/** A delivered content with what HTTP caches need; cached as JSON in this shape. */
export interface Delivery {
  etag: string;
  /** Shared-cache lifetime in seconds (s-maxage). */
  maxAgeSeconds: number;
  surrogateKeys: string[];
  content: PublishedContent;
  /** Only in a preview: the version shown and when the link expires (ISO 8601 UTC). */
  preview?: { version: number; expiresAt: string };
}

/** One locale of a content with the version delivery reads (the live one; in a preview, the draft). */
export interface LocaleVersion {
  contentId: string;
  groupId: string;
  locale: string;
  slug: string;
  /** When the content went live, if the version has no time of its own. */
  publishedAt: Date | null;
  version: ContentVersion;
}

const FIELD_NAMES = ['headline', 'description', 'bannerUrl', 'ctaText', 'ctaLink'] as const satisfies readonly (keyof ContentFields)[];
const SEO_NAMES = ['metaTitle', 'metaDescription', 'ogImage'] as const satisfies readonly (keyof Seo)[];

const filled = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The content a request for `slug` in locale `requested` gets, from the published locales of
 * the contents that have the slug (`rows`): the first locale along the requested locale's
 * fallback chain, then the slug's own locale as a last resort; each field empty there is taken
 * from the next locale along the chain that has it (never an empty string where another locale
 * has text). Undefined when no row is published.
 */
export function localizedDelivery(
  site: SiteLocales & { siteKey: string },
  slug: string,
  requested: string,
  rows: readonly LocaleVersion[],
  maxAgeSeconds: number,
  preview?: { draft: LocaleVersion; expiresAt: Date },
): Delivery | undefined {
  // A preview shows its draft in place of its locale's live version; alternates stay the published locales.
  const published = rows;
  if (preview) rows = [preview.draft, ...rows.filter((r) => !(r.groupId === preview.draft.groupId && r.locale === preview.draft.locale))];
  const chain = fallbackChain(site, requested);
  const rank = (locale: string) => (chain.includes(locale) ? chain.indexOf(locale) : chain.length + (locale === site.defaultLocale ? 0 : 1));
  // The slug may name contents in several locales (unique per site and locale): the one nearest the request wins.
  const named = rows.filter((r) => r.slug === slug).sort((a, b) => rank(a.locale) - rank(b.locale) || a.locale.localeCompare(b.locale))[0];
  if (!named) return undefined;
  const group = rows.filter((r) => r.groupId === named.groupId);
  const byLocale = new Map(group.map((r) => [r.locale, r]));
  const read = chain.includes(named.locale) ? chain : [...chain, named.locale];
  const order = read.map((locale) => byLocale.get(locale)).filter((r): r is LocaleVersion => r !== undefined);
  const served = order[0]!;
  let fellBack = served.locale !== requested;
  const pick = (value: (row: LocaleVersion) => string | null | undefined): string | null => {
    for (const row of order) {
      const found = value(row);
      if (filled(found)) {
        if (row !== served) fellBack = true;
        return found;
      }
    }
    return null;
  };
  const title = pick((r) => r.version.title) ?? served.version.title;
  const fields = Object.fromEntries(FIELD_NAMES.map((name) => [name, pick((r) => r.version.fields[name])])) as PublishedContent['fields'];
  // Each locale's SEO falls back within the locale first (its own title, description, banner).
  const ownSeo = new Map(order.map((r) => [r, resolveSeo(r.version.title, r.version.fields, r.version.seo)]));
  const seo = Object.fromEntries(SEO_NAMES.map((name) => [name, pick((r) => ownSeo.get(r)![name]) ?? ''])) as ResolvedSeo;
  const live = new Map(published.filter((r) => r.groupId === named.groupId).map((r) => [r.locale, r]));
  const alternates: Alternate[] = site.locales.flatMap((l) => {
    const row = live.get(l.tag);
    return row ? [{ hreflang: l.tag, slug: row.slug }] : [];
  });
  const defaultRow = live.get(site.defaultLocale);
  if (defaultRow) alternates.push({ hreflang: 'x-default', slug: defaultRow.slug });
  // Member order matters: the ETag hashes the JSON of this object.
  const content: PublishedContent = {
    contentId: served.contentId,
    slug: served.slug,
    title,
    status: preview ? served.version.status : 'PUBLISHED',
    publishedAt: preview ? null : (served.version.publishedAt ?? served.publishedAt ?? new Date()).toISOString(),
    version: served.version.version,
    fields,
    seo: { ...seo, alternates },
    locale: served.locale,
    requestedLocale: requested,
    fellBack,
  };
  if (preview) {
    return { etag: etagOf(content), maxAgeSeconds: 0, surrogateKeys: [], content, preview: { version: preview.draft.version.version, expiresAt: preview.expiresAt.toISOString() } };
  }
  return { etag: etagOf(content), maxAgeSeconds, surrogateKeys: surrogateKeys(site.siteKey, slug, named.groupId, read), content };
}
