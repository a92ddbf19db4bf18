import type { Principal } from '@svc/kit';
import type { MetricDefinition } from '../../domain/metric-definition.js';
import type { Labels, MetricSource, Series } from '../../domain/metric.js';
import type { MetricQuery } from '../../domain/metric-input.js';

/** Who is asking: sources that read other services act with this person's authority. */
export interface Caller {
  principal: Principal;
  /** The tenant the call (or the job) acts for: every source answers within it. */
  tenantId: string;
  /** The caller's credentials and request id, forwarded to the router. */
  headers: Record<string, string>;
}

export interface CatalogEntry {
  name: string;
  labels: Labels;
  unit: string | null;
  source: MetricSource;
  description?: string | undefined;
  /** Other words people use for the metric (the catalog's, not the analysis code's). */
  synonyms?: readonly string[] | undefined;
  points?: number | undefined;
  first?: Date | null | undefined;
  last?: Date | null | undefined;
  /** Label names the source's series carry when `labels` cannot say (the platform's figures). */
  labelNames?: string[] | undefined;
  /** What the tenant declared the metric means (added by the metric service). */
  definition?: MetricDefinition | undefined;
}

/** One place metrics come from: the store, the platform's own figures, Prometheus. */
export interface MetricSourceAdapter {
  kind: MetricSource;
  /** Whether this source serves series of that name (so a lookup asks only the right one). */
  serves(name: string, caller: Caller): boolean | Promise<boolean>;
  catalog(caller: Caller): Promise<CatalogEntry[]>;
  /** The catalog without point counts and time ranges, when a source can give it cheaper. */
  names?(caller: Caller): Promise<CatalogEntry[]>;
  /** Raw points of every matching series within [from, to), at most `limit` + 1 per series. */
  lookup(caller: Caller, query: MetricQuery, limit: number): Promise<Series[]>;
  /**
   * Daily values aggregated where the data is (one query whatever the number of series): the
   * total of every matching series, or each labelled series on its own. Sources without it are
   * read with `lookup` and bucketed here.
   */
  daily?(caller: Caller, query: DailyQuery): Promise<Series[]>;
}

/** A request for daily values: [from, to) in ms, each series' day by `how`, then the series added up (`total`) or one by one (`leaves`). */
export interface DailyQuery {
  name: string;
  labels: Labels;
  from: number;
  to: number;
  how: 'sum' | 'avg' | 'last';
  shape: 'total' | 'leaves';
}
