import type { MetricStore } from '../../store/metric-store.js';
import type { MetricSourceAdapter } from './metric-source.js';

/** Series ingested through the API (and the demo seed), kept in the `insight` schema. */
export function storeSource(store: MetricStore): MetricSourceAdapter {
  return {
    kind: 'store',
    async serves(name, caller) {
      return (await store.find(caller.tenantId, name, {})).length > 0;
    },
    async catalog(caller) {
      return (await store.list(caller.tenantId)).map((s) => ({ name: s.name, labels: s.labels, unit: s.unit, source: 'store' as const, points: s.points, first: s.first, last: s.last }));
    },
    async names(caller) {
      return (await store.names(caller.tenantId)).map((s) => ({ ...s, source: 'store' as const }));
    },
    async lookup(caller, query, limit) {
      const series = await store.find(caller.tenantId, query.name, query.labels);
      return Promise.all(
        series.map(async (s) => ({
          name: s.name,
          labels: s.labels,
          source: 'store' as const,
          ...(s.unit ? { unit: s.unit } : {}),
          points: await store.points(s.id, new Date(query.from), new Date(query.to), limit + 1),
        })),
      );
    },
  };
}
