import { etagOf, surrogateKeys } from './cache-keys.js';
import type { ContentState, ContentVersion } from './content.js';
import { resolveSeo, type ResolvedSeo } from './seo.js';

/** The content record of the delivery API: always the latest PUBLISHED version. */
export interface PublishedContent {
  contentId: string;
  slug: string;
  title: string;
  status: string;
  /** ISO 8601 UTC */
  publishedAt: string;
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
}

// Member order matters: the ETag hashes the JSON of this object.
export function publishedContent(content: ContentState, version: ContentVersion): PublishedContent {
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

export function deliveryOf(siteKey: string, slug: string, published: PublishedContent, maxAgeSeconds: number): Delivery {
  return { etag: etagOf(published), maxAgeSeconds, surrogateKeys: surrogateKeys(siteKey, slug), content: published };
}
