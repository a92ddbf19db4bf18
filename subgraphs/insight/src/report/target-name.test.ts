import { describe, expect, it } from '@jest/globals';
import { displayed, type Display } from '../engine/display.js';
import { targetNameOf, type KnownTargets } from './target-name.js';

const known: KnownTargets = {
  contents: new Map([['c1', { title: 'Pricing', slug: 'pricing', locale: 'en', siteKey: 'demo' }]]),
  crawlJobs: new Map([['j1', 'supplier news']]),
};
const display: Display = { metrics: { ad_spend: 'ad spend' }, labels: { channel: 'channel' }, values: { channel: { search: 'search ads' } } };

describe('a proposal target in the report\'s words', () => {
  it('names an external lever as the analysis does, which the catalog\'s words then write for a person', () => {
    const lever = { targetType: 'External' as const, targetId: 'ad_spend{channel=search}', params: { lever: 'ad_spend{channel=search}', change: { metric: 'ad_spend', labels: { channel: 'search' }, changePercent: 20 } } };
    expect(targetNameOf(lever, known)).toBe('ad_spend (channel=search)');
    expect(displayed(targetNameOf(lever, known)!, display)).toBe('Ad spend (search ads)');
    expect(targetNameOf({ ...lever, targetId: 'ad_spend', params: { change: { metric: 'ad_spend', labels: {} } } }, known)).toBe('ad_spend');
  });

  it('names a change the tenant made by its event\'s title and ref', () => {
    const revert = { targetType: 'External' as const, targetId: 'deploy-42', params: { lever: 'deploy-42', change: { revert: { ref: 'deploy-42', kind: 'deploy', title: 'Checkout redesign', at: '2026-11-30T00:00:00.000Z' } } } };
    expect(targetNameOf(revert, known)).toBe('“Checkout redesign” (deploy-42)');
  });

  it('names a page by its title and the page as the report writes it, a crawl job by its name, an agent by its code', () => {
    expect(targetNameOf({ targetType: 'Content', targetId: 'c1', params: {} }, known)).toBe('“Pricing”, page "pricing" (en, site demo)');
    expect(targetNameOf({ targetType: 'CrawlJob', targetId: 'j1', params: {} }, known)).toBe('crawl job "supplier news"');
    expect(targetNameOf({ targetType: 'Agent', targetId: 'shop-assistant', params: {} }, known)).toBe('agent shop-assistant');
  });

  it('has no name for what the analysis did not read', () => {
    expect(targetNameOf({ targetType: 'Content', targetId: 'c9', params: {} }, known)).toBeUndefined();
    expect(targetNameOf({ targetType: 'CrawlJob', targetId: 'j9', params: {} }, known)).toBeUndefined();
    expect(targetNameOf({ targetType: 'External', targetId: 'x', params: { lever: 'x', change: {} } }, known)).toBeUndefined();
  });
});
