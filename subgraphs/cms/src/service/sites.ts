import { canUseSite, requireRole, SvcError, validationError, type Principal } from '@svc/kit';
import { checkSiteLocales } from '../domain/locale.js';
import type { Site } from '../domain/site.js';
import type { ContentStore } from '../store/content-store.js';
import { checkSiteKey } from '../domain/slug.js';
import type { SiteStore } from '../store/site-store.js';

export interface SitesDeps {
  sites: SiteStore;
  contents: Pick<ContentStore, 'countByLocale'>;
  /** Called after a site's locales changed: caches forget the site's answers. */
  localesChanged(before: Site, after: Site): Promise<void>;
}

export function createSites(deps: SitesDeps) {
  const { sites } = deps;
  return {
    async list(): Promise<Site[]> {
      return sites.sites();
    },
    async bySiteKeys(keys: readonly string[]): Promise<Site[]> {
      return sites.bySiteKeys(keys);
    },
    async create(input: { siteKey: string; name: string }): Promise<Site> {
      checkSiteKey(input.siteKey);
      if (!input.name.trim() || input.name.length > 200) throw validationError([{ pointer: '/name', detail: 'name must be 1-200 characters' }]);
      const site = await sites.insert(input.siteKey, input.name.trim());
      if (!site) throw new SvcError('CONFLICT', `A site with key ${JSON.stringify(input.siteKey)} exists already`, { slug: 'site-exists' });
      return site;
    },

    /**
     * Replaces a site's locales (admin of the site): 422 naming every bad tag, fallback or loop;
     * 409 `locale-in-use` when a locale left out still has contents.
     */
    async setLocales(principal: Principal | undefined, siteKey: string, input: { defaultLocale: string; locales: readonly { tag: string; fallback?: string | null }[] }): Promise<Site> {
      const admin = requireRole(principal);
      if (!canUseSite(admin, siteKey)) throw new SvcError('FORBIDDEN', `Your token does not grant site ${JSON.stringify(siteKey)}`);
      const locales = checkSiteLocales(input);
      const before = await sites.site(siteKey);
      if (!before) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
      const kept = new Set(locales.locales.map((l) => l.tag));
      const orphaned = [...(await deps.contents.countByLocale(before))].filter(([locale]) => !kept.has(locale));
      if (orphaned.length) {
        throw new SvcError('CONFLICT', `Locales still holding contents cannot be removed: ${orphaned.map(([locale, n]) => `${locale} (${n} content${n === 1 ? '' : 's'})`).join(', ')}`, { slug: 'locale-in-use' });
      }
      const after = (await sites.setLocales(siteKey, locales))!;
      await deps.localesChanged(before, after);
      return after;
    },
  };
}

export type Sites = ReturnType<typeof createSites>;
