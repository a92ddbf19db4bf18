import { describe, expect, it } from '@jest/globals';
import { etagOf } from './cache-keys.js';
import { VersionStatus, type ContentState, type ContentVersion } from './content.js';
import { deliveryOf, publishedContent } from './delivery.js';

const at = new Date('2026-01-02T03:04:05Z');
const content: ContentState = {
  id: 'c1',
  siteKey: 'demo',
  slug: 'welcome',
  latestVersion: 3,
  publishedVersion: 2,
  publishedAt: new Date('2026-02-01T00:00:00Z'),
  scheduledAt: null,
  scheduledVersion: null,
  everPublished: true,
  createdAt: at,
  updatedAt: at,
};
const live: ContentVersion = {
  version: 2,
  status: VersionStatus.PUBLISHED,
  title: 'Welcome',
  fields: { headline: 'Hi', description: 'About us' },
  seo: {},
  createdAt: at,
  createdBy: 'ed',
  publishedAt: at,
};

describe('publishedContent', () => {
  it('fills every field (null when empty), resolves SEO and keeps a stable member order for the ETag', () => {
    const published = publishedContent(content, live);
    expect(JSON.stringify(published)).toBe(
      JSON.stringify({
        contentId: 'c1',
        slug: 'welcome',
        title: 'Welcome',
        status: 'PUBLISHED',
        publishedAt: '2026-01-02T03:04:05.000Z',
        version: 2,
        fields: { headline: 'Hi', description: 'About us', bannerUrl: null, ctaText: null, ctaLink: null },
        seo: { metaTitle: 'Welcome', metaDescription: 'About us', ogImage: '' },
      }),
    );
  });

  it('takes publishedAt from the content when the version has none', () => {
    expect(publishedContent(content, { ...live, publishedAt: null }).publishedAt).toBe('2026-02-01T00:00:00.000Z');
  });
});

describe('deliveryOf', () => {
  it('tags the delivery with the ETag of the content and the surrogate keys of content and site', () => {
    const published = publishedContent(content, live);
    expect(deliveryOf('demo', 'welcome', published, 60)).toEqual({
      etag: etagOf(published),
      maxAgeSeconds: 60,
      surrogateKeys: ['svc-content-demo-welcome', 'svc-site-demo'],
      content: published,
    });
  });
});
