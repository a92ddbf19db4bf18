import { SvcError, validationError } from '@svc/kit';
import type { Site } from '../domain/site.js';
import { checkSiteKey } from '../domain/slug.js';
import type { SiteStore } from '../store/site-store.js';

export function createSites(sites: SiteStore) {
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
  };
}

export type Sites = ReturnType<typeof createSites>;
