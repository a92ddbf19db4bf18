import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import type { Site } from '../domain/site.js';
import { SiteEntity } from './entities.js';

const toSite = (row: Site): Site => ({ id: row.id, siteKey: row.siteKey, name: row.name, createdAt: row.createdAt });

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
