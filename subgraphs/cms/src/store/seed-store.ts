import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { VersionStatus, type VersionText } from '../domain/content.js';
import type { FormDefinition } from '../domain/form-definition.js';
import { ContentEntity, ContentVersionEntity, FormEntity, SiteEntity } from './entities.js';

/** A later version of a seeded content: live from `at`, or (only the last) a draft written then. */
export interface LaterVersion extends VersionText {
  at: Date;
  publish: boolean;
}

export interface ContentSeed extends VersionText {
  slug: string;
  /** When version 1 went live; default when seeded. */
  publishedAt?: Date;
  /**
   * Its history after version 1, oldest first: the seed writes what the API cannot (a version
   * that went live in the past), so a demo's timeline has something to find.
   */
  later?: readonly LaterVersion[];
}

export interface SiteSeed {
  siteKey: string;
  name: string;
  /** Each becomes a content with version 1 PUBLISHED, then its later versions. */
  contents: readonly ContentSeed[];
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
      const versions = [{ title: c.title, fields: c.fields, seo: c.seo, at: c.publishedAt ?? now, publish: true }, ...(c.later ?? [])];
      if (versions.slice(0, -1).some((v) => !v.publish)) throw new Error(`seed of ${c.slug}: only its last version may be a draft`);
      const live = versions.map((v) => v.publish).lastIndexOf(true);
      const id = randomUUID();
      const content = em.create(ContentEntity, { id, groupId: id, locale: site.defaultLocale ?? 'en', site, slug: c.slug, latestVersion: versions.length, publishedVersion: live + 1, publishedAt: versions[live]!.at, everPublished: true });
      versions.forEach((v, i) => {
        const status = !v.publish ? VersionStatus.DRAFT : i === live ? VersionStatus.PUBLISHED : VersionStatus.SUPERSEDED;
        em.create(ContentVersionEntity, { content, version: i + 1, status, title: v.title, fields: v.fields, seo: v.seo, createdBy, createdAt: v.at, publishedAt: v.publish ? v.at : null });
      });
    }
    for (const f of seed.forms) {
      em.create(FormEntity, { site, formKey: f.formKey, name: f.name, honeypotField: f.honeypotField ?? null, fields: f.fields, webhookUrl: f.webhookUrl ?? null, rateLimitPerMinute: f.rateLimitPerMinute ?? null });
    }
    return true;
  });
}
