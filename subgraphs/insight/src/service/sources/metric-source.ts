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
  /**
   * When the entry stands for all the series of a metric that has many (`CatalogGrouping`): how
   * many, and each label's values (the first few, sorted) with how many there are; `labels` is
   * then empty.
   */
  series?: number | undefined;
  labelValues?: Record<string, string[]> | undefined;
  labelValueCounts?: Record<string, number> | undefined;
}

/**
 * A large catalog summed up: past `listAllUpTo` series in all, a metric of more than `perName`
 * series is one entry (with `valuesListed` values per label) rather than one per series.
 */
export interface CatalogGrouping {
  listAllUpTo: number;
  perName: number;
  valuesListed: number;
}

/** One place metrics come from: the store, the platform's own figures, Prometheus. */
export interface MetricSourceAdapter {
  kind: MetricSource;
  /** Whether this source serves series of that name (so a lookup asks only the right one). */
  serves(name: string, caller: Caller): boolean | Promise<boolean>;
  /** Every series (or with `grouping`, a large catalog summed up where the source can; others list every series). */
  catalog(caller: Caller, grouping?: CatalogGrouping): Promise<CatalogEntry[]>;
  /**
   * The catalog without point counts and time ranges, when a source can give it cheaper; an
   * entry may stand for one label value of a metric rather than one series (the store's do), as
   * planning reads only names, label values and units.
   */
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

/**
 * A request for daily values: [from, to) in ms, each series' day by `how`, then the series added
 * up (`total`), one by one (`leaves`), or added up per value of each label in `partLabels`
 * (`parts`: one series per label value, labelled with that label alone). `windows`, when given, keeps only the days within them
 * ([from, to) each): the periods an analysis compares, for which alone it reads leaves.
 */
export interface DailyQuery {
  name: string;
  labels: Labels;
  from: number;
  to: number;
  how: 'sum' | 'avg' | 'last';
  shape: 'total' | 'leaves' | 'parts';
  /** The labels whose values are the parts (`parts`). */
  partLabels?: readonly string[];
  windows?: readonly { from: number; to: number }[];
  /** At most this many series (`leaves`): a source may stop reading past it. */
  limit?: number;
}

/** Whether a time falls within the query's windows (always, without windows). */
export function inWindows(t: number, windows: DailyQuery['windows']): boolean {
  return !windows || windows.some((w) => t >= w.from && t < w.to);
}
