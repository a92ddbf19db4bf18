import { parseInput, requireRole, SvcError, validationError, type TenantRequest } from '@svc/kit';
import { aggregate, METRIC_LIMITS, sumSeries, type Point, type Series } from '../domain/metric.js';
import { ingestBatch, ingestDefinitions, ingestInputSchema, lookupInputSchema, metricQuery, removeInputSchema, reservedLabelProblems } from '../domain/metric-input.js';
import type { DefinitionStore } from '../store/definition-store.js';
import type { MetricStore } from '../store/metric-store.js';
import { scoped } from './jobs.js';
import { inWindows, type Caller, type CatalogEntry, type CatalogGrouping, type DailyQuery, type MetricSourceAdapter } from './sources/metric-source.js';

/** Averages several series point by point (a mean-aggregated metric's labelled series). */
function meanSeries(series: readonly (readonly Point[])[]): Point[] {
  const totals = new Map<number, { sum: number; n: number }>();
  for (const points of series) for (const p of points) {
    const t = totals.get(p.t) ?? { sum: 0, n: 0 };
    t.sum += p.value;
    t.n += 1;
    totals.set(p.t, t);
  }
  return [...totals.entries()].sort((a, b) => a[0] - b[0]).map(([t, { sum, n }]) => ({ t, value: sum / n }));
}

/** Each value of each of `labels`, its series added up (`sum`) or averaged: the `parts` shape for a source that cannot group where its data is. */
function partsOf(series: readonly Series[], labels: readonly string[], how: DailyQuery['how']): Series[] {
  const out: Series[] = [];
  for (const key of labels) {
    const byValue = new Map<string, Series[]>();
    for (const x of series) {
      const value = x.labels[key];
      if (value !== undefined) (byValue.get(value) ?? byValue.set(value, []).get(value)!).push(x);
    }
    for (const [value, group] of [...byValue].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      const points = how === 'sum' ? sumSeries(group.map((x) => x.points)) : meanSeries(group.map((x) => x.points));
      out.push({ ...group[0]!, labels: { [key]: value }, points });
    }
  }
  return out;
}

export interface MetricServiceDeps {
  store: MetricStore;
  /** Asked in order; the first that serves a name answers its lookups. */
  sources: readonly MetricSourceAdapter[];
  /** The tenants' declared definitions, attached to each catalog entry of their name. */
  definitions?: DefinitionStore | undefined;
  now?: () => number;
}

/** Reading metrics is for the people who analyse and review; writing them for analysts. */
const READERS = ['analyst', 'reviewer'] as const;

