import { LockMode, UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { requireRole, SvcError, validationError, type Cache, type Logger, type Principal, isUuid } from '@svc/kit';
import { deliveryKey, contentSurrogateKey, etagOf, surrogateKeys } from '../domain/cache-keys.js';
import { resolveSeo } from '../domain/seo.js';
import { checkSiteKey, checkSlug } from '../domain/slug.js';
import { VersionStatus, type Content, type CreateContentInput, type Delivery, type UpdateDraftInput } from '../schema/content-types.js';
import type { PurgeReport } from '../schema/purge-types.js';
import { ContentEntity, ContentVersionEntity, SiteEntity } from '../store/entities.js';
import { mayAuthor, requireAuthor } from './access.js';
import { checkContentInput, mergeDefined } from './content-input.js';
import { toContent, toVersion } from './content-views.js';
import type { EdgePurger, LayerResult } from './edge-purger.js';

export interface PublishScheduler {
  /** Durably schedules publishing `version` of a content at `at` (replacing an earlier schedule). */
  schedule(contentId: string, version: number, at: Date): Promise<void>;
}

export interface ContentServiceDeps {
  orm: MikroORM;
  cache: Cache;
  edge: EdgePurger;
  scheduler: PublishScheduler;
  /** Delivery cache lifetime (Redis TTL and s-maxage). */
  cacheTtlSeconds: number;
  log: Logger;
}


type ContentRow = InstanceType<typeof ContentEntity.class> | (typeof ContentEntity)['~entity'];

export function createContentService(deps: ContentServiceDeps) {
  const { orm, cache, edge, log } = deps;

  async function siteOrFail(em: EntityManager, siteKey: string) {
    const site = await em.findOne(SiteEntity, { siteKey });
    if (!site) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
    return site;
  }

  /** Loads a content for authoring: 401/403 without an editor token, 404 for ids of sites the token lacks. */
  async function load(em: EntityManager, id: string, principal: Principal | undefined, lock = false) {
    requireRole(principal, 'editor');
    const notFound = () => new SvcError('NOT_FOUND', `No content with id ${JSON.stringify(id)}`, { slug: 'content-not-found', title: 'Content Not Found' });
    if (!isUuid(id)) throw notFound();
    const content = await em.findOne(ContentEntity, { id }, { populate: ['site'], ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, lockTableAliases: ['c0'] } : {}) });
    if (!content || !mayAuthor(principal, content.site.siteKey)) throw notFound();
    return content;
  }

  async function view(em: EntityManager, content: ContentRow & { site: { siteKey: string } }): Promise<Content> {
    const versions = await em.find(ContentVersionEntity, { content: content.id }, { orderBy: { version: 'desc' } });
    return toContent(content, content.site.siteKey, versions.map(toVersion));
  }

  async function purgeLayers(siteKey: string, slug: string): Promise<LayerResult[]> {
    const started = performance.now();
    let first: LayerResult;
    try {
      const removed = await cache.del(deliveryKey(siteKey, slug));
      first = { layer: cache.kind, target: deliveryKey(siteKey, slug), ok: true, detail: removed ? 'cached entry deleted' : 'nothing cached', durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      log.error({ err: error }, 'delivery cache purge failed');
      first = { layer: cache.kind, target: deliveryKey(siteKey, slug), ok: false, detail: `failed: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started) };
    }
    // Redis first, then the edges: an edge refetch after its purge must not find the old entry.
    return [first, ...(await edge.purge([contentSurrogateKey(siteKey, slug)]))];
  }

  async function purgeAfterChange(siteKey: string, slug: string): Promise<void> {
    const layers = await purgeLayers(siteKey, slug);
    const failed = layers.filter((l) => !l.ok);
    if (failed.length) log.warn({ siteKey, slug, failed }, 'automatic purge after publish did not reach every cache');
  }

  /** Moves `version` live inside a transaction holding the content row lock. */
  async function publishLocked(em: EntityManager, content: ContentRow, version: number, actor: string): Promise<boolean> {
    const target = await em.findOne(ContentVersionEntity, { content: content.id, version });
    if (!target) throw new SvcError('NOT_FOUND', `Content ${content.id} has no version ${version}`, { slug: 'version-not-found' });
    if (target.status === VersionStatus.PUBLISHED) return false;
    const now = new Date();
    const live = await em.findOne(ContentVersionEntity, { content: content.id, status: VersionStatus.PUBLISHED });
    if (live) {
      live.status = VersionStatus.SUPERSEDED;
      await em.flush();
    }
    target.status = VersionStatus.PUBLISHED;
    target.publishedAt = now;
    content.publishedVersion = version;
    content.publishedAt = now;
    content.everPublished = true;
    if (content.scheduledVersion === version) {
      content.scheduledAt = null;
      content.scheduledVersion = null;
    }
    log.info({ contentId: content.id, version, actor }, 'content published');
    return true;
  }

  /** The version a draft edit applies to: the current draft, or a new one copied from the latest. */
  async function draftOf(em: EntityManager, content: ContentRow, actor: string) {
    const latest = await em.findOneOrFail(ContentVersionEntity, { content: content.id, version: content.latestVersion });
    if (latest.status === VersionStatus.DRAFT) return latest;
    content.latestVersion += 1;
    return em.create(ContentVersionEntity, {
      content: content.id,
      version: content.latestVersion,
      status: VersionStatus.DRAFT,
      title: latest.title,
      fields: { ...latest.fields },
      seo: { ...latest.seo },
      createdBy: actor,
    });
  }

  return {
    async deliver(siteKey: string | undefined, slug: string): Promise<Delivery> {
      if (!siteKey) throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Site-Key header is required', { slug: 'site-key-required' });
      const key = deliveryKey(siteKey, slug);
      const cached = await cache.get(key).catch((error: unknown) => {
        log.warn({ err: error }, 'delivery cache read failed; serving from the database');
        return undefined;
      });
      if (cached) return JSON.parse(cached) as Delivery;
      const em = orm.em.fork();
      const site = await siteOrFail(em, siteKey);
      const content = await em.findOne(ContentEntity, { site: site.id, slug, publishedVersion: { $ne: null } });
      const version = content && (await em.findOne(ContentVersionEntity, { content: content.id, version: content.publishedVersion!, status: VersionStatus.PUBLISHED }));
      if (!content || !version) {
        throw new SvcError('NOT_FOUND', `No published content with slug ${JSON.stringify(slug)} on site ${JSON.stringify(siteKey)}`, {
          slug: 'content-not-found',
          title: 'Content Not Found',
        });
      }
      const published = {
        contentId: content.id,
        slug: content.slug,
        title: version.title,
        status: 'PUBLISHED',
        publishedAt: (version.publishedAt ?? content.publishedAt ?? new Date()).toISOString(),
        version: version.version,
        fields: {
          headline: version.fields.headline ?? null,
          description: version.fields.description ?? null,
          bannerUrl: version.fields.bannerUrl ?? null,
          ctaText: version.fields.ctaText ?? null,
          ctaLink: version.fields.ctaLink ?? null,
        },
        seo: resolveSeo(version.title, version.fields, version.seo),
      };
      const delivery: Delivery = { etag: etagOf(published), maxAgeSeconds: deps.cacheTtlSeconds, surrogateKeys: surrogateKeys(siteKey, slug), content: published };
      await cache.set(key, JSON.stringify(delivery), deps.cacheTtlSeconds).catch((error: unknown) => log.warn({ err: error }, 'delivery cache write failed'));
      return delivery;
    },

    async get(principal: Principal | undefined, id: string): Promise<Content> {
      const em = orm.em.fork();
      return view(em, await load(em, id, principal));
    },

    async list(principal: Principal | undefined, siteKey: string): Promise<Content[]> {
      requireAuthor(principal, siteKey);
      const em = orm.em.fork();
      const site = await siteOrFail(em, siteKey);
      const contents = await em.find(ContentEntity, { site: site.id }, { orderBy: { slug: 'asc' }, populate: ['site'] });
      const versions = await em.find(ContentVersionEntity, { content: { $in: contents.map((c) => c.id) } }, { orderBy: { version: 'desc' } });
      return contents.map((c) => toContent(c, siteKey, versions.filter((v) => v.content.id === c.id).map(toVersion)));
    },

    /** Batch load for federation references; ids the caller may not author come back null. */
    async byIds(principal: Principal | undefined, ids: readonly string[]): Promise<(Content | null)[]> {
      const em = orm.em.fork();
      const valid = ids.filter((id) => isUuid(id));
      const contents = await em.find(ContentEntity, { id: { $in: valid } }, { populate: ['site'] });
      const versions = await em.find(ContentVersionEntity, { content: { $in: contents.map((c) => c.id) } }, { orderBy: { version: 'desc' } });
      return ids.map((id) => {
        const c = contents.find((x) => x.id === id);
        if (!c || !mayAuthor(principal, c.site.siteKey)) return null;
        return toContent(c, c.site.siteKey, versions.filter((v) => v.content.id === c.id).map(toVersion));
      });
    },

    async create(principal: Principal | undefined, input: CreateContentInput): Promise<Content> {
      checkSiteKey(input.siteKey);
      const author = requireAuthor(principal, input.siteKey);
      checkSlug(input.slug);
      checkContentInput(input, true);
      try {
        return await orm.em.fork().transactional(async (em) => {
          const site = await siteOrFail(em, input.siteKey);
          const content = em.create(ContentEntity, { site, slug: input.slug, latestVersion: 1 });
          em.create(ContentVersionEntity, {
            content,
            version: 1,
            status: VersionStatus.DRAFT,
            title: input.title.trim(),
            fields: { ...(input.fields ?? {}) },
            seo: { ...(input.seo ?? {}) },
            createdBy: author.subject,
          });
          await em.flush();
          return view(em, content);
        });
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw new SvcError('CONFLICT', `Site ${JSON.stringify(input.siteKey)} already has a content with slug ${JSON.stringify(input.slug)}`, { slug: 'slug-taken' });
        }
        throw error;
      }
    },

    async updateDraft(principal: Principal | undefined, id: string, input: UpdateDraftInput, baseVersion?: number | null): Promise<Content> {
      checkContentInput(input, false);
      return orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        if (baseVersion != null && baseVersion !== content.latestVersion) {
          throw new SvcError('CONFLICT', `Content ${id} is at version ${content.latestVersion}, not ${baseVersion}: reload and apply your change again`, { slug: 'version-conflict' });
        }
        const draft = await draftOf(em, content, principal!.subject);
        if (input.title != null) draft.title = input.title.trim();
        draft.fields = mergeDefined(draft.fields, input.fields);
        draft.seo = mergeDefined(draft.seo, input.seo);
        await em.flush();
        return view(em, content);
      });
    },

    async restore(principal: Principal | undefined, id: string, version: number): Promise<Content> {
      return orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        const source = await em.findOne(ContentVersionEntity, { content: id, version });
        if (!source) throw new SvcError('NOT_FOUND', `Content ${id} has no version ${version}`, { slug: 'version-not-found' });
        const draft = await draftOf(em, content, principal!.subject);
        draft.title = source.title;
        draft.fields = { ...source.fields };
        draft.seo = { ...source.seo };
        await em.flush();
        return view(em, content);
      });
    },

    async publish(principal: Principal | undefined, id: string, version?: number | null): Promise<Content> {
      const { result, changed, siteKey, slug } = await orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        const changed = await publishLocked(em, content, version ?? content.latestVersion, principal!.subject);
        await em.flush();
        return { result: await view(em, content), changed, siteKey: content.site.siteKey, slug: content.slug };
      });
      if (changed) await purgeAfterChange(siteKey, slug);
      return result;
    },

    /** Runs a schedule set by schedulePublish; a cancelled or replaced schedule does nothing. */
    async publishScheduled(id: string, version: number): Promise<boolean> {
      const outcome = await orm.em.fork().transactional(async (em) => {
        const content = await em.findOne(ContentEntity, { id }, { populate: ['site'], lockMode: LockMode.PESSIMISTIC_WRITE, lockTableAliases: ['c0'] });
        if (!content || content.scheduledVersion !== version) return undefined;
        const changed = await publishLocked(em, content, version, 'scheduler');
        content.scheduledAt = null;
        content.scheduledVersion = null;
        await em.flush();
        return { changed, siteKey: content.site.siteKey, slug: content.slug };
      });
      if (outcome?.changed) await purgeAfterChange(outcome.siteKey, outcome.slug);
      return !!outcome?.changed;
    },

    async unpublish(principal: Principal | undefined, id: string): Promise<Content> {
      const { result, changed, siteKey, slug } = await orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        const live = await em.findOne(ContentVersionEntity, { content: id, status: VersionStatus.PUBLISHED });
        if (live) live.status = VersionStatus.UNPUBLISHED;
        content.publishedVersion = null;
        content.publishedAt = null;
        await em.flush();
        return { result: await view(em, content), changed: !!live, siteKey: content.site.siteKey, slug: content.slug };
      });
      if (changed) {
        log.info({ contentId: id, actor: principal!.subject }, 'content unpublished');
        await purgeAfterChange(siteKey, slug);
      }
      return result;
    },

    async schedulePublish(principal: Principal | undefined, id: string, at: Date, version?: number | null): Promise<Content> {
      if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) {
        throw validationError([{ pointer: '/at', detail: `at must be a time in the future; got ${Number.isNaN(at.getTime()) ? 'an invalid date' : at.toISOString()}` }]);
      }
      const em0 = orm.em.fork();
      const content0 = await load(em0, id, principal);
      const target = version ?? content0.latestVersion;
      const row = await em0.findOne(ContentVersionEntity, { content: id, version: target });
      if (!row) throw new SvcError('NOT_FOUND', `Content ${id} has no version ${target}`, { slug: 'version-not-found' });
      if (row.status === VersionStatus.PUBLISHED) throw new SvcError('CONFLICT', `Version ${target} of content ${id} is already published`, { slug: 'already-published' });
      // The job is stored first: if the commit below fails, the job finds no matching schedule and does nothing.
      await deps.scheduler.schedule(id, target, at);
      return orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        content.scheduledAt = at;
        content.scheduledVersion = target;
        await em.flush();
        log.info({ contentId: id, version: target, at: at.toISOString(), actor: principal!.subject }, 'content publish scheduled');
        return view(em, content);
      });
    },

    async cancelSchedule(principal: Principal | undefined, id: string): Promise<Content> {
      return orm.em.fork().transactional(async (em) => {
        const content = await load(em, id, principal, true);
        content.scheduledAt = null;
        content.scheduledVersion = null;
        await em.flush();
        return view(em, content);
      });
    },

    async purge(principal: Principal | undefined, siteKey: string, slug: string): Promise<PurgeReport> {
      if (typeof siteKey !== 'string' || !siteKey) throw validationError([{ pointer: '/siteKey', detail: 'siteKey is required' }]);
      if (typeof slug !== 'string' || !slug) throw validationError([{ pointer: '/contentSlug', detail: 'contentSlug is required' }]);
      requireAuthor(principal, siteKey);
      checkSlug(slug, '/contentSlug');
      await siteOrFail(orm.em.fork(), siteKey);
      const layers = await purgeLayers(siteKey, slug);
      const report: PurgeReport = { siteKey, contentSlug: slug, surrogateKey: contentSurrogateKey(siteKey, slug), purgedAt: new Date().toISOString(), layers };
      log.info({ siteKey, slug, layers: layers.map((l) => `${l.target}:${l.ok ? 'ok' : 'failed'}`), actor: principal!.subject }, 'cache purged');
      const failed = layers.filter((l) => !l.ok);
      if (failed.length) {
        throw new SvcError('UPSTREAM_ERROR', `Purge incomplete: ${failed.map((l) => `${l.target} (${l.detail})`).join('; ')}`, {
          slug: 'purge-incomplete',
          title: 'Purge Incomplete',
          details: { layers, siteKey, contentSlug: slug },
        });
      }
      return report;
    },
  };
}

export type ContentService = ReturnType<typeof createContentService>;
