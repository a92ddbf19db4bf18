import type { MetricStore } from '../../store/metric-store.js';
import type { MetricSourceAdapter } from './metric-source.js';

/** Series ingested through the API (and the demo seed), kept in the `insight` schema. */
export function storeSource(store: MetricStore): MetricSourceAdapter {
  return {
    kind: 'store',
    async serves(name, caller) {
      return store.has(caller.tenantId, name);
    },
    async catalog(caller) {
      return (await store.list(caller.tenantId)).map((s) => ({ name: s.name, labels: s.labels, unit: s.unit, source: 'store' as const, points: s.points, first: s.first, last: s.last }));
    },
    async names(caller) {
      return (await store.names(caller.tenantId)).map((s) => ({ ...s, source: 'store' as const }));
    },
    async daily(caller, query) {
      const series = await store.daily(caller.tenantId, { name: query.name, labels: query.labels, from: new Date(query.from), to: new Date(query.to), how: query.how, shape: query.shape });
      return series.map((s) => ({ name: query.name, labels: s.labels, source: 'store' as const, points: s.points }));
    },
    async lookup(caller, query, limit) {
      const series = await store.seriesWithPoints(caller.tenantId, query.name, query.labels, new Date(query.from), new Date(query.to), limit + 1);
      return series.map((s) => ({ name: s.name, labels: s.labels, source: 'store' as const, ...(s.unit ? { unit: s.unit } : {}), points: s.points }));
    },
  };
}
