import type { MetricStore, StoredSeries } from '../../store/metric-store.js';
import type { CatalogEntry, MetricSourceAdapter } from './metric-source.js';

/** Series ingested through the API (and the demo seed), kept in the `insight` schema. */
export function storeSource(store: MetricStore): MetricSourceAdapter {
  return {
    kind: 'store',
    async serves(name, caller) {
      return store.has(caller.tenantId, name);
    },
    async catalog(caller, grouping) {
      const entry = (s: StoredSeries): CatalogEntry => ({ name: s.name, labels: s.labels, unit: s.unit, source: 'store', points: s.points, first: s.first, last: s.last });
      if (!grouping) return (await store.list(caller.tenantId)).map(entry);
      // Summed up where the data is: a metric of many series never comes to Node series by series.
      const counts = await store.seriesCounts(caller.tenantId);
      if ([...counts.values()].reduce((a, b) => a + b, 0) <= grouping.listAllUpTo) return (await store.list(caller.tenantId)).map(entry);
      const few = [...counts].filter(([, n]) => n <= grouping.perName).map(([name]) => name);
      const many = [...counts].filter(([, n]) => n > grouping.perName).map(([name]) => name);
      const [listed, summed] = await Promise.all([few.length ? store.list(caller.tenantId, few) : [], many.length ? store.summaries(caller.tenantId, many, grouping.valuesListed) : []]);
      const grouped = summed.map((m): CatalogEntry => ({
        name: m.name, labels: {}, unit: m.unit, source: 'store', points: m.points, first: m.first, last: m.last, series: counts.get(m.name)!, labelValues: m.labelValues, labelValueCounts: m.labelValueCounts,
      }));
      return [...listed.map(entry), ...grouped].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async names(caller) {
      return (await store.names(caller.tenantId)).map((s) => ({ ...s, source: 'store' as const }));
    },
    async daily(caller, query) {
      const series = await store.daily(caller.tenantId, { name: query.name, labels: query.labels, from: new Date(query.from), to: new Date(query.to), how: query.how, shape: query.shape, ...(query.partLabels ? { partLabels: query.partLabels } : {}), ...(query.windows ? { windows: query.windows.map((w) => ({ from: new Date(w.from), to: new Date(w.to) })) } : {}), ...(query.limit ? { limit: query.limit } : {}) });
      return series.map((s) => ({ name: query.name, labels: s.labels, source: 'store' as const, points: s.points }));
    },
    async lookup(caller, query, limit) {
      const series = await store.seriesWithPoints(caller.tenantId, query.name, query.labels, new Date(query.from), new Date(query.to), limit + 1);
      return series.map((s) => ({ name: s.name, labels: s.labels, source: 'store' as const, ...(s.unit ? { unit: s.unit } : {}), points: s.points }));
    },
  };
}
