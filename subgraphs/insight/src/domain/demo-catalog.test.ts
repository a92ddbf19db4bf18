import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { analyse, plan, type CatalogEntry, type SeriesData } from '../engine/index.js';
import { DEMO_DEFINITIONS, demoSeries } from './demo-series.js';

/** The demo shop's catalog as the service hands it to the engine: each name's definition with its series' labels. */
function demoCatalog(): { catalog: CatalogEntry[]; series: SeriesData[] } {
  const series = demoSeries(new Date('2026-11-23T00:00:00Z'), seededRandom(42));
  const catalog = DEMO_DEFINITIONS.map((d): CatalogEntry => {
    const labels = [...new Set(series.filter((s) => s.name === d.name).flatMap((s) => Object.keys(s.labels)))];
    return { name: d.name, ...d.definition, labels } as CatalogEntry;
  });
  return { catalog, series: series.map((s) => ({ name: s.name, labels: { ...s.labels }, points: s.points })) };
}

describe('the demo shop\'s catalog in the engine', () => {
  it('resolves everyday words through its synonyms and plans the series of the formula\'s factors and the drivers', () => {
    const { catalog } = demoCatalog();
    const sales = plan('Why did sales drop last week?', catalog, Date.UTC(2026, 10, 23));
    expect(sales.subject).toMatchObject({ kind: 'metric', name: 'revenue' });
    // The rate and the order value are fetched as the counts they are ratios of (revenue is the subject already).
    expect(sales.requests.filter((r) => r.role === 'factor').map((r) => r.metric)).toEqual(['sessions', 'orders']);
    const traffic = plan('Why did traffic fall yesterday?', catalog, Date.UTC(2026, 10, 23));
    expect(traffic.subject).toMatchObject({ kind: 'metric', name: 'sessions' });
    expect(traffic.requests.filter((r) => r.role === 'driver').map((r) => r.labels)).toEqual([{ channel: 'search' }, { channel: 'social' }, { channel: 'display' }]);
  });

  it('splits last week\'s revenue change over its three factors exactly, the rate and the order value as ratios of the counts', () => {
    const { catalog, series } = demoCatalog();
    const finding = analyse({ question: 'Why did revenue change last week?', catalog, series, now: Date.UTC(2026, 10, 23, 12) });
    expect(finding.status).toBe('analysed');
    expect(finding.subject).toMatchObject({ name: 'revenue', unit: { kind: 'currency', code: 'USD' }, aggregation: 'sum', defaulted: [] });
    const formula = finding.formula!;
    expect(formula).toBeDefined();
    const change = finding.premise!.actual - finding.premise!.comparison;
    const factors = finding.causes.filter((c) => c.view === 'formula');
    expect(factors.map((c) => c.name).sort()).toEqual(['average_order_value', 'conversion_rate', 'sessions']);
    const explained = factors.reduce((sum, c) => sum + c.contribution, 0);
    // The rate and the order value are ratios of the stored counts, so the split is exact.
    expect(Math.abs(change - explained)).toBeLessThan(0.01);
    expect(finding.causes.filter((c) => c.view === 'formula').every((c) => Number.isFinite(c.share))).toBe(true);
  });
});
