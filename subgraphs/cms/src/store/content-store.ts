import { LockMode, UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { applyOnce, isUuid, type IdempotentCall } from '@svc/kit';
import { contentOf, VersionStatus, type Content, type ContentState, type ContentVersion, type VersionText } from '../domain/content.js';
import type { Site } from '../domain/site.js';
import { contentsOfJoin, toState, toVersion, type ContentRow, type ContentVersionJoin } from './content-rows.js';
import { ContentEntity, ContentVersionEntity } from './entities.js';
import { lockedContent, type LockedContent } from './locked-content.js';

/** An idempotency key for {@link ContentStore.withLockedContent}, and what a repeated call answers. */
export interface KeyedLock<T> {
  call: IdempotentCall;
  replay: (locked: LockedContent | undefined) => Promise<T>;
}

/** Contents with their versions; a content is only changed with its row locked. */
export function createContentStore(orm: MikroORM) {
  async function view(em: EntityManager, row: ContentRow, siteKey: string): Promise<Content> {
    const versions = await em.find(ContentVersionEntity, { content: row.id }, { orderBy: { version: 'desc' } });
    return contentOf(toState(row, siteKey), versions.map(toVersion));
  }

  /** Contents with their versions, in the order of `rows`, in two queries. */
  async function views(em: EntityManager, rows: readonly (ContentRow & { site: { siteKey: string } })[]): Promise<Content[]> {
    const versions = await em.find(ContentVersionEntity, { content: { $in: rows.map((c) => c.id) } }, { orderBy: { version: 'desc' } });
    return rows.map((c) => contentOf(toState(c, c.site.siteKey), versions.filter((v) => v.content.id === c.id).map(toVersion)));
  }

  return {
    /** The live version of a site's content, if it has one. */
    async published(site: Site, slug: string): Promise<{ content: ContentState; version: ContentVersion } | undefined> {
      const em = orm.em.fork();
      const content = await em.findOne(ContentEntity, { site: site.id, slug, publishedVersion: { $ne: null } });
      const version = content && (await em.findOne(ContentVersionEntity, { content: content.id, version: content.publishedVersion!, status: VersionStatus.PUBLISHED }));
      return content && version ? { content: toState(content, site.siteKey), version: toVersion(version) } : undefined;
    },

    async content(id: string): Promise<Content | undefined> {
      if (!isUuid(id)) return undefined;
      const em = orm.em.fork();
      const row = await em.findOne(ContentEntity, { id }, { populate: ['site'] });
      return row ? view(em, row, row.site.siteKey) : undefined;
    },

    /** Every content of a site, by slug. */
    async ofSite(site: Site): Promise<Content[]> {
      const em = orm.em.fork();
      return views(em, await em.find(ContentEntity, { site: site.id }, { orderBy: { slug: 'asc' }, populate: ['site'] }));
    },

    /**
     * The contents found among `ids`, in no particular order; ids that are no UUIDs find nothing.
     * This is what federation's references read (50 action cards, one call): one statement for
     * the contents, their sites and their versions, read as rows rather than through the ORM's
     * entities, which cost several times the query itself.
     */
    async byIds(ids: readonly string[]): Promise<Content[]> {
      const valid = [...new Set(ids.filter((id) => isUuid(id)))];
      if (!valid.length) return [];
      const rows = await orm.em.fork().execute<ContentVersionJoin[]>(
        `select c.id, c.slug, c.latest_version, c.published_version, c.published_at, c.scheduled_at, c.scheduled_version,
                c.ever_published, c.created_at, c.updated_at, s.site_key,
                v.version, v.status, v.title, v.fields, v.seo, v.created_at as version_created_at, v.created_by,
                v.published_at as version_published_at
           from cms.content c join cms.site s on s.id = c.site_id
           left join cms.content_version v on v.content_id = c.id
          where c.id in (${valid.map(() => '?').join(', ')})
          order by c.id, v.version desc`,
        valid,
      );
      return contentsOfJoin(rows);
    },

    /** A new content with a DRAFT version 1; undefined when the site has a content with that slug. */
    async insert(site: Site, slug: string, text: VersionText, createdBy: string): Promise<Content | undefined> {
      try {
        return await orm.em.fork().transactional(async (em) => {
          const content = em.create(ContentEntity, { site: site.id, slug, latestVersion: 1 });
          em.create(ContentVersionEntity, { content, version: 1, status: VersionStatus.DRAFT, ...text, createdBy });
          await em.flush();
          return view(em, content, site.siteKey);
        });
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return undefined;
        throw error;
      }
    },

    /**
     * Runs `fn` in a transaction holding the content's row lock (the site is not locked), and
     * writes its changes; `fn` gets undefined when there is no such content. With `keyed`, the
     * change is made once per idempotency key (recorded in the same transaction): a repeated
     * key runs `keyed.replay` instead, which must change nothing.
     */
    async withLockedContent<T>(id: string, fn: (locked: LockedContent | undefined) => Promise<T>, keyed?: KeyedLock<T>): Promise<T> {
      if (!isUuid(id)) return fn(undefined);
      return orm.em.fork().transactional(async (em) => {
        const lock = async () => {
          const row = await em.findOne(ContentEntity, { id }, { populate: ['site'], lockMode: LockMode.PESSIMISTIC_WRITE, lockTableAliases: ['c0'] });
          return row ? lockedContent(em, row, row.site.siteKey) : undefined;
        };
        const { result } = await applyOnce(em, 'cms', keyed?.call, {
          apply: async () => {
            const applied = await fn(await lock());
            await em.flush();
            return { result: applied, entityId: id };
          },
          replay: async () => keyed!.replay(await lock()),
        });
        return result;
      });
    },
  };
}

export type ContentStore = ReturnType<typeof createContentStore>;
