import type { ContentFields, Seo } from './seo.js';

/** Publication state of a content as a whole, derived from its row (see {@link contentStatus}). */
export enum ContentStatus {
  DRAFT = 'DRAFT',
  SCHEDULED = 'SCHEDULED',
  PUBLISHED = 'PUBLISHED',
  UNPUBLISHED = 'UNPUBLISHED',
}

/** At most one version of a content is PUBLISHED; the database enforces it with a partial unique index. */
export enum VersionStatus {
  DRAFT = 'DRAFT',
  PUBLISHED = 'PUBLISHED',
  SUPERSEDED = 'SUPERSEDED',
  UNPUBLISHED = 'UNPUBLISHED',
}

/** The editable text of a version. */
export interface VersionText {
  title: string;
  fields: ContentFields;
  seo: Seo;
}

export interface ContentVersion extends VersionText {
  version: number;
  status: VersionStatus;
  createdAt: Date;
  createdBy: string | null;
  publishedAt: Date | null;
}

/** A content's own record: which version is newest, live and scheduled. */
export interface ContentState {
  id: string;
  siteKey: string;
  /** The locale of this row; the rows of one content (its translations) share groupId. */
  locale: string;
  groupId: string;
  slug: string;
  latestVersion: number;
  publishedVersion: number | null;
  publishedAt: Date | null;
  scheduledAt: Date | null;
  scheduledVersion: number | null;
  /** Once published, a content without a live version is UNPUBLISHED rather than a DRAFT. */
  everPublished: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What publishing, unpublishing and scheduling change on a content's record. */
export type ContentChanges = Partial<Pick<ContentState, 'publishedVersion' | 'publishedAt' | 'scheduledAt' | 'scheduledVersion' | 'everPublished'>>;

/** An authored content with its derived status and its whole history. */
export interface Content {
  id: string;
  siteKey: string;
  locale: string;
  groupId: string;
  slug: string;
  status: ContentStatus;
  /** Title of the latest version. */
  title: string;
  latestVersion: number;
  publishedVersion: number | null;
  publishedAt: Date | null;
  scheduledPublishAt: Date | null;
  scheduledVersion: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** Newest first. */
  versions: ContentVersion[];
}

export function contentStatus(state: Pick<ContentState, 'publishedVersion' | 'scheduledAt' | 'everPublished'>): ContentStatus {
  if (state.publishedVersion) return ContentStatus.PUBLISHED;
  if (state.scheduledAt) return ContentStatus.SCHEDULED;
  return state.everPublished ? ContentStatus.UNPUBLISHED : ContentStatus.DRAFT;
}

export function contentOf(state: ContentState, versions: readonly ContentVersion[]): Content {
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  return {
    id: state.id,
    siteKey: state.siteKey,
    locale: state.locale,
    groupId: state.groupId,
    slug: state.slug,
    status: contentStatus(state),
    title: sorted[0]?.title ?? '',
    latestVersion: state.latestVersion,
    publishedVersion: state.publishedVersion,
    publishedAt: state.publishedAt,
    scheduledPublishAt: state.scheduledAt,
    scheduledVersion: state.scheduledVersion,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    versions: sorted,
  };
}
