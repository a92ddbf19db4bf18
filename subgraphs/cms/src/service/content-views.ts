import { ContentStatus, VersionStatus, type Content, type ContentVersion } from '../schema/content-types.js';

export interface ContentRow {
  id: string;
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

export function contentStatus(row: ContentRow): ContentStatus {
  if (row.publishedVersion) return ContentStatus.PUBLISHED;
  if (row.scheduledAt) return ContentStatus.SCHEDULED;
  return row.everPublished ? ContentStatus.UNPUBLISHED : ContentStatus.DRAFT;
}

export function toContent(row: ContentRow, siteKey: string, versions: ContentVersion[]): Content {
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  return {
    id: row.id,
    siteKey,
    slug: row.slug,
    status: contentStatus(row),
    title: sorted[0]?.title ?? '',
    latestVersion: row.latestVersion,
    publishedVersion: row.publishedVersion ?? null,
    publishedAt: row.publishedAt ?? null,
    scheduledPublishAt: row.scheduledAt ?? null,
    scheduledVersion: row.scheduledVersion ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    versions: sorted,
  };
}

export function toVersion(row: { version: number; status: string; title: string; fields: object; seo: object; createdAt: Date; createdBy?: string | null; publishedAt?: Date | null }): ContentVersion {
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
