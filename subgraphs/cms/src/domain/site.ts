/** A site: contents and forms belong to one, and tokens grant sites by key. */
import type { SiteLocales } from './locale.js';

export interface Site extends SiteLocales {
  id: string;
  siteKey: string;
  name: string;
  createdAt: Date;
}
