import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '@svc/kit';
import { seedSite, type SiteSeed } from './store/seed-store.js';

export const DEMO_SITE_KEY = 'demo';
export const DEMO_FORM_KEY = 'contact';

const DEMO: SiteSeed = {
  siteKey: DEMO_SITE_KEY,
  name: 'Demo site',
  contents: [
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
  ],
  forms: [
    {
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
    },
  ],
};

/** The embedded demo: site `demo`, three published contents and the `contact` form. Idempotent. */
export async function seedDemo(orm: MikroORM, log: Logger): Promise<void> {
  if (await seedSite(orm, DEMO, 'seed')) {
    log.info({ siteKey: DEMO_SITE_KEY, contents: DEMO.contents.map((c) => c.slug), form: DEMO_FORM_KEY }, 'demo content seeded');
  }
}
