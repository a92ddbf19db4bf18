import { validationError } from '@svc/kit';

/** Content slugs: lower-case words joined by dashes, at most 200 characters. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Site keys: 2-63 lower-case letters, digits or dashes. */
export const SITE_KEY = /^[a-z0-9][a-z0-9-]{1,62}$/;

export function checkSlug(slug: string, pointer = '/slug'): string {
  if (slug.length > 200 || !SLUG.test(slug)) {
    throw validationError([{ pointer, detail: `slug must be lower-case words joined by dashes (a-z, 0-9), at most 200 characters; got ${JSON.stringify(slug)}` }]);
  }
  return slug;
}

export function checkSiteKey(siteKey: string, pointer = '/siteKey'): string {
  if (!SITE_KEY.test(siteKey)) {
    throw validationError([{ pointer, detail: `siteKey must be 2-63 lower-case letters, digits or dashes; got ${JSON.stringify(siteKey)}` }]);
  }
  return siteKey;
}
