import { SvcError, type Cache, type Logger } from '@svc/kit';
import { deliveryKey } from '../domain/cache-keys.js';
import { localizedDelivery, type Delivery } from '../domain/delivery.js';
import { requestedLocale } from '../domain/locale.js';
import type { Site } from '../domain/site.js';
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

/** What a delivery request asks for besides the slug: `?locale=`, or the reader's Accept-Language. */
export interface LocaleRequest {
  locale?: string | null;
  acceptLanguage?: string | null;
}

/**
 * A site's locales are read before the delivery cache (the cache key holds the negotiated
 * locale), so they are kept this long in each process; this process forgets them at once when
 * they change here, another process within this time.
 */
export const SITE_LOCALES_TTL_MS = 5000;

/** The public delivery API: the live version of a content by slug and locale, through the delivery cache. */
export function createContentDelivery(deps: ContentDeliveryDeps) {
  const { sites, contents, cache, log } = deps;
  const known = new Map<string, { site: Site; until: number }>();

  async function siteOf(siteKey: string): Promise<Site> {
    const kept = known.get(siteKey);
    if (kept && kept.until > Date.now()) return kept.site;
    const site = await siteOrFail(sites, siteKey);
    known.set(siteKey, { site, until: Date.now() + SITE_LOCALES_TTL_MS });
    return site;
  }

  return {
    async deliver(givenSiteKey: string | undefined, slug: string, request: LocaleRequest = {}): Promise<Delivery> {
      const siteKey = requireSiteKey(givenSiteKey);
      const site = await siteOf(siteKey);
      const requested = requestedLocale(site, request);
      const key = deliveryKey(siteKey, slug, requested);
      // A broken cache slows delivery down; it never stops it.
      const cached = await cache.get(key).catch((error: unknown) => {
        log.warn({ err: error }, 'delivery cache read failed; serving from the database');
        return undefined;
      });
      if (cached) return JSON.parse(cached) as Delivery;
      const delivery = localizedDelivery(site, slug, requested, await contents.publishedLocales(site, slug), deps.cacheTtlSeconds);
      if (!delivery) {
        throw new SvcError('NOT_FOUND', `No published content with slug ${JSON.stringify(slug)} on site ${JSON.stringify(siteKey)}`, {
          slug: 'content-not-found',
          title: 'Content Not Found',
        });
      }
      await cache.set(key, JSON.stringify(delivery), deps.cacheTtlSeconds).catch((error: unknown) => log.warn({ err: error }, 'delivery cache write failed'));
      return delivery;
    },

    /** Drops this process's copy of a site's locales (after they changed). */
    forgetSite(siteKey: string): void {
      known.delete(siteKey);
    },
  };
}

export type ContentDelivery = ReturnType<typeof createContentDelivery>;
