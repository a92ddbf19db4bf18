import type { ContentState, ContentVersion, VersionStatus } from '../domain/content.js';
import type { ContentFields, Seo } from '../domain/seo.js';

/** The columns of cms.content that make up its state (the site comes separately). */
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
