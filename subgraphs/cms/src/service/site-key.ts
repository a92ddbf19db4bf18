import { SvcError } from '@svc/kit';
import type { Site } from '../domain/site.js';
import type { SiteStore } from '../store/site-store.js';

/** Delivery and forms name the site by the X-Svc-Site-Key header when the argument is left out. */
export function requireSiteKey(siteKey: string | undefined): string {
  if (!siteKey) throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Site-Key header is required', { slug: 'site-key-required' });
  return siteKey;
}

/** The site a key names; 404 `site-not-found` when none. */
export async function siteOrFail(sites: SiteStore, siteKey: string): Promise<Site> {
  const site = await sites.site(siteKey);
  if (!site) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
  return site;
}
