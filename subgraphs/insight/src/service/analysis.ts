import { collectGarbage, patientlyConnected, SvcError } from '@svc/kit';
import { METRIC_LIMITS } from '../domain/metric.js';
import { catalogOf, type CatalogEntry as EngineEntry } from '../engine/catalog.js';
import type { EngineEvent } from '../engine/events.js';
import type { Targets } from '../domain/event-target.js';
import type { Finding } from '../engine/finding.js';
import { PARTS, partRequests, plan, type SeriesRequest } from '../engine/plan.js';
import { periodsFor } from '../engine/analyse.js';
import type { SeriesData } from '../engine/series.js';
import { addDays, timeOf } from '../engine/days.js';
import type { Analytics } from './analytics-pool.js';
import type { MetricService } from './metrics.js';
import type { Caller } from './sources/metric-source.js';

/**
 * The analysis engine over one tenant's data: the catalog (what each metric means), the plan of
 * series to read, the reads (through the metric service, so the tenant's own series only), and
 * the engine's run on the analytics threads. The engine does the arithmetic; this only fetches.
 */
export interface AnalysisDeps {
  metrics: MetricService;
  analytics: Analytics;
  /** The tenant's declared metric definitions merged with its series (metric-catalog.ts `catalogEntries`). */
  catalog: (caller: Caller) => Promise<EngineEntry[]>;
  /** The tenant's events in a window (stored and the platform's own); default none. */
  events?: (caller: Caller, from: number, to: number) => Promise<EngineEvent[]>;
  /** What a bad move's events and pages point at, as it is now (sources/event-targets.ts); default none. */
  targets?: (caller: Caller, finding: Finding) => Promise<Targets | undefined>;
  now?: () => number;
  /** Series read at once. Default 3 (the wiring derives it from DB_POOL_MAX: a third of the pool, at least 1, at most 6). */
  parallelReads?: number;
  /** How long a read may wait for a free database connection before the analysis fails, ms. Default 120,000. */
  connectionWaitMs?: number;
  /** Labelled series of one metric drilled into (SVC_INSIGHT_MAX_LEAVES); past it the drill-down is skipped and the answer says why. Default 250,000. */
  maxLeaves?: number;
}

const DAY = 86_400_000;
/** Leaves read by one analysis after which the garbage of reading them is collected at once (kit `collectGarbage`). */
const LEAVES_COLLECTED_AFTER = 20_000;

/** Runs `work` over `items`, at most `width` at a time, keeping their order. */
async function inBatches<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  }));
  return out;
}

