import type { EntityManager, InferEntity } from '@mikro-orm/postgresql';
import { contentOf, VersionStatus, type Content, type ContentChanges, type ContentState, type ContentVersion, type VersionText } from '../domain/content.js';
import { ContentVersionEntity, type ContentEntity } from './entities.js';
import { toState, toVersion } from './content-rows.js';

type ContentRecord = InferEntity<typeof ContentEntity>;
type VersionRecord = InferEntity<typeof ContentVersionEntity>;

/** A content whose row the current transaction holds locked: what publishing and editing change. */
export interface LockedContent {
  /** The record with the changes made so far. */
  readonly state: ContentState;
  version(version: number): Promise<ContentVersion | undefined>;
  latestVersion(): Promise<ContentVersion>;
  /** The PUBLISHED version, if any. */
  liveVersion(): Promise<ContentVersion | undefined>;
  /**
   * Written at once rather than with the rest: the index allowing one PUBLISHED version per
   * content checks each statement, so the old live version must leave PUBLISHED first.
   */
  setVersionStatus(version: number, status: VersionStatus, publishedAt?: Date): Promise<void>;
  /** Replaces the text of an existing version (the draft). */
  rewriteVersion(version: number, text: VersionText): Promise<void>;
  /** Appends a DRAFT as version latestVersion + 1. */
  addDraft(text: VersionText, createdBy: string): void;
  update(changes: ContentChanges): void;
  /** The content with every change written. */
  view(): Promise<Content>;
}

export function lockedContent(em: EntityManager, content: ContentRecord, siteKey: string): LockedContent {
  // Versions read through this handle, by number: changes go to the managed entity the read returned.
  const rows = new Map<number, VersionRecord>();
  const keep = (row: VersionRecord | null) => {
    if (row) rows.set(row.version, row);
    return row ?? undefined;
  };
  const row = async (version: number) => rows.get(version) ?? keep(await em.findOne(ContentVersionEntity, { content: content.id, version }));

  return {
    get state() {
      return toState(content, siteKey);
    },

    async version(version) {
      const found = await row(version);
      return found && toVersion(found);
    },

    async latestVersion() {
      const latest = await em.findOneOrFail(ContentVersionEntity, { content: content.id, version: content.latestVersion });
      keep(latest);
      return toVersion(latest);
    },

    async liveVersion() {
      const found = keep(await em.findOne(ContentVersionEntity, { content: content.id, status: VersionStatus.PUBLISHED }));
      return found && toVersion(found);
    },

    async setVersionStatus(version, status, publishedAt) {
      const target = await row(version);
      if (!target) throw new Error(`Content ${content.id} has no version ${version}`);
      target.status = status;
      if (publishedAt) target.publishedAt = publishedAt;
      await em.flush();
    },

    async rewriteVersion(version, text) {
      const target = await row(version);
      if (!target) throw new Error(`Content ${content.id} has no version ${version}`);
      target.title = text.title;
      target.fields = text.fields;
      target.seo = text.seo;
    },

    addDraft(text, createdBy) {
      content.latestVersion += 1;
      keep(em.create(ContentVersionEntity, { content: content.id, version: content.latestVersion, status: VersionStatus.DRAFT, ...text, createdBy }));
    },

    update(changes) {
      Object.assign(content, changes);
    },

    async view() {
      await em.flush();
      const versions = await em.find(ContentVersionEntity, { content: content.id }, { orderBy: { version: 'desc' } });
      return contentOf(toState(content, siteKey), versions.map(toVersion));
    },
  };
}
