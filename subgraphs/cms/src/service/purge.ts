import { parseInput, SvcError, type Cache, type Logger, type Principal, type PurgeChannel } from '@svc/kit';
import { purgeRequestSchema } from '../contract.js';
import { contentSurrogateKey, deliveryKey } from '../domain/cache-keys.js';
import type { LayerResult, PurgeReport } from '../domain/purge.js';
import type { SiteStore } from '../store/site-store.js';
import { requireAuthor } from './access.js';
import type { EdgePurger } from './edge-purger.js';
import { siteOrFail } from './site-key.js';

export interface CachePurgeDeps {
  sites: SiteStore;
  cache: Cache;
  /** Where purges are announced to processes keeping deliveries in memory (the REST bridge). */
  announcements?: PurgeChannel;
  edge: EdgePurger;
  log: Logger;
}

/** Purging one content from the delivery cache and every edge cache: on demand, and after each publish. */
export function createCachePurge(deps: CachePurgeDeps) {
  const { sites, cache, announcements, edge, log } = deps;

  /** Each layer's result, and whether the delivery cache was unreachable (a 503 rather than a 502). */
  async function purgeLayers(siteKey: string, slug: string): Promise<{ layers: LayerResult[]; cacheDown: boolean }> {
    let cacheDown = false;
    const started = performance.now();
    let first: LayerResult;
    try {
      const removed = await cache.del(deliveryKey(siteKey, slug));
      first = { layer: cache.kind, target: deliveryKey(siteKey, slug), ok: true, detail: removed ? 'cached entry deleted' : 'nothing cached', durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (!(error instanceof SvcError && error.code === 'UNAVAILABLE')) log.error({ err: error }, 'delivery cache purge failed');
      cacheDown = error instanceof SvcError && error.code === 'UNAVAILABLE';
      first = { layer: cache.kind, target: deliveryKey(siteKey, slug), ok: false, detail: `failed: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started) };
    }
    // Redis first, then the bridge's memory and the edges: a refetch after their purge must not find the old entry.
    const key = contentSurrogateKey(siteKey, slug);
    // With Redis down the bridges' subscriptions are down too and they keep nothing: no announcement to make.
    if (!cacheDown) await announcements?.publish([key]);
    return { layers: [first, ...(await edge.purge([key]))], cacheDown };
  }

  return {
    /** After a publish or unpublish: a layer it cannot reach is logged, and the change stands. */
    async afterChange(siteKey: string, slug: string): Promise<void> {
      const { layers } = await purgeLayers(siteKey, slug);
      const failed = layers.filter((l) => !l.ok);
      if (failed.length) log.warn({ siteKey, slug, failed }, 'automatic purge after publish did not reach every cache');
    },

    /** The purgeCache mutation (editor or admin of the site): 503 when the delivery cache is unreachable, 502 when an edge refused. */
    async purgeCache(principal: Principal | undefined, siteKey: string, slug: string): Promise<PurgeReport> {
      parseInput(purgeRequestSchema, { siteKey, contentSlug: slug }, '', { describe: true });
      const author = requireAuthor(principal, siteKey);
      await siteOrFail(sites, siteKey);
      const { layers, cacheDown } = await purgeLayers(siteKey, slug);
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
