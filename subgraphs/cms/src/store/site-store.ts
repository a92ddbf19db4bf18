import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { newPreviewSecret } from '../domain/preview-token.js';
import type { SiteLocales } from '../domain/locale.js';
import type { Site } from '../domain/site.js';
import { SiteEntity } from './entities.js';

const toSite = (row: Site): Site => ({
  id: row.id, siteKey: row.siteKey, name: row.name, createdAt: row.createdAt,
  defaultLocale: row.defaultLocale, locales: row.locales.map((l) => ({ tag: l.tag, fallback: l.fallback ?? null })),
});

/** Sites by key. */
export function createSiteStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async site(siteKey: string): Promise<Site | undefined> {
      const row = await em().findOne(SiteEntity, { siteKey });
      return row ? toSite(row) : undefined;
    },

    /** Every site, by key. */
    async sites(): Promise<Site[]> {
      return (await em().find(SiteEntity, {}, { orderBy: { siteKey: 'asc' } })).map(toSite);
    },

    async bySiteKeys(keys: readonly string[]): Promise<Site[]> {
      return (await em().find(SiteEntity, { siteKey: { $in: [...keys] } })).map(toSite);
    },

    /** A site with the secret that signs its preview links, by id or key (the secret is never part of a {@link Site}). */
    async withPreviewSecret(by: { siteId: string } | { siteKey: string }): Promise<{ site: Site; secret: string } | undefined> {
      const row = await em().findOne(SiteEntity, 'siteId' in by ? { id: by.siteId } : { siteKey: by.siteKey }, { populate: ['previewSecret'] });
      return row ? { site: toSite(row), secret: row.previewSecret } : undefined;
    },

    /** A new preview secret for the site: every link signed with the old one stops working. Undefined when no such site. */
    async rotatePreviewSecret(siteKey: string): Promise<Date | undefined> {
      const [row] = await em().execute<{ rotated_at: Date }[]>(
        'update cms.site set preview_secret = ?, preview_secret_rotated_at = clock_timestamp() where site_key = ? returning preview_secret_rotated_at as rotated_at',
        [newPreviewSecret(), siteKey],
      );
      return row ? new Date(row.rotated_at) : undefined;
    },

    /** Replaces a site's locales; undefined when no such site. */
    async setLocales(siteKey: string, locales: SiteLocales): Promise<Site | undefined> {
      const fork = em();
      const row = await fork.findOne(SiteEntity, { siteKey });
      if (!row) return undefined;
      row.defaultLocale = locales.defaultLocale;
      row.locales = locales.locales.map((l) => ({ tag: l.tag, fallback: l.fallback }));
      await fork.flush();
      return toSite(row);
    },

    /** Undefined when the key is taken. */
    async insert(siteKey: string, name: string): Promise<Site | undefined> {
      const fork = em();
      try {
        const row = fork.create(SiteEntity, { siteKey, name });
        await fork.flush();
        return toSite(row);
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return undefined;
        throw error;
      }
    },
  };
}

export type SiteStore = ReturnType<typeof createSiteStore>;
