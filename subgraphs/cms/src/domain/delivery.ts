import { etagOf, surrogateKeys } from './cache-keys.js';
import type { ContentState, ContentVersion } from './content.js';
import { resolveSeo, type ResolvedSeo } from './seo.js';

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
  seo: ResolvedSeo;
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

// Member order matters: the ETag hashes the JSON of this object.
export function publishedContent(content: Pick<ContentState, 'id' | 'slug' | 'publishedAt'>, version: ContentVersion): PublishedContent {
  return {
    contentId: content.id,
    slug: content.slug,
    title: version.title,
    status: 'PUBLISHED',
    publishedAt: (version.publishedAt ?? content.publishedAt ?? new Date()).toISOString(),
    version: version.version,
    fields: {
      headline: version.fields.headline ?? null,
      description: version.fields.description ?? null,
      bannerUrl: version.fields.bannerUrl ?? null,
      ctaText: version.fields.ctaText ?? null,
      ctaLink: version.fields.ctaLink ?? null,
    },
    seo: resolveSeo(version.title, version.fields, version.seo),
  };
}

/**
 * A draft as delivery would render it (the same fields and SEO fallbacks), for a preview link:
 * never cached anywhere, so no lifetime and no surrogate keys.
 */
export function previewDelivery(content: Pick<ContentState, 'id' | 'slug' | 'publishedAt'>, version: ContentVersion, expiresAt: Date): Delivery {
  const rendered: PublishedContent = {
    ...publishedContent(content, version),
    status: version.status,
    publishedAt: null,
  };
  return { etag: etagOf(rendered), maxAgeSeconds: 0, surrogateKeys: [], content: rendered, preview: { version: version.version, expiresAt: expiresAt.toISOString() } };
}

export function deliveryOf(siteKey: string, slug: string, published: PublishedContent, maxAgeSeconds: number): Delivery {
  return { etag: etagOf(published), maxAgeSeconds, surrogateKeys: surrogateKeys(siteKey, slug), content: published };
}
