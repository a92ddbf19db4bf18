import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { answerFirstSentence } from './answer.js';
import { withDefaults } from './catalog.js';
import { addDays } from './days.js';
import { displayed, displayOf } from './display.js';
import { narrate } from './narrative.js';
import { generateLeaves } from './synthetic-series.js';

const display = displayOf([
  withDefaults({ name: 'ad_spend', display: { name: 'Ad spend', labels: { channel: 'channel' }, values: { channel: { search: 'Search ads', tv: 'Television' } } } }),
  withDefaults({ name: 'conversion_rate', display: { name: 'Conversion rate' } }),
  withDefaults({ name: 'orders', display: { name: 'Orders placed' } }),
  withDefaults({ name: 'geo.visits', display: { values: { region: { 'us-east': 'US East' } } } }),
]);

describe('displayed', () => {
  it('puts the declared words in place of identifiers and label values, and leaves the rest as it is', () => {
    expect(displayed('conversion_rate fell 12 %, driven by ad_spend (channel=search), −70 %.', display)).toBe('Conversion rate fell 12 %, driven by Ad spend (Search ads), −70 %.');
    expect(displayed('The segment region=us-east accounts for −$1,200; region=eu for −$300.', display)).toBe('The segment US East (region) accounts for −$1,200; region=eu for −$300.');
    // A value without words of its own keeps its name, beside the label's words.
    expect(displayed('channel=radio, then channel=tv.', display)).toBe('radio (channel), then Television (channel).');
    expect(displayed('ad_spend (channel=radio) and ad_spend (channel=search, device=tv)', display)).toBe('Ad spend (radio channel) and Ad spend (Search ads (channel), device=tv)');
    // A plain word is not an identifier: it also counts things ("1,204 orders").
    expect(displayed('orders fell to 1,204 orders.', display)).toBe('orders fell to 1,204 orders.');
    // Not part of a longer name, not a label value, not the question's own quoted words.
    expect(displayed('conversion_rate_v2 and plan=conversion_rate and "raise ad_spend by 10%"', display)).toBe('conversion_rate_v2 and plan=conversion_rate and "raise ad_spend by 10%"');
    expect(displayed('Raise ad_spend{channel=search} by 20 %', display)).toBe('Raise Ad spend{Search ads (channel)} by 20 %');
    expect(displayed('anything at all', undefined)).toBe('anything at all');
    const lower = displayOf([withDefaults({ name: 'ad_spend', display: { name: 'ad spend' } })]);
    expect(displayed('ad_spend fell. Then ad_spend rose; so did ad_spend.', lower)).toBe('Ad spend fell. Then ad spend rose; so did ad spend.');
    expect(displayed('ad_spend', lower, { sentence: false })).toBe('ad spend');
    expect(displayOf([withDefaults({ name: 'plain' })])).toBeUndefined();
  });

  it('rewrites long text with many declared names', () => {
    const many = displayOf([withDefaults({ name: 'm_0', display: { name: 'M', values: { k: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`v${i}`, `V ${i}`])) } } })]);
    const text = `${'k=v1 '.repeat(2_000)}${'m_0 '.repeat(2_000)}${'x'.repeat(50_000)}=`;
    const out = displayed(text, many);
    expect(out.startsWith('V 1 (k) V 1 (k)')).toBe(true);
    expect(out).toContain('M M M');
  });
});

describe('an answer in the catalog\'s words', () => {
  it('names the metric and the segment as declared, and keeps the names in the structured fields', () => {
    const now = Date.parse('2026-11-18T10:00:00Z');
    const start = addDays('2026-11-17', -199);
    const series = generateLeaves('checkout_gmv', { region: ['r_n', 'r_s', 'r_w'] }, { start, days: 200, level: 500, seed: 3, noise: 0.02 }, (l, d) => (d >= '2026-11-10' && l.region === 'r_s' ? 0.3 : 1));
    const catalog = [{ name: 'checkout_gmv', unit: { kind: 'currency' as const, code: 'EUR' }, labels: ['region'], display: { name: 'Checkout takings', labels: { region: 'sales region' }, values: { region: { r_s: 'the South' } } } }];
    const f = analyse({ question: 'Why did checkout_gmv drop last week?', catalog, series, now });
    expect(f.causes[0]?.name).toBe('region=r_s');
    const first = answerFirstSentence(f);
    expect(first).toMatch(/^Checkout takings fell /);
    expect(first).toContain('comes from the South (sales region)');
    expect(first).not.toMatch(/checkout_gmv|r_s/);
    const said = narrate(f).statements.map((s) => s.text).join(' ');
    expect(said).not.toMatch(/checkout_gmv|region=r_s/);
    expect(said).toContain('the South (sales region)');
  });
});
