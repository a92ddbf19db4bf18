import { checkLabels, checkMetricName, METRIC_LIMITS, RESERVED_LABEL_KEYS, seriesKey, type Labels, type MetricProblem } from './metric.js';
import { parseRfc3339 } from './timestamp.js';

/**
 * Bulk import of series points, one point a line, the way people already hold their data: CSV
 * with a header (`name`, `timestamp`, `value`, optionally `unit`; every other column is a label,
 * an empty cell leaves it out) or NDJSON (`{"name", "labels", "timestamp", "value", "unit"?}`).
 * The rules are the JSON endpoint's (metric.ts), checked line by line; a problem names its line.
 */
export type ImportFormat = 'csv' | 'ndjson';

/** Limits of one import (documented in the README). */
export const IMPORT_LIMITS = {
  /** Points in one file. */
  points: 50_000_000,
  /** Distinct series in one file. */
  series: 1_000_000,
  /** Problems reported before reading stops. */
  problems: 20,
  /** Characters of one line. */
  lineLength: 16_384,
} as const;

/** One valid point: its series (by key) and the line it came from. */
export interface ImportPoint {
  line: number;
  key: string;
  t: number;
  value: number;
}

export interface ImportSeries {
  key: string;
  name: string;
  labels: Labels;
  unit: string | null;
}

export class ImportProblems extends Error {
  constructor(readonly problems: readonly MetricProblem[]) {
    super(problems.map((p) => `${p.pointer}: ${p.detail}`).join('; '));
    this.name = 'ImportProblems';
  }
}

const UNIT_LENGTH = 30;

/** What a line gives, before any check. */
export interface ImportFields {
  name: unknown;
  labels: unknown;
  timestamp: unknown;
  value: unknown;
  unit: unknown;
}

/**
 * Reads lines of one file into points, remembering each distinct series once (its labels are
 * checked when first met). `add` answers the point, or undefined after recording a problem;
 * `done` throws every problem recorded (at most IMPORT_LIMITS.problems).
 */
