/**
 * What a metric means, as the tenant's catalog declares it. The engine never names a metric:
 * everything it knows about one (unit, how it aggregates over time, which way is good, what it
 * is made of, what drives it) comes from a catalog entry, completed by `withDefaults`.
 */

/** How a metric's values are displayed. `ratio` values are fractions shown as percent (0.0307 → 3.07 %); `percent` values are already in percent points. */
export type Unit =
  | { kind: 'currency'; /** ISO 4217, e.g. `EUR` */ code: string }
  | { kind: 'count'; /** Plural noun printed after the number, e.g. `sessions`; none by default. */ noun?: string }
  | { kind: 'ratio' }
  | { kind: 'percent' };

/** How daily values combine over a period. A ratio is sum(numerator) ÷ sum(denominator): the mean weighted by the denominator. */
export type Aggregation = 'sum' | 'mean' | 'last' | { ratio: { numerator: string; denominator: string } };

export type Formula = { product: string[] } | { sum: string[] };

/** A formula's factors, whichever its kind. */
export function factorsOf(formula: Formula): string[] {
  return 'product' in formula ? formula.product : formula.sum;
}

export interface DriverSpec {
  /** The driving metric's name. */
  metric: string;
  /** Only the driver's series with these labels (e.g. `{channel: 'search'}`); all of it when absent. */
  labels?: Record<string, string>;
  /** Days between a move of the driver and its effect on the subject; default 0. */
  lagDays?: number;
  /** Known elasticity (% change of the subject per 1 % of the driver); estimated from history when absent. */
  elasticity?: number;
}

export interface CatalogEntry {
  name: string;
  unit?: Unit;
  aggregation?: Aggregation;
  /** Whether a rise is good; default true. */
  upIsGood?: boolean;
  /** Label names the metric's series carry (e.g. `region`, `device`). */
  labels?: string[];
  /** Known values per label, when the catalog lists them (used to read a label value named in a question). */
  labelValues?: Record<string, string[]>;
  formula?: Formula;
  drivers?: DriverSpec[];
  /** Other words people use for it, e.g. `['reservations']`. */
  synonyms?: string[];
  /** The words a person reads for it, its labels and their values (display.ts); its names when absent. */
  display?: DisplayWords;
  /** What it is, in a sentence (read for the metrics closest in meaning to one a question names but the catalog lacks). */
  description?: string;
}

/** A metric's declared words: `{ name: 'Conversion rate', labels: { channel: 'Channel' }, values: { channel: { search: 'Search ads' } } }`. */
export interface DisplayWords {
  name?: string;
  labels?: Record<string, string>;
  values?: Record<string, Record<string, string>>;
}

/** A catalog entry with every field decided, and which of them were defaulted. */
export interface MetricDef {
  name: string;
  unit: Unit;
  aggregation: Aggregation;
  upIsGood: boolean;
  labels: string[];
  labelValues: Record<string, string[]>;
  formula?: Formula;
  drivers: DriverSpec[];
  synonyms: string[];
  display?: DisplayWords;
  description?: string;
  /** Fields that were not declared and got a default (or were corrected), e.g. `['unit', 'aggregation']`. */
  defaulted: string[];
}

const RATIO_NAME = /(^|[_.-])(rate|ratio|share|pct|percent)$/;

export function isRatioUnit(unit: Unit): boolean {
  return unit.kind === 'ratio' || unit.kind === 'percent';
}

/** True when period values are sums of daily values, so the metric is additive over time and over its labels. */
export function isAdditive(def: MetricDef): boolean {
  return def.aggregation === 'sum';
}

export function ratioParts(aggregation: Aggregation): { numerator: string; denominator: string } | undefined {
  return typeof aggregation === 'object' ? aggregation.ratio : undefined;
}

/**
 * Completes an entry: a ratio aggregation, a ratio or percent unit, or a `_rate`/`_ratio`
 * name means a ratio (unit `ratio`, aggregation `mean`, or the weighted ratio when numerator
 * and denominator are declared); anything else counts and sums. A ratio is never summed: a
 * declared `sum` on a ratio becomes `mean` and is listed in `defaulted`.
 */
export function withDefaults(entry: CatalogEntry): MetricDef {
  const defaulted: string[] = [];
  const declaredRatio = typeof entry.aggregation === 'object';
  const looksRatio = declaredRatio || (entry.unit ? isRatioUnit(entry.unit) : RATIO_NAME.test(entry.name));
  let unit = entry.unit;
  if (!unit) {
    unit = looksRatio ? { kind: 'ratio' } : { kind: 'count' };
    defaulted.push('unit');
  }
  let aggregation = entry.aggregation;
  if (!aggregation) {
    aggregation = looksRatio ? 'mean' : 'sum';
    defaulted.push('aggregation');
  } else if (aggregation === 'sum' && looksRatio) {
    aggregation = 'mean';
    defaulted.push('aggregation');
  }
  if (entry.upIsGood === undefined) defaulted.push('upIsGood');
  return {
    name: entry.name,
    unit,
    aggregation,
    upIsGood: entry.upIsGood ?? true,
    labels: [...(entry.labels ?? [])],
    labelValues: { ...(entry.labelValues ?? {}) },
    ...(entry.formula ? { formula: entry.formula } : {}),
    drivers: [...(entry.drivers ?? [])],
    synonyms: [...(entry.synonyms ?? [])],
    ...(entry.display ? { display: entry.display } : {}),
    ...(entry.description ? { description: entry.description } : {}),
    defaulted,
  };
}

/** The catalog by name, each entry completed. */
export function catalogOf(entries: readonly CatalogEntry[]): Map<string, MetricDef> {
  return new Map(entries.map((e) => [e.name, withDefaults(e)]));
}

/** The metrics connected to `name` through declared formulas, ratios and drivers, either way, `name` included. */
export function declaredRelatives(name: string, defs: Map<string, MetricDef>): Set<string> {
  const links = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    (links.get(a) ?? links.set(a, new Set()).get(a)!).add(b);
    (links.get(b) ?? links.set(b, new Set()).get(b)!).add(a);
  };
  for (const d of defs.values()) {
    if (d.formula) for (const f of factorsOf(d.formula)) link(d.name, f);
    for (const x of d.drivers) link(d.name, x.metric);
    const parts = ratioParts(d.aggregation);
    if (parts) {
      link(d.name, parts.numerator);
      link(d.name, parts.denominator);
    }
  }
  const seen = new Set([name]);
  const queue = [name];
  while (queue.length) for (const next of links.get(queue.pop()!) ?? []) if (!seen.has(next) && seen.add(next)) queue.push(next);
  return seen;
}