/** Metric use cases: ingest, the catalog across sources, and lookups with bucketing. */
export function createMetricService(deps: MetricServiceDeps) {
  const now = deps.now ?? Date.now;

  async function sourceFor(name: string, caller: Caller): Promise<MetricSourceAdapter | undefined> {
    for (const source of deps.sources) if (await source.serves(name, caller)) return source;
    return undefined;
  }

  return {
    /** Stores the batch (and the definitions of its `metrics` member) in the caller's tenant, all or nothing. */
    async ingest(request: TenantRequest, input: unknown): Promise<{ series: number; points: number }> {
      const { principal, tenantId } = scoped(request, 'analyst');
      const reserved = reservedLabelProblems(input);
      if (reserved.length) throw validationError(reserved);
      const body = parseInput(ingestInputSchema, input);
      return deps.store.ingest(tenantId, ingestBatch(body), { by: principal.subject, list: ingestDefinitions(body) });
    },

    /** Deletes the tenant's series of a name (those carrying the given labels) with their points; 404 when none matches. */
    async remove(request: TenantRequest, input: unknown): Promise<{ series: number; points: number }> {
      const { tenantId } = scoped(request, 'analyst');
      const q = parseInput(removeInputSchema, input);
      const removed = await deps.store.remove(tenantId, q.name, q.labels);
      if (removed.series === 0) throw new SvcError('NOT_FOUND', `No stored series ${JSON.stringify(q.name)}${Object.keys(q.labels).length ? ` with labels ${JSON.stringify(q.labels)}` : ''} in tenant ${JSON.stringify(tenantId)}`);
      return removed;
    },

    /** Every series of every source (with `grouping`, a large catalog summed up), each with its metric's declared definition when there is one. */
    async catalog(caller: Caller, grouping?: CatalogGrouping): Promise<CatalogEntry[]> {
      requireRole(caller.principal, ...READERS);
      const [lists, declared] = await Promise.all([Promise.all(deps.sources.map((s) => s.catalog(caller, grouping))), deps.definitions?.list(caller.tenantId) ?? []]);
      const byName = new Map(declared.map((d) => [d.name, d.definition]));
      return lists.flat().map((entry) => (byName.has(entry.name) ? { ...entry, definition: byName.get(entry.name) } : entry));
    },

    /** The catalog's names, labels and units only: what planning needs, without counting points. */
    async names(caller: Caller): Promise<CatalogEntry[]> {
      requireRole(caller.principal, ...READERS);
      const lists = await Promise.all(deps.sources.map((s) => (s.names ? s.names(caller) : s.catalog(caller))));
      return lists.flat();
    },

    /**
     * Daily values for an analysis: the matching series' total (added up for `sum`, averaged
     * otherwise) or each labelled series, read where the data is when the source can (the store:
     * one query whatever the number of series), else looked up and bucketed here. 404 for an
     * unknown metric.
     */
    async daily(caller: Caller, query: DailyQuery): Promise<Series[]> {
      requireRole(caller.principal, ...READERS);
      const source = await sourceFor(query.name, caller);
      if (!source) throw new SvcError('NOT_FOUND', `No metric named ${JSON.stringify(query.name)}; list the available ones with metrics / svcinsight_list_metrics`);
      if (source.daily) return source.daily(caller, query);
      const series = await this.lookup(caller, { name: query.name, labels: query.labels, from: new Date(query.from).toISOString(), to: query.to, step: '1d', aggregation: query.how });
      if (query.shape === 'parts') return partsOf(series, query.partLabels ?? [], query.how);
      if (query.shape === 'leaves') return series.filter((x) => Object.keys(x.labels).length > 0).slice(0, query.limit).map((x) => (query.windows ? { ...x, points: x.points.filter((p) => inWindows(p.t, query.windows)) } : x));
      if (!series.length) return [];
      const points = series.length === 1 ? series[0]!.points : query.how === 'sum' ? sumSeries(series.map((x) => x.points)) : meanSeries(series.map((x) => x.points));
      return [{ ...series[0]!, labels: query.labels, points }];
    },

    /** Matching series within the window, bucketed by `step` when given; 404 for an unknown metric. */
    async lookup(caller: Caller, input: unknown): Promise<Series[]> {
      requireRole(caller.principal, ...READERS);
      const query = metricQuery(parseInput(lookupInputSchema, input), now());
      const source = await sourceFor(query.name, caller);
      if (!source) throw new SvcError('NOT_FOUND', `No metric named ${JSON.stringify(query.name)}; list the available ones with metrics / svcinsight_list_metrics`);
      const limit = query.stepMs ? METRIC_LIMITS.rawPointsPerLookup : METRIC_LIMITS.pointsPerLookup;
      const series = await source.lookup(caller, query, limit);
      return series.map((s) => {
        if (s.points.length > limit) {
          const hint = query.stepMs ? 'a shorter window' : 'a step (e.g. 1d) or a shorter window';
          throw new SvcError('BAD_USER_INPUT', `The window holds more than ${limit} points of ${s.name}; ask for ${hint}`, {
            status: 422,
            errors: [{ pointer: query.stepMs ? '/from' : '/step', detail: `the window holds more than ${limit} points` }],
          });
        }
        if (!query.stepMs) return s;
        const how = query.aggregation ?? (s.unit === 'ratio' ? 'avg' : 'sum');
        const points = aggregate(s.points, query.stepMs, how);
        // Values are bounded at ingest, but other sources (Prometheus) are not: never answer Infinity.
        const overflow = points.find((p) => !Number.isFinite(p.value));
        if (overflow) {
          throw new SvcError('BAD_USER_INPUT', `The ${how} of ${s.name} over ${new Date(overflow.t).toISOString()} is not a finite number; ask for another aggregation or a smaller step`, {
            status: 422,
            errors: [{ pointer: '/aggregation', detail: 'the result overflows' }],
          });
        }
        return { ...s, points };
      });
    },
  };
}

export type MetricService = ReturnType<typeof createMetricService>;
