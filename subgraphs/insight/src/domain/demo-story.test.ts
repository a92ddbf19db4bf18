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
  it('puts both page changes in the last complete ISO week, three days apart', () => {
    const story = demoStory(new Date('2026-11-25T15:00:00Z'));
    expect(story).toEqual({ week: '2026-11-16', pricingChange: new Date('2026-11-17T09:30:00Z'), newsletterChange: new Date('2026-11-20T10:00:00Z'), newsletterDraft: new Date('2026-11-21T14:00:00Z') });
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
      ];
      const day = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY).toISOString().slice(0, 10);
      const ask = (question: string) => analyse({ question, catalog, series, events, now: seeded.getTime() });

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
    });
  }
});
