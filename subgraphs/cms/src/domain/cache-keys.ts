import { createHash } from 'node:crypto';

/** Redis key of a delivered content. */
export const deliveryKey = (siteKey: string, slug: string) => `cms:delivery:${siteKey}:${slug}`;

/** Surrogate keys an edge cache tags a delivered content with: per content and per site. */
export function surrogateKeys(siteKey: string, slug: string): string[] {
  return [contentSurrogateKey(siteKey, slug), `svc-site-${siteKey}`];
}

export const contentSurrogateKey = (siteKey: string, slug: string) => `svc-content-${siteKey}-${slug}`;

/** A strong ETag over the delivered representation. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}
