/**
 * Metric series: a name plus labels identify a series; a series is a list of points (time,
 * value). Pure rules only: validation of what a client may ingest, the series key, and how
 * points are bucketed and aggregated for a lookup.
 */

export type Labels = Readonly<Record<string, string>>;

export interface Point {
  /** Milliseconds since the epoch, UTC. */
  t: number;
  value: number;
}

export interface SeriesId {
  name: string;
  labels: Labels;
}

export interface Series extends SeriesId {
  /** Where the series comes from: `store` (ingested), `platform` (the services' own figures) or `prometheus`. */
  source: MetricSource;
  unit?: string;
  points: Point[];
}

export type MetricSource = 'store' | 'platform' | 'prometheus';

export const AGGREGATIONS = ['sum', 'avg', 'min', 'max', 'last', 'count'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** Limits of one ingest call and of one lookup; documented in the README. */
export const METRIC_LIMITS = {
  nameLength: 100,
  labelsPerSeries: 10,
  labelKeyLength: 50,
  labelValueLength: 200,
  seriesPerBatch: 100,
  /** Fits the default 1 MiB body limit (SVC_MAX_BODY_BYTES) with room to spare: a point is at most ~80 bytes of JSON. */
  pointsPerBatch: 10_000,
  /** Largest magnitude a value may have: sums of a lookup's 500,000 points stay finite and exact enough. */
  maxAbsValue: 1e15,
  pointsPerLookup: 20_000,
  /** Raw points a bucketed lookup may read. */
  rawPointsPerLookup: 500_000,
  /** Accepted timestamps: 1970 to 2200, so a typo in a year is refused instead of stored. */
  minTime: 0,
  maxTime: Date.UTC(2200, 0, 1),
} as const;

const NAME = /^[a-z][a-z0-9_.]*$/;
const LABEL_KEY = /^[a-z_][a-z0-9_]*$/;
/** Label names that would reach an object's prototype instead of being stored. */
export const RESERVED_LABEL_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export interface MetricProblem {
  pointer: string;
  detail: string;
}

export function checkMetricName(name: string, pointer: string): MetricProblem | undefined {
  if (name.length === 0 || name.length > METRIC_LIMITS.nameLength || !NAME.test(name)) {
    return { pointer, detail: `metric name ${JSON.stringify(name.slice(0, 120))} must be 1-${METRIC_LIMITS.nameLength} characters of a-z, 0-9, "_" and ".", starting with a letter` };
  }
  return undefined;
}

export function checkLabels(labels: Record<string, unknown>, pointer: string): MetricProblem[] {
  const problems: MetricProblem[] = [];
  const entries = Object.entries(labels);
  if (entries.length > METRIC_LIMITS.labelsPerSeries) problems.push({ pointer, detail: `at most ${METRIC_LIMITS.labelsPerSeries} labels per series, got ${entries.length}` });
  for (const [key, value] of entries) {
    if (RESERVED_LABEL_KEYS.includes(key)) {
      problems.push({ pointer: `${pointer}/${key}`, detail: `label name ${JSON.stringify(key)} is reserved` });
    } else if (key.length > METRIC_LIMITS.labelKeyLength || !LABEL_KEY.test(key)) {
      problems.push({ pointer: `${pointer}/${key}`, detail: `label name ${JSON.stringify(key.slice(0, 60))} must be 1-${METRIC_LIMITS.labelKeyLength} characters of a-z, 0-9 and "_", not starting with a digit` });
    } else if (typeof value !== 'string' || value.length === 0 || value.length > METRIC_LIMITS.labelValueLength) {
      problems.push({ pointer: `${pointer}/${key}`, detail: `label ${key} must be a string of 1-${METRIC_LIMITS.labelValueLength} characters` });
    }
  }
  return problems;
}

/** Checks points of one series: finite values, timestamps in range and strictly increasing. */
export function checkPoints(points: readonly Point[], pointer: string): MetricProblem[] {
  const problems: MetricProblem[] = [];
  let previous = -Infinity;
  for (let i = 0; i < points.length && problems.length < 20; i++) {
    const { t, value } = points[i]!;
    if (!Number.isFinite(t) || t < METRIC_LIMITS.minTime || t >= METRIC_LIMITS.maxTime) {
      problems.push({ pointer: `${pointer}/${i}/timestamp`, detail: `timestamp must be between 1970 and 2200` });
    } else if (t <= previous) {
      problems.push({ pointer: `${pointer}/${i}/timestamp`, detail: `timestamps must be strictly increasing; ${new Date(t).toISOString()} does not follow ${new Date(previous).toISOString()}` });
    }
    if (!Number.isFinite(value)) problems.push({ pointer: `${pointer}/${i}/value`, detail: `value must be a finite number` });
    else if (Math.abs(value) > METRIC_LIMITS.maxAbsValue) problems.push({ pointer: `${pointer}/${i}/value`, detail: `value ${value} is beyond the bound of ±${METRIC_LIMITS.maxAbsValue.toExponential()}` });
    if (Number.isFinite(t)) previous = t;
  }
  return problems;
}

/** A stable key of a series: the name and the labels sorted by key. */
export function seriesKey(id: SeriesId): string {
  const labels = Object.keys(id.labels).sort().map((k) => `${k}=${JSON.stringify(id.labels[k])}`);
  return `${id.name}{${labels.join(',')}}`;
}

/** True when every label of `selector` is on the series with the same value. */
export function matchesLabels(labels: Labels, selector: Labels): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

const STEP = /^(\d{1,6})(m|h|d|w)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** Parses a step such as `1d`, `6h`, `15m` or `1w` into milliseconds; undefined when malformed. */
export function parseStep(step: string): number | undefined {
  const match = STEP.exec(step);
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms > 0 ? ms : undefined;
}

function reduce(values: number[], aggregation: Aggregation): number {
  switch (aggregation) {
    case 'sum': return values.reduce((a, b) => a + b, 0);
    case 'avg': return values.reduce((a, b) => a + b, 0) / values.length;
    case 'min': return Math.min(...values);
    case 'max': return Math.max(...values);
    case 'last': return values[values.length - 1]!;
    case 'count': return values.length;
  }
}

/**
 * Buckets points by `stepMs` (aligned to the epoch, so days start at 00:00 UTC) and aggregates
 * each bucket; a bucket's time is its start. Points must be sorted by time.
 */
export function aggregate(points: readonly Point[], stepMs: number, aggregation: Aggregation): Point[] {
  const out: Point[] = [];
  let bucket = Number.NaN;
  let values: number[] = [];
  for (const p of points) {
    const start = Math.floor(p.t / stepMs) * stepMs;
    if (start !== bucket) {
      if (values.length) out.push({ t: bucket, value: reduce(values, aggregation) });
      bucket = start;
      values = [];
    }
    values.push(p.value);
  }
  if (values.length) out.push({ t: bucket, value: reduce(values, aggregation) });
  return out;
}

/** Adds the values of several series point by point (same timestamps), e.g. ad spend over every channel. */
export function sumSeries(series: readonly (readonly Point[])[]): Point[] {
  const totals = new Map<number, number>();
  for (const points of series) for (const p of points) totals.set(p.t, (totals.get(p.t) ?? 0) + p.value);
  return [...totals.entries()].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({ t, value }));
}

/** Median spacing of the points, in ms (the series' natural step); undefined with fewer than 2 points. */
export function naturalStep(points: readonly Point[]): number | undefined {
  if (points.length < 2) return undefined;
  const gaps = points.slice(1).map((p, i) => p.t - points[i]!.t).sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)];
}
