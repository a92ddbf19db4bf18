import { SvcError, type Cache, type Logger } from '@svc/kit';
import { deliveryKey } from '../domain/cache-keys.js';
import { deliveryOf, publishedContent, type Delivery } from '../domain/delivery.js';
import type { ContentStore } from '../store/content-store.js';
import type { SiteStore } from '../store/site-store.js';
import { requireSiteKey, siteOrFail } from './site-key.js';

export interface ContentDeliveryDeps {
  sites: SiteStore;
  contents: ContentStore;
  cache: Cache;
  /** Delivery cache lifetime (Redis TTL and s-maxage). */
  cacheTtlSeconds: number;
  log: Logger;
}

/** The public delivery API: the live version of a content by slug, through the delivery cache. */
export function createContentDelivery(deps: ContentDeliveryDeps) {
  const { sites, contents, cache, log } = deps;
  return {
    async deliver(givenSiteKey: string | undefined, slug: string): Promise<Delivery> {
      const siteKey = requireSiteKey(givenSiteKey);
      const key = deliveryKey(siteKey, slug);
      // A broken cache slows delivery down; it never stops it.
      const cached = await cache.get(key).catch((error: unknown) => {
        log.warn({ err: error }, 'delivery cache read failed; serving from the database');
        return undefined;
      });
      if (cached) return JSON.parse(cached) as Delivery;
      const site = await siteOrFail(sites, siteKey);
      const live = await contents.published(site, slug);
      if (!live) {
        throw new SvcError('NOT_FOUND', `No published content with slug ${JSON.stringify(slug)} on site ${JSON.stringify(siteKey)}`, {
          slug: 'content-not-found',
          title: 'Content Not Found',
        });
      }
      const delivery = deliveryOf(siteKey, slug, publishedContent(live.content, live.version), deps.cacheTtlSeconds);
      await cache.set(key, JSON.stringify(delivery), deps.cacheTtlSeconds).catch((error: unknown) => log.warn({ err: error }, 'delivery cache write failed'));
      return delivery;
    },
  };
}

export type ContentDelivery = ReturnType<typeof createContentDelivery>;
