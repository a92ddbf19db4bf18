import { contentOf, type Content, type ContentState, type ContentVersion, type VersionStatus } from '../domain/content.js';
import type { ContentFields, Seo } from '../domain/seo.js';

/** The columns of cms.content that make up its state (the site comes separately). */
export interface ContentRow {
  id: string;
  locale: string;
  groupId: string;
  slug: string;
  latestVersion: number;
  publishedVersion?: number | null;
  publishedAt?: Date | null;
  scheduledAt?: Date | null;
  scheduledVersion?: number | null;
  everPublished: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionRow {
  version: number;
  status: string;
  title: string;
  fields: ContentFields;
  seo: Seo;
  createdAt: Date;
  createdBy?: string | null;
  publishedAt?: Date | null;
}

export function toState(row: ContentRow, siteKey: string): ContentState {
  return {
    id: row.id,
    siteKey,
    locale: row.locale,
    groupId: row.groupId,
    slug: row.slug,
    latestVersion: row.latestVersion,
    publishedVersion: row.publishedVersion ?? null,
    publishedAt: row.publishedAt ?? null,
    scheduledAt: row.scheduledAt ?? null,
    scheduledVersion: row.scheduledVersion ?? null,
    everPublished: row.everPublished,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

// Copies: the fields and seo objects of a managed entity must not leak out to be changed.
export function toVersion(row: VersionRow): ContentVersion {
  return {
    version: row.version,
    status: row.status as VersionStatus,
    title: row.title,
    fields: { ...row.fields },
    seo: { ...row.seo },
    createdAt: row.createdAt,
    createdBy: row.createdBy ?? null,
    publishedAt: row.publishedAt ?? null,
  };
}

/** A timestamp column as the pool answers it (text, as the ORM's type parsers leave it) or as a Date. */
export type Timestamp = Date | string;

export const dateOf = (value: Timestamp): Date => new Date(value);
export const dateOrNull = (value: Timestamp | null): Date | null => (value === null ? null : new Date(value));

/** A row of cms.content joined with its site's key and one of its versions (none: a content without versions), as read on the pool. */
export interface ContentVersionJoin {
  id: string;
  locale: string;
  group_id: string;
  slug: string;
  latest_version: number;
  published_version: number | null;
  published_at: Timestamp | null;
  scheduled_at: Timestamp | null;
  scheduled_version: number | null;
  ever_published: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  site_key: string;
  version: number | null;
  status: string | null;
  title: string | null;
  fields: ContentFields | null;
  seo: Seo | null;
  version_created_at: Timestamp | null;
  created_by: string | null;
  version_published_at: Timestamp | null;
}

/** Contents with their versions from joined rows, in the order their ids first appear. */
export function contentsOfJoin(rows: readonly ContentVersionJoin[]): Content[] {
  const byId = new Map<string, { state: ContentState; versions: ContentVersion[] }>();
  for (const row of rows) {
    let entry = byId.get(row.id);
    if (!entry) {
      const state = toState({
        id: row.id, locale: row.locale, groupId: row.group_id, slug: row.slug, latestVersion: row.latest_version, publishedVersion: row.published_version, publishedAt: dateOrNull(row.published_at),
        scheduledAt: dateOrNull(row.scheduled_at), scheduledVersion: row.scheduled_version, everPublished: row.ever_published, createdAt: dateOf(row.created_at), updatedAt: dateOf(row.updated_at),
      }, row.site_key);
      byId.set(row.id, (entry = { state, versions: [] }));
    }
    if (row.version === null) continue;
    entry.versions.push(toVersion({
      version: row.version, status: row.status!, title: row.title!, fields: row.fields ?? {}, seo: row.seo ?? {},
      createdAt: dateOf(row.version_created_at!), createdBy: row.created_by, publishedAt: dateOrNull(row.version_published_at),
    }));
  }
  return [...byId.values()].map(({ state, versions }) => contentOf(state, versions));
}
