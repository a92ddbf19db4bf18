import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { demoStory } from '@svc/kit/demo-story';
import { analyse, type CatalogEntry } from '../engine/index.js';
import { DEMO_DEFINITIONS, demoSeries } from './demo-series.js';

/**
 * The demo's story holds whatever day the platform is first started: each demo question finds
 * its fall last week, starting on the day the story's page version went live, and the README's
 * what-if pays within its interval. (The cms seed publishes the versions on those days.)
 */

const DAY = 86_400_000;
const catalog = DEMO_DEFINITIONS.map((d): CatalogEntry => ({ name: d.name, ...d.definition, ...(d.name === 'ad_spend' ? { labels: ['channel'] } : {}) }) as CatalogEntry);

describe('the demo story', () => {
  it('puts both page changes in the last complete ISO week, three days apart, the crawl\'s healing on the Saturday before and the other crawl\'s outage on the Wednesday before', () => {
    const story = demoStory(new Date('2026-11-25T15:00:00Z'));
    expect(story).toEqual({ week: '2026-11-16', pricingChange: new Date('2026-11-17T09:30:00Z'), newsletterChange: new Date('2026-11-20T10:00:00Z'), newsletterDraft: new Date('2026-11-21T14:00:00Z'), crawlHealing: new Date('2026-11-14T06:00:00Z'), crawlOutage: new Date('2026-11-11T06:00:00Z') });
    expect(demoStory(new Date('2026-11-23T00:00:00Z')).week).toBe('2026-11-16');
    expect(demoStory(new Date('2026-11-22T23:59:59Z')).week).toBe('2026-11-09');
  });

  for (let offset = 0; offset < 7; offset++) {
    const seeded = new Date(Date.UTC(2026, 10, 23 + offset, 8));
    it(`finds each fall on its page's day when seeded on ${seeded.toISOString().slice(0, 10)}`, () => {
      const story = demoStory(seeded);
      const series = demoSeries(seeded, seededRandom(42), { conversionFrom: story.pricingChange, signupsFrom: story.newsletterChange });
      const events = [
        { at: story.pricingChange.getTime(), kind: 'content_published', title: 'pricing v2', ref: 'content:demo:p:v2' },
        { at: story.newsletterChange.getTime(), kind: 'content_published', title: 'newsletter v2', ref: 'content:demo:n:v2' },
        { at: story.crawlHealing.getTime(), kind: 'selector_healed', title: 'crawl job healed its selectors', ref: 'crawl-job:j' },
        { at: story.crawlOutage.getTime(), kind: 'crawl_failed', title: 'supplier crawl job runs started failing', ref: 'crawl-job:s:execution:e' },
      ];
      const day = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY).toISOString().slice(0, 10);
      // The crawl job's items per day as the crawl seed writes them (about 480 a run, about 40 from the healing on), until yesterday.
      const healed = Math.floor(story.crawlHealing.getTime() / DAY) * DAY;
      const crawled = { name: 'crawled_items', labels: {}, points: Array.from({ length: 70 }, (_, i) => healed - 63 * DAY + i * DAY).filter((t) => t < seeded.getTime() - DAY / 2).map((t, i) => ({ t, value: t >= healed ? 38 + (i % 5) : 470 + (i % 11) })) };
      // The supplier job's: about 150 a run, 0 from the outage on (its runs fail).
      const outage = Math.floor(story.crawlOutage.getTime() / DAY) * DAY;
      const stock = { name: 'stock_lines', labels: {}, points: crawled.points.map(({ t }, i) => ({ t, value: t >= outage ? 0 : 146 + (i % 7) })) };
      const ask = (question: string) => analyse({ question, catalog: [...catalog, { name: 'crawled_items' } as CatalogEntry, { name: 'stock_lines' } as CatalogEntry], series: [...series, crawled, stock], events, now: seeded.getTime() });

      const revenue = ask('Why did revenue drop last week? What if we increase search ad spend by 20%?');
      expect(revenue.premise).toMatchObject({ verdict: 'confirmed', observed: 'down' });
      expect(revenue.changePoint?.day).toBe(day(story.pricingChange));
      expect(revenue.events.map((e) => e.event.ref)).toEqual(['content:demo:p:v2']);
      expect(revenue.whatIf?.cost?.pays).toBe(true);

      const conversion = ask('Is the pricing page hurting conversion?');
      expect(conversion.subject?.name).toBe('conversion_rate');
      expect(conversion.changePoint?.day).toBe(day(story.pricingChange));

      const signups = ask('Why did newsletter signups drop last week?');
      expect(signups.premise).toMatchObject({ verdict: 'confirmed', observed: 'down' });
      expect(signups.changePoint?.day).toBe(day(story.newsletterChange));
      expect(signups.events.map((e) => e.event.ref)).toEqual(['content:demo:n:v2']);

      // The crawl's fall began the Saturday before the week: judged against the history before it, with its healing, and no page's.
      const crawl = ask('Why did the crawl collect fewer crawled items last week?');
      expect(crawl.subject?.name).toBe('crawled_items');
      expect(crawl.premise).toMatchObject({ verdict: 'confirmed', observed: 'down', position: 'below' });
      expect(crawl.changePoint?.day).toBe(day(story.crawlHealing));
      expect(crawl.events.map((e) => e.event.ref)).toEqual(['crawl-job:j']);
      expect(revenue.candidates.map((c) => c.metric)).not.toContain('crawled_items');
      expect(revenue.candidates.map((c) => c.metric)).not.toContain('stock_lines');
      expect(crawl.candidates.map((c) => c.metric)).not.toContain('stock_lines');

      // The supplier's runs failing from the Wednesday before: their first failure, and nothing else.
      const supplier = ask('Why did the supplier crawl collect no stock lines last week?');
      expect(supplier.subject?.name).toBe('stock_lines');
      expect(supplier.premise).toMatchObject({ verdict: 'confirmed', observed: 'down', position: 'below' });
      expect(supplier.changePoint?.day).toBe(day(story.crawlOutage));
      expect(supplier.events.map((e) => e.event.ref)).toEqual(['crawl-job:s:execution:e']);
    });
  }
});