export function createAnalysisService(deps: AnalysisDeps) {
  const now = deps.now ?? Date.now;
  const catalogFor = deps.catalog;

  return {
    /** The tenant's catalog as the engine reads it. */
    catalog: (caller: Caller) => catalogFor(caller),

    /** The engine's finding for a question on the caller's tenant, with the notes of every read that failed. */
    async analyse(caller: Caller, question: string, locale = 'en-US'): Promise<{ finding: Finding & { targets?: Targets }; reads: number; failedReads: string[]; limits: string[]; history: { t: string; value: number }[] }> {
      const catalog = await catalogFor(caller);
      const at = now();
      const p = plan(question, catalog, at);
      const defs = catalogOf(catalog);
      const failedReads: string[] = [];
      const maxLeaves = deps.maxLeaves ?? 250_000;
      /** Metrics past SVC_INSIGHT_MAX_LEAVES, not drilled into. */
      const leftOut: string[] = [];
      const patience = Date.now() + (deps.connectionWaitMs ?? 120_000);
      const requests = p.requests;
      const read = async (r: SeriesRequest, windows?: { from: number; to: number }[], limit?: number): Promise<SeriesData[]> => {
        const def = defs.get(r.metric);
        const additive = def?.aggregation === 'sum';
        const how = def?.aggregation === 'last' ? 'last' : additive ? 'sum' : 'avg';
        try {
          const to = timeOf(r.to) + DAY;
          // Aggregated where the data is: one read per request, whatever the number of series behind it.
          // A busy pool (the embedded database runs one statement at a time) slows a read down, never fails it.
          const series = await patientlyConnected(() => deps.metrics.daily(caller, { name: r.metric, labels: r.labels ?? {}, from: timeOf(r.from), to, how, shape: r.shape, ...(r.partLabels ? { partLabels: r.partLabels } : {}), ...(windows ? { windows } : {}), ...(limit ? { limit } : {}) }), patience);
          // Values beyond the ingest bound (stored before it, or from another source) would overflow the engine's sums.
          const beyond = series.find((s) => s.points.some((pt) => !(Math.abs(pt.value) <= METRIC_LIMITS.maxAbsValue * 1000)));
          if (beyond) throw new SvcError('BAD_USER_INPUT', `${r.metric} holds daily values beyond ±${(METRIC_LIMITS.maxAbsValue * 1000).toExponential()}, too large to analyse`);
          const part = r.shape === 'parts' || (r.shape === 'total' && Object.keys(r.labels ?? {}).length > 0);
          return series.map((s) => ({ name: r.metric, labels: r.shape === 'total' ? (r.labels ?? {}) : s.labels, points: s.points, ...(part ? { total: true } : {}) }));
        } catch (error) {
          if (!(error instanceof SvcError)) throw error;
          failedReads.push(`${r.metric}: ${error.message}`);
          return [];
        }
      };
      const width = deps.parallelReads ?? 3;
      // The totals first: they decide the periods compared, and the leaves are read for those days only.
      const totals = (await inBatches(requests.filter((r) => r.shape === 'total'), width, (r) => read(r))).flat();
      const periods = periodsFor({ question, series: totals, now: at });
      const windows = [periods.comparison, periods.period].map((w) => ({ from: timeOf(w.from), to: timeOf(w.to) + DAY }));
      const leaves = (await inBatches(requests.filter((r) => r.shape === 'leaves'), width, async (r) => {
        const read1 = await read(r, windows, maxLeaves + 1);
        if (read1.length <= maxLeaves) return read1;
        leftOut.push(r.metric);
        return [];
      })).flat();
      // The part of the subject the question names, its label values now known from the leaves: its own total.
      const named = partRequests(question, catalog, [...totals, ...leaves], at);
      const partTotals = (await inBatches(named, width, (r) => read(r))).flat();
      // Other metrics' label values, for the days around the period only (candidates and the chain's last link).
      const around = { from: addDays(periods.period.from, -PARTS.daysBefore), to: periods.period.to };
      const labelParts = (await inBatches(requests.filter((r) => r.shape === 'parts'), width, (r) => read({ ...r, ...around }))).flat();
      const series = [...totals, ...leaves, ...partTotals, ...labelParts];
      // Reading many leaves leaves their rows behind as garbage (the driver's rows, the parsed
      // arrays): freed now, before the analysis thread grows its own heap beside them.
      if (leaves.length >= LEAVES_COLLECTED_AFTER) collectGarbage();
      const events = deps.events ? await deps.events(caller, at - 430 * DAY, at).catch((error: unknown) => {
        if (!(error instanceof SvcError)) throw error;
        failedReads.push(`events: ${error.message}`);
        return [];
      }) : [];
      const finding = await deps.analytics.analyse({ question, catalog, series, events, now: at, locale, periods, ...(leftOut.length ? { leavesLeftOut: leftOut } : {}) });
      // The levers the proposals may name, as they are now: read after the engine, for its events only.
      const targets = deps.targets ? await deps.targets(caller, finding).catch((error: unknown) => {
        if (!(error instanceof SvcError)) throw error;
        failedReads.push(`what the events point at: ${error.message}`);
        return undefined;
      }) : undefined;
      // The chart's history travels beside the finding (the report draws it), not inside it twice.
      const { history = [], ...engineFinding } = finding;
      // What the limit left out, in words that name it and say what to do.
      const limits = leftOut.map((metric) => `The drill-down by segment was skipped: ${metric} has more than ${maxLeaves.toLocaleString('en-US')} labelled series, the limit SVC_INSIGHT_MAX_LEAVES sets; ask about part of it (one label value) or raise the limit`);
      return { finding: targets ? { ...engineFinding, targets } : engineFinding, reads: requests.length + named.length, failedReads, limits, history };
    },
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