export function createImportReader() {
  const series = new Map<string, ImportSeries>();
  /** Series by how a line wrote them (see `add`'s rawKey). */
  const written = new Map<string, ImportSeries>();
  const problems: MetricProblem[] = [];
  let points = 0;

  function problem(line: number, field: string, detail: string): undefined {
    if (problems.length < IMPORT_LIMITS.problems) problems.push({ pointer: `/line/${line}${field ? `/${field}` : ''}`, detail });
    return undefined;
  }

  function timestampOf(line: number, raw: unknown): number | undefined {
    if (typeof raw === 'number') return Number.isInteger(raw) ? raw : problem(line, 'timestamp', `epoch milliseconds must be a whole number, got ${raw}`);
    if (typeof raw !== 'string' || !raw) return problem(line, 'timestamp', 'timestamp is required: RFC 3339 or integer epoch milliseconds');
    if (/^-?\d+$/.test(raw)) return Number(raw);
    const t = parseRfc3339(raw);
    return typeof t === 'number' ? t : problem(line, 'timestamp', t.problem);
  }

  /** A series met for the first time: its name, labels and unit checked once. */
  function newSeries(line: number, key: string, name: string, labels: Labels, unitGiven: unknown): ImportSeries | undefined {
    const bad = checkMetricName(name, '/name') ?? checkLabels(labels, '/labels')[0];
    if (bad) return problem(line, bad.pointer.replace(/^\//, ''), bad.detail);
    const unit = unitGiven === undefined || unitGiven === null || unitGiven === '' ? null : unitGiven;
    if (unit !== null && (typeof unit !== 'string' || unit.length > UNIT_LENGTH)) return problem(line, 'unit', `unit must be a string of at most ${UNIT_LENGTH} characters`);
    if (series.size >= IMPORT_LIMITS.series) return problem(line, '', `a file may hold at most ${IMPORT_LIMITS.series.toLocaleString('en-US')} series; split it`);
    const created = { key, name, labels: { ...labels }, unit };
    series.set(key, created);
    return created;
  }

  return {
    series,
    get points() {
      return points;
    },
    /** True once reading should stop (too many problems, or a limit passed). */
    get stopped() {
      return problems.length >= IMPORT_LIMITS.problems;
    },
    /**
     * The point of one line. `rawKey` (optional) names the line's series as written (a CSV line's
     * name and label cells): a series met again is then recognised without building its key.
     */
    add(line: number, fields: ImportFields, rawKey?: string): ImportPoint | undefined {
      if (typeof fields.name !== 'string') return problem(line, 'name', 'name is required');
      const t = timestampOf(line, fields.timestamp);
      const value = typeof fields.value === 'string' && fields.value.trim() !== '' ? Number(fields.value) : fields.value;
      if (typeof value !== 'number' || !Number.isFinite(value)) return problem(line, 'value', `value must be a finite number, got ${JSON.stringify(fields.value)?.slice(0, 40)}`);
      if (Math.abs(value) > METRIC_LIMITS.maxAbsValue) return problem(line, 'value', `value ${value} is beyond the bound of ±${METRIC_LIMITS.maxAbsValue.toExponential()}`);
      if (t === undefined) return undefined;
      if (t < METRIC_LIMITS.minTime || t >= METRIC_LIMITS.maxTime) return problem(line, 'timestamp', 'timestamp must be between 1970 and 2200');
      let known = rawKey === undefined ? undefined : written.get(rawKey);
      if (!known) {
        const labels = (fields.labels ?? {}) as Labels;
        if (typeof labels !== 'object' || Array.isArray(labels)) return problem(line, 'labels', 'labels must be an object of label names to strings');
        const key = seriesKey({ name: fields.name, labels });
        known = series.get(key) ?? newSeries(line, key, fields.name, labels, fields.unit);
        if (!known) return undefined;
        if (rawKey !== undefined) written.set(rawKey, known);
      }
      if (++points > IMPORT_LIMITS.points) return problem(line, '', `a file may hold at most ${IMPORT_LIMITS.points.toLocaleString('en-US')} points; split it`);
      return { line, key: known.key, t, value };
    },
    /** A line that is not a record at all (bad JSON, wrong column count). */
    unreadable(line: number, detail: string): undefined {
      return problem(line, '', detail);
    },
    done(): void {
      if (problems.length) throw new ImportProblems(problems);
    },
  };
}

export type ImportReader = ReturnType<typeof createImportReader>;

/** The fields of one NDJSON line. */
export function ndjsonFields(text: string): ImportFields | string {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return 'not a JSON object: each line must be {"name", "labels", "timestamp", "value"}';
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) return 'not a JSON object: each line must be {"name", "labels", "timestamp", "value"}';
  const r = record as Record<string, unknown>;
  const extra = Object.keys(r).find((k) => !['name', 'labels', 'timestamp', 'value', 'unit'].includes(k));
  if (extra) return `unknown member ${JSON.stringify(extra.slice(0, 40))}; a line holds name, labels, timestamp, value and unit`;
  return { name: r.name, labels: r.labels, timestamp: r.timestamp, value: r.value, unit: r.unit };
}

/** How a CSV header's columns map to fields: name, timestamp, value and unit by name; the rest are labels. */
export interface CsvColumns {
  width: number;
  rawKey: (values: readonly string[]) => string;
  fields: (values: readonly string[]) => ImportFields;
}

export function csvColumns(header: readonly string[]): CsvColumns | string {
  const reserved = header.find((c) => RESERVED_LABEL_KEYS.includes(c));
  if (reserved) return `label name ${JSON.stringify(reserved)} is reserved`;
  const at = (column: string) => header.indexOf(column);
  const [name, timestamp, value, unit] = [at('name'), at('timestamp'), at('value'), at('unit')];
  if (name < 0 || timestamp < 0 || value < 0) return `the header must name the columns name, timestamp and value (then any labels); got ${header.slice(0, 12).join(',').slice(0, 200)}`;
  const labels = header.map((column, i) => ({ column, i })).filter(({ i }) => ![name, timestamp, value, unit].includes(i));
  return {
    width: header.length,
    /** The line's series as written: its name, unit and label cells. */
    rawKey: (values) => [values[name], unit < 0 ? '' : values[unit], ...labels.map(({ i }) => values[i])].join('\u0001'),
    fields: (values) => {
      const own: Record<string, string> = {};
      for (const { column, i } of labels) if (values[i]) own[column] = values[i]!;
      return { name: values[name], labels: own, timestamp: values[timestamp], value: values[value], unit: unit < 0 ? undefined : values[unit] };
    },
  };
}
