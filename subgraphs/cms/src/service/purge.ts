import { parseInput, SvcError, type Cache, type Logger, type Principal, type PurgeChannel } from '@svc/kit';
import { purgeRequestSchema } from '../contract.js';
import { contentSurrogateKey, deliveryKey, localeSurrogateKey } from '../domain/cache-keys.js';
import { fallbackChain } from '../domain/locale.js';
import type { Site } from '../domain/site.js';
import type { ContentStore } from '../store/content-store.js';
import type { LayerResult, PurgeReport } from '../domain/purge.js';
import type { SiteStore } from '../store/site-store.js';
import { requireAuthor } from './access.js';
import type { EdgePurger } from './edge-purger.js';
import { siteOrFail } from './site-key.js';

export interface CachePurgeDeps {
  sites: SiteStore;
  contents: Pick<ContentStore, 'translations' | 'slugsOfSite'>;
  cache: Cache;
  /** Where purges are announced to processes keeping deliveries in memory (the REST bridge). */
  announcements?: PurgeChannel;
  edge: EdgePurger;
  log: Logger;
}

/** Purging one content from the delivery cache and every edge cache: on demand, and after each publish. */
export function createCachePurge(deps: CachePurgeDeps) {
  const { sites, contents, cache, announcements, edge, log } = deps;
  const tagsOf = (site: Site) => site.locales.map((l) => l.tag);

  /**
   * Deletes `keys` from the delivery cache (`target` names them in the report), then announces
   * `tags` to the bridges and purges them at every edge. Each layer's result, and whether the
   * delivery cache was unreachable (a 503 rather than a 502).
   */
  async function purgeLayers(keys: readonly string[], target: string, tags: string[]): Promise<{ layers: LayerResult[]; cacheDown: boolean }> {
    let cacheDown = false;
    const started = performance.now();
    let first: LayerResult;
    try {
      let removed = 0;
      for (let i = 0; i < keys.length; i += 500) removed += await cache.del(...keys.slice(i, i + 500));
      first = { layer: cache.kind, target, ok: true, detail: removed ? `${removed} cached entr${removed === 1 ? 'y' : 'ies'} deleted` : 'nothing cached', durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (!(error instanceof SvcError && error.code === 'UNAVAILABLE')) log.error({ err: error }, 'delivery cache purge failed');
      cacheDown = error instanceof SvcError && error.code === 'UNAVAILABLE';
      first = { layer: cache.kind, target, ok: false, detail: `failed: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started) };
    }
    // Redis first, then the bridge's memory and the edges: a refetch after their purge must not find the old entry.
    // With Redis down the bridges' subscriptions are down too and they keep nothing: no announcement to make.
    if (!cacheDown) await announcements?.publish(tags);
    return { layers: [first, ...(await edge.purge(tags))], cacheDown };
  }

  async function automatic(keys: readonly string[], target: string, tags: string[], context: Record<string, unknown>): Promise<void> {
    const { layers } = await purgeLayers(keys, target, tags);
    const failed = layers.filter((l) => !l.ok);
    if (failed.length) log.warn({ ...context, failed }, 'automatic purge did not reach every cache');
  }

  return {
    /**
     * After one locale of a content was published, unpublished or restored: the answers that
     * read that locale (asked for it, or fell back to it along a chain, or reached it by its own
     * slug), nothing else. When the content's set of published locales changed (a locale went
     * live or was taken down), every answer of that content instead, in every locale: each
     * lists the published locales in `seo.alternates`. Every answer of a content carries the
     * tag of each locale it read, all of them the site's, so the tags of all the site's locales
     * of that content reach every answer of it and no other content's. A layer it cannot reach
     * is logged, and the change stands.
     */
    async afterChange(siteKey: string, groupId: string, locale: string, publishedLocalesChanged: boolean): Promise<void> {
      const site = await sites.site(siteKey);
      if (!site) return;
      const translations = await contents.translations(groupId);
      if (publishedLocalesChanged) {
        const keys = translations.flatMap((t) => tagsOf(site).map((requested) => deliveryKey(siteKey, t.slug, requested)));
        const tags = tagsOf(site).map((read) => localeSurrogateKey(siteKey, groupId, read));
        await automatic(keys, `${deliveryKey(siteKey, '<slug>', '*')} of content group ${groupId}`, tags, { siteKey, groupId, locale });
        return;
      }
      const readers = tagsOf(site).filter((requested) => fallbackChain(site, requested).includes(locale));
      const keys = translations.flatMap((t) => tagsOf(site).filter((requested) => readers.includes(requested) || t.locale === locale).map((requested) => deliveryKey(siteKey, t.slug, requested)));
      await automatic(keys, `${deliveryKey(siteKey, '<slug>', '<locale>')} reading ${locale}`, [localeSurrogateKey(siteKey, groupId, locale)], { siteKey, groupId, locale });
    },

    /** After a site's locales changed: every answer of the site (in the locales it had and has). */
    async afterSiteChange(before: Site, after: Site): Promise<void> {
      const tags = [...new Set([...tagsOf(before), ...tagsOf(after)])];
      const keys = (await contents.slugsOfSite(after)).flatMap((c) => tags.map((requested) => deliveryKey(after.siteKey, c.slug, requested)));
      await automatic(keys, deliveryKey(after.siteKey, '*', '*'), [`svc-site-${after.siteKey}`], { siteKey: after.siteKey });
    },

    /** The purgeCache mutation (editor or admin of the site): 503 when the delivery cache is unreachable, 502 when an edge refused. */
    async purgeCache(principal: Principal | undefined, siteKey: string, slug: string): Promise<PurgeReport> {
      parseInput(purgeRequestSchema, { siteKey, contentSlug: slug }, '', { describe: true });
      const author = requireAuthor(principal, siteKey);
      const site = await siteOrFail(sites, siteKey);
      const keys = tagsOf(site).map((requested) => deliveryKey(siteKey, slug, requested));
      const { layers, cacheDown } = await purgeLayers(keys, deliveryKey(siteKey, slug, '*'), [contentSurrogateKey(siteKey, slug)]);
      const report: PurgeReport = { siteKey, contentSlug: slug, surrogateKey: contentSurrogateKey(siteKey, slug), purgedAt: new Date().toISOString(), layers };
      log.info({ siteKey, slug, layers: layers.map((l) => `${l.target}:${l.ok ? 'ok' : 'failed'}`), actor: author.subject }, 'cache purged');
      const failed = layers.filter((l) => !l.ok);
      if (failed.length) {
        // The cache being down is a dependency outage: retry later. An edge refusing is an upstream error.
        throw new SvcError(cacheDown ? 'UNAVAILABLE' : 'UPSTREAM_ERROR', `Purge incomplete: ${failed.map((l) => `${l.target} (${l.detail})`).join('; ')}`, {
          slug: 'purge-incomplete',
          title: 'Purge Incomplete',
          details: { layers, siteKey, contentSlug: slug },
          ...(cacheDown ? { retryAfter: 5 } : {}),
        });
      }
      return report;
    },
  };
}

export type CachePurge = ReturnType<typeof createCachePurge>;
