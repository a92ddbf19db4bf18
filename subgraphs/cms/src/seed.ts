import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '@svc/kit';
import { VersionStatus } from './schema/content-types.js';
import { ContentEntity, ContentVersionEntity, FormEntity, SiteEntity } from './store/entities.js';

export const DEMO_SITE_KEY = 'demo';
export const DEMO_FORM_KEY = 'contact';

const CONTENTS = [
  {
    slug: 'welcome',
    title: 'Welcome to Svc Platform',
    fields: {
      headline: 'One graph for analysis, models, crawling and content',
      description: 'Headless delivery with SEO data, validated forms and cache purging across Redis and edge caches.',
      bannerUrl: 'https://cdn.example.com/banners/welcome.png',
      ctaText: 'Get started',
      ctaLink: '/docs/getting-started',
    },
    seo: { metaTitle: 'Svc Platform: welcome' },
  },
  {
    slug: 'pricing',
    title: 'Pricing',
    fields: { headline: 'Simple pricing', description: 'Pay for what you run.', bannerUrl: 'https://cdn.example.com/banners/pricing.png', ctaText: 'Contact sales', ctaLink: '/contact' },
    seo: {},
  },
  {
    slug: 'about',
    title: 'About us',
    fields: { headline: 'Who we are', description: 'A small team building a calm platform.', bannerUrl: null, ctaText: null, ctaLink: null },
    seo: { metaDescription: 'The team behind Svc Platform.' },
  },
];

/** The embedded demo: site `demo`, three published contents and the `contact` form. Idempotent. */
export async function seedDemo(orm: MikroORM, log: Logger): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    if (await em.findOne(SiteEntity, { siteKey: DEMO_SITE_KEY })) return;
    const site = em.create(SiteEntity, { siteKey: DEMO_SITE_KEY, name: 'Demo site' });
    const now = new Date();
    for (const c of CONTENTS) {
      const content = em.create(ContentEntity, { site, slug: c.slug, latestVersion: 1, publishedVersion: 1, publishedAt: now, everPublished: true });
      em.create(ContentVersionEntity, { content, version: 1, status: VersionStatus.PUBLISHED, title: c.title, fields: c.fields, seo: c.seo, createdBy: 'seed', publishedAt: now });
    }
    em.create(FormEntity, {
      site,
      formKey: DEMO_FORM_KEY,
      name: 'Contact us',
      honeypotField: 'website',
      fields: [
        { name: 'applicantName', type: 'text', required: true, maxLength: 100, label: 'Name' },
        { name: 'email', type: 'email', required: true, maxLength: 254, label: 'E-mail' },
        { name: 'company', type: 'text', required: false, maxLength: 200, label: 'Company' },
        { name: 'inquiryType', type: 'enum', required: true, options: ['GENERAL', 'SALES', 'SUPPORT', 'PARTNERSHIP'], label: 'Inquiry type' },
        { name: 'message', type: 'textarea', required: true, maxLength: 5000, label: 'Message' },
      ],
    });
    log.info({ siteKey: DEMO_SITE_KEY, contents: CONTENTS.map((c) => c.slug), form: DEMO_FORM_KEY }, 'demo content seeded');
  });
}
