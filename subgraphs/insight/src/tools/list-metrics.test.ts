import { describe, expect, it } from '@jest/globals';
import type { CatalogEntry } from '../service/sources/metric-source.js';
import { listMetrics } from './list-metrics.js';
import type { ToolContext } from './tool.js';

const day = (d: number) => new Date(Date.UTC(2026, 10, d));
const entry = (name: string, labels: Record<string, string>, points = 15, first = 1, last = 15): CatalogEntry => ({ name, labels, unit: 'count', source: 'store', points, first: day(first), last: day(last) });

async function list(catalog: CatalogEntry[]) {
  const ctx = { metrics: { catalog: async () => catalog }, caller: {} } as unknown as ToolContext;
  const result = await listMetrics.run(ctx, { name: '' });
  return { metrics: (result.data as { metrics: Record<string, unknown>[] }).metrics, summary: result.summary };
}

describe('list_metrics', () => {
  it('lists a small catalog series by series', async () => {
    const { metrics } = await list([entry('orders', { region: 'eu' }), entry('orders', { region: 'us' })]);
    expect(metrics.map((m) => m.labels)).toEqual([{ region: 'eu' }, { region: 'us' }]);
  });

  it('sums up a metric of thousands of series in one entry with its label values, keeping small metrics series by series', async () => {
    const leaves: CatalogEntry[] = [];
    for (let p = 0; p < 40; p++) for (let i = 0; i < 10; i++) leaves.push(entry('edge_bytes', { province: `p${String(p).padStart(2, '0')}`, isp: `i${i}` }, 15, 1 + (p % 3), 15 + (i % 2)));
    const { metrics, summary } = await list([...leaves, entry('visits', {}), entry('visits', { channel: 'ads' })]);
    expect(metrics).toHaveLength(3);
    const edge = metrics.find((m) => m.name === 'edge_bytes')!;
    expect(edge).toMatchObject({ labels: {}, series: 400, points: 6000, first: '2026-11-01', last: '2026-11-16', labelValueCounts: { province: 40, isp: 10 } });
    expect((edge.labelValues as Record<string, string[]>).province).toHaveLength(20);
    expect(metrics.filter((m) => m.name === 'visits').map((m) => m.labels)).toEqual([{}, { channel: 'ads' }]);
    expect(summary).toContain('edge_bytes (400 series)');
  });
});
