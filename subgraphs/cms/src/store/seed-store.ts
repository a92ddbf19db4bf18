import type { MikroORM } from '@mikro-orm/postgresql';
import { VersionStatus, type VersionText } from '../domain/content.js';
import type { FormDefinition } from '../domain/form-definition.js';
import { ContentEntity, ContentVersionEntity, FormEntity, SiteEntity } from './entities.js';

export interface SiteSeed {
  siteKey: string;
  name: string;
  /** Each becomes a content with version 1 PUBLISHED. */
  contents: readonly (VersionText & { slug: string })[];
  forms: readonly FormDefinition[];
}

/**
 * Creates a site with its contents and forms in one transaction, unless the site exists;
 * true when it created them.
 */
export async function seedSite(orm: MikroORM, seed: SiteSeed, createdBy: string): Promise<boolean> {
  return orm.em.fork().transactional(async (em) => {
    if (await em.findOne(SiteEntity, { siteKey: seed.siteKey })) return false;
    const site = em.create(SiteEntity, { siteKey: seed.siteKey, name: seed.name });
    const now = new Date();
    for (const c of seed.contents) {
      const content = em.create(ContentEntity, { site, slug: c.slug, latestVersion: 1, publishedVersion: 1, publishedAt: now, everPublished: true });
      em.create(ContentVersionEntity, { content, version: 1, status: VersionStatus.PUBLISHED, title: c.title, fields: c.fields, seo: c.seo, createdBy, publishedAt: now });
    }
    for (const f of seed.forms) {
      em.create(FormEntity, { site, formKey: f.formKey, name: f.name, honeypotField: f.honeypotField ?? null, fields: f.fields, webhookUrl: f.webhookUrl ?? null, rateLimitPerMinute: f.rateLimitPerMinute ?? null });
    }
    return true;
  });
}
