import { LockMode, UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { applyOnce, isUuid, nativeSql, type IdempotentCall } from '@svc/kit';
import { randomUUID } from 'node:crypto';
import { contentOf, VersionStatus, type Content, type VersionText } from '../domain/content.js';
import type { LocaleVersion } from '../domain/delivery.js';
import type { ContentFields, Seo } from '../domain/seo.js';
import type { Site } from '../domain/site.js';
import { contentsOfJoin, dateOf, dateOrNull, toState, toVersion, type ContentRow, type ContentVersionJoin } from './content-rows.js';
import { ContentEntity, ContentVersionEntity } from './entities.js';
import { lockedContent, type LockedContent } from './locked-content.js';

/** An idempotency key for {@link ContentStore.withLockedContent}, and what a repeated call answers. */
export interface KeyedLock<T> {
  call: IdempotentCall;
  replay: (locked: LockedContent | undefined) => Promise<T>;
}

interface LocaleVersionRow {
  id: string;
  group_id: string;
  locale: string;
  slug: string;
  published_at: Date | string | null;
  version: number;
  status: string;
  title: string;
  fields: ContentFields;
  seo: Seo;
  version_created_at: Date | string;
  created_by: string | null;
  version_published_at: Date | string | null;
}

const PUBLISHED_LOCALES = `select c.id, c.group_id, c.locale, c.slug, c.published_at, v.version, v.status, v.title, v.fields, v.seo,
       v.created_at as version_created_at, v.created_by, v.published_at as version_published_at
  from cms.content c join cms.content_version v on v.content_id = c.id and v.version = c.published_version`;

function localeVersions(rows: readonly LocaleVersionRow[]): LocaleVersion[] {
  return rows.map((r) => ({
    contentId: r.id, groupId: r.group_id, locale: r.locale, slug: r.slug, publishedAt: dateOrNull(r.published_at),
    version: toVersion({ version: r.version, status: r.status, title: r.title, fields: r.fields, seo: r.seo, createdAt: dateOf(r.version_created_at), createdBy: r.created_by, publishedAt: dateOrNull(r.version_published_at) }),
  }));
}

/** Contents with their versions; a content is only changed with its row locked. */
export function createContentStore(orm: MikroORM) {
  // Reads on the federated hot path (Content references): prepared, on the pool directly (no ORM fork or query formatting).
  const contentsByIds = nativeSql(orm).prepared<ContentVersionJoin>(
    `select c.id, c.locale, c.group_id, c.slug, c.latest_version, c.published_version, c.published_at, c.scheduled_at, c.scheduled_version,
            c.ever_published, c.created_at, c.updated_at, s.site_key,
            v.version, v.status, v.title, v.fields, v.seo, v.created_at as version_created_at, v.created_by,
            v.published_at as version_published_at
       from cms.content c join cms.site s on s.id = c.site_id
       left join cms.content_version v on v.content_id = c.id
      where c.id = any($1::uuid[])
      order by c.id, v.version desc`,
  );

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
    async content(id: string): Promise<Content | undefined> {
      if (!isUuid(id)) return undefined;
      const em = orm.em.fork();
      const row = await em.findOne(ContentEntity, { id }, { populate: ['site'] });
      return row ? view(em, row, row.site.siteKey) : undefined;
    },

    /** Every content of a site, by slug. */
    async ofSite(site: Site, locale?: string): Promise<Content[]> {
      const em = orm.em.fork();
      return views(em, await em.find(ContentEntity, { site: site.id, ...(locale ? { locale } : {}) }, { orderBy: { slug: 'asc', locale: 'asc' }, populate: ['site'] }));
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
      const rows = await contentsByIds([valid]);
      return contentsOfJoin(rows);
    },

    /**
     * A new content (or, with `groupId`, a new locale of one) with a DRAFT version 1; `taken` when
     * the site has a content with that slug in that locale, or the content has that locale already.
     */
    async insert(site: Site, slug: string, text: VersionText, createdBy: string, at: { locale: string; groupId?: string }): Promise<Content | 'slug-taken' | 'locale-taken'> {
      try {
        return await orm.em.fork().transactional(async (em) => {
          const id = randomUUID();
          const content = em.create(ContentEntity, { id, groupId: at.groupId ?? id, locale: at.locale, site: site.id, slug, latestVersion: 1 });
          em.create(ContentVersionEntity, { content, version: 1, status: VersionStatus.DRAFT, ...text, createdBy });
          await em.flush();
          return view(em, content, site.siteKey);
        });
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return error.message.includes('content_group_locale_unique') ? 'locale-taken' : 'slug-taken';
        throw error;
      }
    },

    /**
     * The published locales of every content that has `slug` published on the site, in one
     * statement: what delivery chooses from (locale-delivery in domain/delivery.ts).
     */
    async publishedLocales(site: Site, slug: string): Promise<LocaleVersion[]> {
      return localeVersions(await orm.em.fork().execute<LocaleVersionRow[]>(
        `${PUBLISHED_LOCALES} where c.group_id in (select group_id from cms.content where site_id = ? and slug = ? and published_version is not null)`,
        [site.id, slug],
      ));
    },

    /** The published locales of one content (all its translations). */
    async publishedLocalesOf(groupId: string): Promise<LocaleVersion[]> {
      return localeVersions(await orm.em.fork().execute<LocaleVersionRow[]>(`${PUBLISHED_LOCALES} where c.group_id = ?`, [groupId]));
    },

    /** Every locale row of one content, published or not: id, locale and slug. */
    async translations(groupId: string): Promise<{ id: string; locale: string; slug: string; publishedVersion: number | null; latestVersion: number }[]> {
      const rows = await orm.em.fork().execute<{ id: string; locale: string; slug: string; published_version: number | null; latest_version: number }[]>(
        'select id, locale, slug, published_version, latest_version from cms.content where group_id = ? order by locale',
        [groupId],
      );
      return rows.map((r) => ({ id: r.id, locale: r.locale, slug: r.slug, publishedVersion: r.published_version, latestVersion: r.latest_version }));
    },

    /** How many content rows of the site are in each of `locales`. */
    async countByLocale(site: Site): Promise<Map<string, number>> {
      const rows = await orm.em.fork().execute<{ locale: string; n: string }[]>('select locale, count(*) as n from cms.content where site_id = ? group by locale', [site.id]);
      return new Map(rows.map((r) => [r.locale, Number(r.n)]));
    },

    /** Every slug of the site's contents, with its locale. */
    async slugsOfSite(site: Site): Promise<{ locale: string; slug: string }[]> {
      return orm.em.fork().execute<{ locale: string; slug: string }[]>('select locale, slug from cms.content where site_id = ?', [site.id]);
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
