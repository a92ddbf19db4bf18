import { describe, expect, it } from '@jest/globals';
import { contentOf, contentStatus, ContentStatus, VersionStatus, type ContentState, type ContentVersion } from './content.js';

const at = new Date('2026-01-02T03:04:05Z');
const state: ContentState = {
  id: 'c1',
  siteKey: 'demo',
  locale: 'en',
  groupId: 'c1',
  slug: 'welcome',
  latestVersion: 2,
  publishedVersion: null,
  publishedAt: null,
  scheduledAt: null,
  scheduledVersion: null,
  everPublished: false,
  createdAt: at,
  updatedAt: at,
};
const version = (n: number, title: string): ContentVersion => ({ version: n, status: VersionStatus.DRAFT, title, fields: {}, seo: {}, createdAt: at, createdBy: 'ed', publishedAt: null });

describe('contentStatus', () => {
  it('is PUBLISHED while a version is live, whatever is scheduled', () => {
    expect(contentStatus({ publishedVersion: 1, scheduledAt: at, everPublished: true })).toBe(ContentStatus.PUBLISHED);
  });

  it('is SCHEDULED without a live version but with a schedule', () => {
    expect(contentStatus({ publishedVersion: null, scheduledAt: at, everPublished: true })).toBe(ContentStatus.SCHEDULED);
  });

  it('tells a content taken down (UNPUBLISHED) from one never published (DRAFT)', () => {
    expect(contentStatus({ publishedVersion: null, scheduledAt: null, everPublished: true })).toBe(ContentStatus.UNPUBLISHED);
    expect(contentStatus({ publishedVersion: null, scheduledAt: null, everPublished: false })).toBe(ContentStatus.DRAFT);
  });
});

describe('contentOf', () => {
  it('lists versions newest first and takes the title of the newest', () => {
    const content = contentOf(state, [version(1, 'First'), version(2, 'Second')]);
    expect(content.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(content.title).toBe('Second');
    expect(content.status).toBe(ContentStatus.DRAFT);
  });

  it('names the schedule scheduledPublishAt', () => {
    expect(contentOf({ ...state, scheduledAt: at, scheduledVersion: 2 }, [])).toMatchObject({ scheduledPublishAt: at, scheduledVersion: 2, title: '' });
  });
});
