/**
 * The series the caller fetched, indexed by metric. A series with no labels is the metric's
 * total; labelled series are its leaves (one per combination of label values), unless marked
 * `total`: then it is the total of the part its labels name (every series carrying them, added
 * up where the data is). Points are daily (`t` = UTC midnight); several points on one day are
 * added up.
 */
import { DAY_MS, dayOf, timeOf } from './days.js';

export interface SeriesPoint {
  /** Milliseconds since the epoch; its UTC day is what counts. */
  t: number;
  value: number;
}

export interface SeriesData {
  name: string;
  labels: Readonly<Record<string, string>>;
  points: readonly SeriesPoint[];
  /** The total of every series carrying `labels` (a part's total), not one labelled series. */
  total?: boolean;
}

/** A daily series: ISO day → value. */
export type Daily = Map<string, number>;

/** One labelled series; its daily map is built on first use (a drill-down over thousands of leaves only needs period sums). */
export class Leaf {
  #daily?: Daily;

  constructor(readonly labels: Readonly<Record<string, string>>, readonly points: readonly SeriesPoint[]) {}

  get daily(): Daily {
    return (this.#daily ??= toDaily(this.points));
  }

  /** Sum of the finite values from the start of day `from` to the end of day `to`. */
  sumBetween(from: string, to: string): number {
    const start = timeOf(from);
    const end = timeOf(to) + DAY_MS;
    let sum = 0;
    for (const p of this.points) if (p.t >= start && p.t < end && Number.isFinite(p.value)) sum += p.value;
    return sum;
  }

  /** Whether it has a finite value between the start of day `from` and the end of day `to`. */
  hasBetween(from: string, to: string): boolean {
    const start = timeOf(from);
    const end = timeOf(to) + DAY_MS;
    return this.points.some((p) => p.t >= start && p.t < end && Number.isFinite(p.value));
  }
}

interface Entry {
  total?: Daily;
  /** Totals of parts, by their labels' key (`partKey`). */
  parts: Map<string, Daily>;
  leaves: Leaf[];
}

/** Values per label among these label sets, each label's sorted. */
export function labelValuesOf(labelSets: Iterable<Readonly<Record<string, string>>>): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const labels of labelSets) for (const [k, v] of Object.entries(labels)) (out[k] ??= new Set()).add(v);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

/** One key for a set of labels, whatever their order. */
export function partKey(labels: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function toDaily(points: readonly SeriesPoint[]): Daily {
  const out: Daily = new Map();
  for (const p of points) {
    if (!Number.isFinite(p.value)) continue;
    const d = dayOf(p.t);
    out.set(d, (out.get(d) ?? 0) + p.value);
  }
  return out;
}

function addInto(target: Daily, source: Daily): void {
  for (const [d, v] of source) target.set(d, (target.get(d) ?? 0) + v);
}

function matches(labels: Readonly<Record<string, string>>, filter: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(filter)) if (labels[k] !== v) return false;
  return true;
}

export class SeriesBook {
  readonly #byName = new Map<string, Entry>();

  constructor(series: readonly SeriesData[]) {
    for (const s of series) {
      const entry: Entry = this.#byName.get(s.name) ?? { leaves: [], parts: new Map() };
      this.#byName.set(s.name, entry);
      if (Object.keys(s.labels).length === 0) {
        entry.total = entry.total ?? new Map();
        addInto(entry.total, toDaily(s.points));
      } else if (s.total) {
        // The same part read twice (a driver's declared part over the history, and again among
        // the label values read for the days around the period) is one part: the days join.
        const key = partKey(s.labels);
        const held = entry.parts.get(key);
        const daily = toDaily(s.points);
        if (held) for (const [day, value] of daily) if (!held.has(day)) held.set(day, value);
        entry.parts.set(key, held ?? daily);
      }
      else entry.leaves.push(new Leaf(s.labels, s.points));
    }
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  names(): string[] {
    return [...this.#byName.keys()].sort();
  }

  leaves(name: string): Leaf[] {
    return this.#byName.get(name)?.leaves ?? [];
  }

  /**
   * The metric's daily total: its unlabelled series when fetched, else its leaves added up
   * (`additive`) or averaged (a metric that does not add up over labels).
   */
  total(name: string, additive = true): Daily | undefined {
    const entry = this.#byName.get(name);
    if (!entry) return undefined;
    if (entry.total) return entry.total;
    if (entry.leaves.length === 0) return undefined;
    return this.combine(entry.leaves, additive);
  }

  /** The part's total when it was read as one, else the leaves carrying every label of `filter`, added up; the total when `filter` is empty. */
  filtered(name: string, filter: Readonly<Record<string, string>>, additive = true): Daily | undefined {
    if (Object.keys(filter).length === 0) return this.total(name, additive);
    const part = this.#byName.get(name)?.parts.get(partKey(filter));
    if (part) return part;
    const chosen = this.leaves(name).filter((l) => matches(l.labels, filter));
    return chosen.length ? this.combine(chosen, additive) : undefined;
  }

  /** The parts read as totals of one label value each (`region=EU`), with their daily values. */
  labelParts(name: string): { labels: Record<string, string>; daily: Daily }[] {
    const out: { labels: Record<string, string>; daily: Daily }[] = [];
    for (const [key, daily] of this.#byName.get(name)?.parts ?? []) {
      const labels = Object.fromEntries(JSON.parse(key) as [string, string][]);
      if (Object.keys(labels).length === 1) out.push({ labels, daily });
    }
    return out;
  }

  /** Values per label found among a metric's leaves. */
  labelValues(name: string): Record<string, string[]> {
    return labelValuesOf(this.leaves(name).map((l) => l.labels));
  }

  /** First and last day with data over every series. */
  span(): { first?: string; last?: string } {
    let first: string | undefined;
    let last: string | undefined;
    const see = (d: Daily) => {
      for (const day of d.keys()) {
        if (!first || day < first) first = day;
        if (!last || day > last) last = day;
      }
    };
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const e of this.#byName.values()) {
      if (e.total) see(e.total);
      for (const part of e.parts.values()) see(part);
      for (const l of e.leaves) {
        for (const p of l.points) {
          if (!Number.isFinite(p.value)) continue;
          if (p.t < min) min = p.t;
          if (p.t > max) max = p.t;
        }
      }
    }
    if (Number.isFinite(min) && (!first || dayOf(min) < first)) first = dayOf(min);
    if (Number.isFinite(max) && (!last || dayOf(max) > last)) last = dayOf(max);
    return { ...(first ? { first } : {}), ...(last ? { last } : {}) };
  }

  private combine(leaves: readonly Leaf[], additive: boolean): Daily {
    const sum: Daily = new Map();
    const count = new Map<string, number>();
    for (const l of leaves) {
      addInto(sum, l.daily);
      for (const d of l.daily.keys()) count.set(d, (count.get(d) ?? 0) + 1);
    }
    if (!additive) for (const [d, v] of sum) sum.set(d, v / count.get(d)!);
    return sum;
  }
}
