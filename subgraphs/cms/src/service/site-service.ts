import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { SvcError, validationError } from '@svc/kit';
import { checkSiteKey } from '../domain/slug.js';
import type { Site } from '../schema/site-types.js';
import { SiteEntity } from '../store/entities.js';

export function createSiteService(orm: MikroORM) {
  return {
    async list(): Promise<Site[]> {
      return orm.em.fork().find(SiteEntity, {}, { orderBy: { siteKey: 'asc' } });
    },
    async bySiteKeys(keys: readonly string[]): Promise<Site[]> {
      return orm.em.fork().find(SiteEntity, { siteKey: { $in: [...keys] } });
    },
    async create(input: { siteKey: string; name: string }): Promise<Site> {
      checkSiteKey(input.siteKey);
      if (!input.name.trim() || input.name.length > 200) throw validationError([{ pointer: '/name', detail: 'name must be 1-200 characters' }]);
      const em = orm.em.fork();
      try {
        const site = em.create(SiteEntity, { siteKey: input.siteKey, name: input.name.trim() });
        await em.flush();
        return site;
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw new SvcError('CONFLICT', `A site with key ${JSON.stringify(input.siteKey)} exists already`, { slug: 'site-exists' });
        throw error;
      }
    },
  };
}

export type SiteService = ReturnType<typeof createSiteService>;
