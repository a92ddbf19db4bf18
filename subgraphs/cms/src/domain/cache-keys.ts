import { createHash } from 'node:crypto';

/** Redis key of a delivered content: the slug asked for, in the locale asked for (after negotiation). */
export const deliveryKey = (siteKey: string, slug: string, locale: string) => `cms:delivery:${siteKey}:${slug}:${locale}`;

/**
 * Surrogate keys an edge cache tags a delivered content with: the slug asked for (on-demand
 * purges name it), the site, and one per locale the answer read (its fallback chain), so that
 * publishing one locale purges that locale and the answers that fell back to it, nothing else.
 */
export function surrogateKeys(siteKey: string, slug: string, groupId?: string, localesRead: readonly string[] = []): string[] {
  return [contentSurrogateKey(siteKey, slug), `svc-site-${siteKey}`, ...(groupId ? localesRead.map((locale) => localeSurrogateKey(siteKey, groupId, locale)) : [])];
}

export const contentSurrogateKey = (siteKey: string, slug: string) => `svc-content-${siteKey}-${slug}`;

/** One locale of one content (all its translations share `groupId`); tags are case-sensitive, the locale keeps its case. */
export const localeSurrogateKey = (siteKey: string, groupId: string, locale: string) => `svc-locale-${siteKey}-${groupId}-${locale}`;

/** A strong ETag over the delivered representation. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}
