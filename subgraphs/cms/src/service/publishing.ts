import { checkIdempotencyKey, SvcError, validationError, type Logger, type Principal } from '@svc/kit';
import { VersionStatus, type Content } from '../domain/content.js';
import type { ContentStore } from '../store/content-store.js';
import type { LockedContent } from '../store/locked-content.js';
import { authoredContent, keyedAuthoring, withAuthoredContent } from './authored-content.js';
import { editDraft } from './authoring.js';
import { versionNotFound } from './not-found.js';
import type { CachePurge } from './purge.js';

export interface PublishScheduler {
  /** Durably schedules publishing `version` of a content at `at` (replacing an earlier schedule). */
  schedule(contentId: string, version: number, at: Date): Promise<void>;
}

type PublishOutcome = 'unchanged' | 'replaced' | 'went-live';
const UNCHANGED: PublishOutcome = 'unchanged';

export interface PublishingDeps {
  contents: ContentStore;
  purge: Pick<CachePurge, 'afterChange'>;
  scheduler: PublishScheduler;
  log: Logger;
}

/** Making versions live, taking them down, and scheduling both; every change purges the caches. */
export function createPublishing(deps: PublishingDeps) {
  const { contents, purge, log } = deps;

  /**
   * Moves `version` live: `unchanged` when it already is, `replaced` when it replaced the
   * locale's live version, `went-live` when the locale had none (the content's set of published
   * locales changed, and with it every locale's hreflang alternates).
   */
  async function publishLocked(locked: LockedContent, version: number, actor: string): Promise<PublishOutcome> {
    const { id, scheduledVersion } = locked.state;
    const target = await locked.version(version);
    if (!target) throw versionNotFound(id, version);
    if (target.status === VersionStatus.PUBLISHED) return 'unchanged';
    const now = new Date();
    const live = await locked.liveVersion();
    if (live) await locked.setVersionStatus(live.version, VersionStatus.SUPERSEDED);
    await locked.setVersionStatus(version, VersionStatus.PUBLISHED, now);
    locked.update({ publishedVersion: version, publishedAt: now, everPublished: true, ...(scheduledVersion === version ? { scheduledAt: null, scheduledVersion: null } : {}) });
    log.info({ contentId: id, version, actor }, 'content published');
    return live ? 'replaced' : 'went-live';
  }

  return {
    /**
     * Publishing an older version rolls back to it. With an idempotency key, a repeated call
     * answers the content as it is now and changes nothing.
     */
    async publish(principal: Principal | undefined, id: string, version?: number | null, idempotencyKey?: string | null): Promise<Content> {
      const key = checkIdempotencyKey(idempotencyKey);
      const { result, outcome, siteKey, groupId, locale } = await withAuthoredContent(
        contents,
        principal,
        id,
        async (locked, editor) => {
          const outcome = await publishLocked(locked, version ?? locked.state.latestVersion, editor.subject);
          return { result: await locked.view(), outcome, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale };
        },
        keyedAuthoring(key, 'publishContent', id, async (locked) => ({ result: await locked.view(), outcome: UNCHANGED, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale })),
      );
      if (outcome !== 'unchanged') await purge.afterChange(siteKey, groupId, locale, outcome === 'went-live');
      return result;
    },

    /**
     * Copies an earlier version into the draft (a new version, so history is kept); with
     * `publish`, makes that draft live in the same locked change and purges the caches. With an
     * idempotency key, a repeated call answers the content as it is now and changes nothing.
     */
    async restore(principal: Principal | undefined, id: string, version: number, options: { publish?: boolean | null; idempotencyKey?: string | null } = {}): Promise<Content> {
      const key = checkIdempotencyKey(options.idempotencyKey);
      const { result, outcome, siteKey, groupId, locale } = await withAuthoredContent(
        contents,
        principal,
        id,
        async (locked, editor) => {
          const source = await locked.version(version);
          if (!source) throw versionNotFound(id, version);
          await editDraft(locked, editor.subject, () => ({ title: source.title, fields: { ...source.fields }, seo: { ...source.seo } }));
          const outcome = options.publish ? await publishLocked(locked, locked.state.latestVersion, editor.subject) : UNCHANGED;
          if (outcome !== 'unchanged') log.info({ contentId: id, restoredFrom: version, actor: editor.subject }, 'content version restored and published');
          return { result: await locked.view(), outcome, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale };
        },
        keyedAuthoring(key, 'restoreContentVersion', id, async (locked) => ({ result: await locked.view(), outcome: UNCHANGED, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale })),
      );
      if (outcome !== 'unchanged') await purge.afterChange(siteKey, groupId, locale, outcome === 'went-live');
      return result;
    },

    /** Runs a schedule set by schedulePublish; a cancelled or replaced schedule does nothing. */
    async publishScheduled(id: string, version: number): Promise<boolean> {
      const done = await contents.withLockedContent(id, async (locked) => {
        if (!locked || locked.state.scheduledVersion !== version) return undefined;
        const outcome = await publishLocked(locked, version, 'scheduler');
        locked.update({ scheduledAt: null, scheduledVersion: null });
        return { outcome, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale };
      });
      if (!done || done.outcome === 'unchanged') return false;
      await purge.afterChange(done.siteKey, done.groupId, done.locale, done.outcome === 'went-live');
      return true;
    },

    async unpublish(principal: Principal | undefined, id: string): Promise<Content> {
      const { result, changed, siteKey, groupId, locale, actor } = await withAuthoredContent(contents, principal, id, async (locked, editor) => {
        const live = await locked.liveVersion();
        if (live) await locked.setVersionStatus(live.version, VersionStatus.UNPUBLISHED);
        locked.update({ publishedVersion: null, publishedAt: null });
        return { result: await locked.view(), changed: !!live, siteKey: locked.state.siteKey, groupId: locked.state.groupId, locale: locked.state.locale, actor: editor.subject };
      });
      if (changed) {
        log.info({ contentId: id, actor }, 'content unpublished');
        // The locale left the content's published locales: every locale's alternates change.
        await purge.afterChange(siteKey, groupId, locale, true);
      }
      return result;
    },

    async schedulePublish(principal: Principal | undefined, id: string, at: Date, version?: number | null): Promise<Content> {
      if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) {
        throw validationError([{ pointer: '/at', detail: `at must be a time in the future; got ${Number.isNaN(at.getTime()) ? 'an invalid date' : at.toISOString()}` }]);
      }
      const current = await authoredContent(contents, principal, id);
      const target = version ?? current.latestVersion;
      const row = current.versions.find((v) => v.version === target);
      if (!row) throw versionNotFound(id, target);
      if (row.status === VersionStatus.PUBLISHED) throw new SvcError('CONFLICT', `Version ${target} of content ${id} is already published`, { slug: 'already-published' });
      // The job is stored first: if the commit below fails, the job finds no matching schedule and does nothing.
      await deps.scheduler.schedule(id, target, at);
      return withAuthoredContent(contents, principal, id, async (locked, editor) => {
        locked.update({ scheduledAt: at, scheduledVersion: target });
        log.info({ contentId: id, version: target, at: at.toISOString(), actor: editor.subject }, 'content publish scheduled');
        return locked.view();
      });
    },

    async cancelSchedule(principal: Principal | undefined, id: string): Promise<Content> {
      return withAuthoredContent(contents, principal, id, async (locked) => {
        locked.update({ scheduledAt: null, scheduledVersion: null });
        return locked.view();
      });
    },
  };
}

export type Publishing = ReturnType<typeof createPublishing>;
