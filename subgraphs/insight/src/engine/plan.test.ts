import { describe, expect, it } from '@jest/globals';
import { HISTORY_DAYS, PARTS, partRequests, plan } from './plan.js';

const catalog = [
  { name: 'gmv_eur', unit: { kind: 'currency' as const, code: 'EUR' }, formula: { product: ['orders', 'basket_eur'] }, drivers: [{ metric: 'ad_clicks', labels: { channel: 'search' }, lagDays: 2 }] },
  { name: 'orders', labels: ['region'] },
  { name: 'basket_eur', aggregation: { ratio: { numerator: 'gmv_eur', denominator: 'orders' } } },
  { name: 'checkout_ratio', aggregation: { ratio: { numerator: 'checkouts', denominator: 'visits' } } },
  { name: 'ad_clicks', labelValues: { channel: ['search', 'social'] } },
];
const now = Date.parse('2026-11-18T10:00:00Z');

describe('plan', () => {
  it('asks for the subject by leaves, its factors, its drivers\' parts as totals, the lever and the other metrics as candidates', () => {
    const p = plan('Why did gmv_eur drop last week? What if we increase search ad clicks by 10%?', catalog, now);
    expect(p.subject).toMatchObject({ kind: 'metric', name: 'gmv_eur', how: 'exact' });
    const window = { from: '2025-09-14', to: '2026-11-18' };
    expect(p.requests).toEqual([
      { metric: 'gmv_eur', role: 'subject', shape: 'total', ...window },
      { metric: 'gmv_eur', role: 'subject', shape: 'leaves', ...window },
      { metric: 'orders', role: 'factor', shape: 'total', ...window },
      // The driver's part (and the lever, the same part) as one total: its whole history, added up where the data is.
      { metric: 'ad_clicks', role: 'driver', shape: 'total', labels: { channel: 'search' }, ...window },
      { metric: 'checkouts', role: 'candidate', shape: 'total', ...window },
      { metric: 'visits', role: 'candidate', shape: 'total', ...window },
      { metric: 'ad_clicks', role: 'candidate', shape: 'total', ...window },
      // No label values as parts: every metric here is declared related to gmv_eur (candidates are what nobody declared).
    ]);
    expect(HISTORY_DAYS).toBe(430);
  });

  it('asks for other metrics\' label values as parts within a budget, skipping labels of too many values and metrics that do not add up', () => {
    const many = Array.from({ length: PARTS.valuesPerLabel + 1 }, (_, i) => `/page/${i}`);
    const p = plan('why did sales fall last week', [
      { name: 'sales', labels: ['region'], labelValues: { region: ['north', 'south'] } },
      { name: 'visits', labels: ['source', 'url'], labelValues: { source: ['search', 'email', 'social'], url: many } },
      { name: 'latency', aggregation: 'mean', labels: ['region'], labelValues: { region: ['north', 'south'] } },
      { name: 'single', labels: ['kind'], labelValues: { kind: ['only'] } },
    ], now);
    expect(p.requests.filter((r) => r.shape === 'parts').map((r) => [r.metric, r.partLabels])).toEqual([['visits', ['source']]]);
    // A factor's driver declared as a whole is read by its label values too, for the chain's last link.
    const q = plan('why did revenue fall last week', [
      { name: 'revenue', formula: { product: ['sessions', 'value_per_session'] } },
      { name: 'sessions', drivers: [{ metric: 'ad_spend' }] }, { name: 'value_per_session', aggregation: 'mean' },
      { name: 'ad_spend', labels: ['channel'], labelValues: { channel: ['search', 'social'] } },
    ], now);
    expect(q.requests.filter((r) => r.shape === 'parts').map((r) => [r.metric, r.role, r.partLabels])).toEqual([['ad_spend', 'driver', ['channel']]]);
    // So is the subject's own driver declared as a whole.
    expect(plan('why did sessions fall last week', [
      { name: 'sessions', drivers: [{ metric: 'ad_spend' }] },
      { name: 'ad_spend', labels: ['channel'], labelValues: { channel: ['search', 'social'] } },
    ], now).requests.filter((r) => r.shape === 'parts').map((r) => [r.metric, r.role, r.partLabels])).toEqual([['ad_spend', 'driver', ['channel']]]);
  });

  it('asks, once the leaves are read, for the part a question names as a total of its own (a ratio\'s by its parts)', () => {
    const t = Date.parse('2026-11-17T00:00:00Z');
    // The catalog lists no label values here: the leaves read name them.
    const leaves = ['mobile', 'desktop'].flatMap((device) => ['gmv_eur', 'checkouts', 'visits'].map((name) => ({ name, labels: { device }, points: [{ t, value: 1 }] })));
    const parts = (q: string) => partRequests(q, [...catalog, { name: 'checkouts' }, { name: 'visits' }], leaves, now).map((r) => [r.metric, r.role, r.shape, r.labels, r.from, r.to]);
    expect(parts('Why did mobile gmv_eur drop last week?')).toEqual([['gmv_eur', 'subject', 'total', { device: 'mobile' }, '2025-09-14', '2026-11-18']]);
    expect(parts('why did the mobile checkout ratio fall yesterday')).toEqual([
      ['checkouts', 'numerator', 'total', { device: 'mobile' }, '2025-09-14', '2026-11-18'], ['visits', 'denominator', 'total', { device: 'mobile' }, '2025-09-14', '2026-11-18'],
    ]);
    expect(parts('Why did gmv_eur drop last week?')).toEqual([]);
  });

  it('asks for a ratio subject\'s numerator and denominator, never the ratio itself', () => {
    const p = plan('why did the checkout ratio fall yesterday', catalog, now);
    expect(p.requests.filter((r) => r.role === 'numerator' || r.role === 'denominator').map((r) => [r.metric, r.role, r.shape])).toEqual([
      ['checkouts', 'numerator', 'total'], ['checkouts', 'numerator', 'leaves'], ['visits', 'denominator', 'total'], ['visits', 'denominator', 'leaves'],
    ]);
  });

  it('answers a bare what-if for the metric that declares the lever as a driver', () => {
    expect(plan('What if we increase search ad clicks by 20%?', catalog, now).subject).toEqual({ kind: 'metric', name: 'gmv_eur', how: 'lever-target', others: [] });
  });

  it('takes the metric named inside a what-if clause before the lever\'s target, and a why clause\'s metric even when it is the lever', () => {
    expect(plan('What would happen to orders if we increase search ad clicks by 20%?', catalog, now).subject).toMatchObject({ kind: 'metric', name: 'orders' });
    expect(plan('Why did ad_clicks fall? What if we raise ad clicks by 10%?', catalog, now).subject).toMatchObject({ kind: 'metric', name: 'ad_clicks', how: 'exact' });
  });

  it('asks for nothing when the metric is unknown', () => {
    expect(plan('why did churn rise', catalog, now)).toMatchObject({ subject: { kind: 'unknown' }, requests: [] });
  });
});
