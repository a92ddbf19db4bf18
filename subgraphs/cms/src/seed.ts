import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '@svc/kit';
import { demoStory } from '@svc/kit/demo-story';
import { seedSite, type SiteSeed } from './store/seed-store.js';

export const DEMO_SITE_KEY = 'demo';
export const DEMO_FORM_KEY = 'contact';

const DAY = 86_400_000;

/**
 * The demo site as seeded at `now`. Its story (kit's `demoStory`, which the analysis service's
 * demo figures follow): last week version 2 of `pricing` went live on the day the shop's
 * conversion fell, and version 2 of `newsletter` on the day newsletter sign-ups fell, with a
 * draft (version 3) waiting that still carries its weaker call to action.
 */
export function demoSite(now: Date): SiteSeed {
  const story = demoStory(now);
  const longAgo = new Date(now.getTime() - 365 * DAY);
  const pricing = { headline: 'Simple pricing', description: 'Pay for what you run.', bannerUrl: 'https://cdn.example.com/banners/pricing.png', ctaText: 'Contact sales', ctaLink: '/contact' };
  const newsletter = { headline: 'Stay in the loop', description: 'One e-mail a month: what shipped and what comes next.', bannerUrl: null, ctaText: 'Subscribe', ctaLink: '/newsletter/subscribe' };
  const weaker = { ...newsletter, ctaText: 'Read the blog', ctaLink: '/blog' };
  return {
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
        fields: pricing,
        seo: {},
        publishedAt: longAgo,
        later: [{ title: 'Pricing', fields: { ...pricing, headline: 'Plans for teams', ctaText: 'Request a quote', ctaLink: '/quote' }, seo: {}, at: story.pricingChange, publish: true }],
      },
      {
        slug: 'newsletter',
        title: 'Newsletter',
        fields: newsletter,
        seo: { metaDescription: 'The Svc Platform newsletter.' },
        publishedAt: longAgo,
        later: [
          { title: 'Newsletter', fields: weaker, seo: { metaDescription: 'The Svc Platform newsletter.' }, at: story.newsletterChange, publish: true },
          { title: 'Newsletter', fields: { ...weaker, description: 'One e-mail a month, no spam: what shipped and what comes next.' }, seo: { metaDescription: 'The Svc Platform newsletter.' }, at: story.newsletterDraft, publish: false },
        ],
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
}

/** The embedded demo: site `demo`, four published contents (two with last week's versions) and the `contact` form. Idempotent. */
export async function seedDemo(orm: MikroORM, log: Logger): Promise<void> {
  const site = demoSite(new Date());
  if (await seedSite(orm, site, 'seed')) {
    log.info({ siteKey: DEMO_SITE_KEY, contents: site.contents.map((c) => c.slug), form: DEMO_FORM_KEY }, 'demo content seeded');
  }
}
