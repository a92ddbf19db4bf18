import { SvcError } from '@svc/kit';
import type { Site } from '../domain/site.js';
import type { SiteStore } from '../store/site-store.js';

export async function siteOrFail(sites: SiteStore, siteKey: string): Promise<Site> {
  const site = await sites.site(siteKey);
  if (!site) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
  return site;
}

export const contentNotFound = (id: string) => new SvcError('NOT_FOUND', `No content with id ${JSON.stringify(id)}`, { slug: 'content-not-found', title: 'Content Not Found' });

export const versionNotFound = (id: string, version: number) => new SvcError('NOT_FOUND', `Content ${id} has no version ${version}`, { slug: 'version-not-found' });

export const formNotFound = (siteKey: string, formKey: string) =>
  new SvcError('NOT_FOUND', `Site ${JSON.stringify(siteKey)} has no form ${JSON.stringify(formKey)}`, { slug: 'form-not-found', title: 'Form Not Found' });

/** Delivery and forms name the site by the X-Svc-Site-Key header when the argument is left out. */
export function requireSiteKey(siteKey: string | undefined): string {
  if (!siteKey) throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Site-Key header is required', { slug: 'site-key-required' });
  return siteKey;
}
