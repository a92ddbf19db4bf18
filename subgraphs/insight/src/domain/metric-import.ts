import { SvcError } from '@svc/kit';
import { checkLabels, checkMetricName, METRIC_LIMITS, RESERVED_LABEL_KEYS, seriesKey, type Labels, type MetricProblem } from './metric.js';
import { parseRfc3339 } from './timestamp.js';

/**
 * Bulk import of series points, one point a line, the way people already hold their data: CSV
 * with a header (`name`, `timestamp`, `value`, optionally `unit`; every other column is a label,
 * an empty cell leaves it out) or NDJSON (`{"name", "labels", "timestamp", "value", "unit"?}`).
 * The rules are the JSON endpoint's (metric.ts), checked line by line; a problem names its line.
 */
export type ImportFormat = 'csv' | 'ndjson';

const FORMATS: Record<string, ImportFormat> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson', 'application/jsonl': 'ndjson', 'application/x-jsonlines': 'ndjson' };

/** The format a Content-Type header names (parameters and case aside), or a 400 naming what was sent. */
export function importFormatOf(contentType: string): ImportFormat {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const format = FORMATS[type];
  if (!format) throw new SvcError('BAD_USER_INPUT', `Content-Type must be text/csv or application/x-ndjson; got ${JSON.stringify(type || '(none)')}`, { errors: [{ pointer: '/Content-Type', detail: 'text/csv or application/x-ndjson' }] });
  return format;
}

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
  /** Points of a file after which its garbage is collected at once (kit `collectGarbage`). */
  collectAfterPoints: 200_000,
} as const;

/**
 * Valid points of a file, a batch at a time, held in columns (a point is a row of four numbers,
 * not an object: a file of millions of points makes no garbage per point). Row `i` is the point
 * of line `line[i]` for the series numbered `series[i]`.
 */
export class PointBatch {
  readonly series: Int32Array;
  readonly t: Float64Array;
  readonly value: Float64Array;
  readonly line: Int32Array;
  length = 0;

  constructor(readonly capacity: number) {
    this.series = new Int32Array(capacity);
    this.t = new Float64Array(capacity);
    this.value = new Float64Array(capacity);
    this.line = new Int32Array(capacity);
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  push(line: number, series: number, t: number, value: number): void {
    const i = this.length++;
    this.line[i] = line;
    this.series[i] = series;
    this.t[i] = t;
    this.value[i] = value;
  }
}

/** Points gathered before a batch is handed on. */
export const POINT_BATCH = 200_000;

export interface ImportSeries {
  /** Numbered from 0 in the order the file first names them. */
  no: number;
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

/**
 * A copy of `text` that holds none of the text it was cut from. A cell is a slice of its line
 * and the line a slice of the body's chunk (V8 keeps a cut of 13 characters or more as a view of
 * the whole); a series kept for the file's length through its name would keep its chunk alive,
 * and a file that names a new series in every chunk would be held whole (225 MiB at 3 M points).
 */
function own(text: string): string {
  return text.length < 13 ? text : (` ${text}`).slice(1);
}

function ownLabels(labels: Labels): Labels {
  const copy: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) copy[own(k)] = own(v);
  return copy;
}

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
 * checked when first met). `add` and `addCells` put the line's point in `batch` and answer true,
 * or record a problem and answer false; `take` hands the batch on and starts the next; `done`
 * throws every problem recorded (at most IMPORT_LIMITS.problems).
 */
export function createImportReader() {
  const series = new Map<string, ImportSeries>();
  /** The same series in the order met (`no` is the index). */
  const ordered: ImportSeries[] = [];
  /** Series by how a line wrote them (see `add`'s rawKey). */
  const written = new Map<string, ImportSeries>();
  const problems: MetricProblem[] = [];
  let points = 0;
  let batch = new PointBatch(POINT_BATCH);
  /** The line's time and value once `timeAndValue` accepted them. */
  let t = 0;
  let value = 0;

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

  /** Checks a line's time and value, recording what is wrong; true when both are good (then in `t` and `value`). */
  function timeAndValue(line: number, rawTime: unknown, rawValue: unknown): boolean {
    const time = timestampOf(line, rawTime);
    const v = typeof rawValue === 'string' && rawValue.trim() !== '' ? Number(rawValue) : rawValue;
    if (typeof v !== 'number' || !Number.isFinite(v)) return !!problem(line, 'value', `value must be a finite number, got ${JSON.stringify(rawValue)?.slice(0, 40)}`);
    if (Math.abs(v) > METRIC_LIMITS.maxAbsValue) return !!problem(line, 'value', `value ${v} is beyond the bound of ±${METRIC_LIMITS.maxAbsValue.toExponential()}`);
    if (time === undefined) return false;
    if (time < METRIC_LIMITS.minTime || time >= METRIC_LIMITS.maxTime) return !!problem(line, 'timestamp', 'timestamp must be between 1970 and 2200');
    t = time;
    value = v;
    return true;
  }

  /** The checked point of `line` into the batch, within the file's limit of points. */
  function keep(line: number, known: ImportSeries): boolean {
    if (++points > IMPORT_LIMITS.points) return !!problem(line, '', `a file may hold at most ${IMPORT_LIMITS.points.toLocaleString('en-US')} points; split it`);
    batch.push(line, known.no, t, value);
    return true;
  }

  /** A series met for the first time: its name, labels and unit checked once. */
  function newSeries(line: number, key: string, name: string, labels: Labels, unitGiven: unknown): ImportSeries | undefined {
    const bad = checkMetricName(name, '/name') ?? checkLabels(labels, '/labels')[0];
    if (bad) return problem(line, bad.pointer.replace(/^\//, ''), bad.detail);
    const unit = unitGiven === undefined || unitGiven === null || unitGiven === '' ? null : unitGiven;
    if (unit !== null && (typeof unit !== 'string' || unit.length > UNIT_LENGTH)) return problem(line, 'unit', `unit must be a string of at most ${UNIT_LENGTH} characters`);
    if (series.size >= IMPORT_LIMITS.series) return problem(line, '', `a file may hold at most ${IMPORT_LIMITS.series.toLocaleString('en-US')} series; split it`);
    const created = { no: series.size, key: own(key), name: own(name), labels: ownLabels(labels), unit: unit === null ? null : own(unit) };
    series.set(created.key, created);
    ordered.push(created);
    return created;
  }

  return {
    /** Every series met so far, in the order met (`no` is the index); grows as lines are read. */
    series: ordered as readonly ImportSeries[],
    get points() {
      return points;
    },
    /** True once reading should stop (too many problems, or a limit passed). */
    get stopped() {
      return problems.length >= IMPORT_LIMITS.problems;
    },
    /** The points read since the last `take`. */
    get batch(): PointBatch {
      return batch;
    },
    /** The batch so far, handed on; the next points go to a new one. */
    take(): PointBatch {
      const full = batch;
      batch = new PointBatch(POINT_BATCH);
      return full;
    },
    /**
     * The point of one line. `rawKey` (optional) names the line's series as written (a CSV line's
     * name and label cells): a series met again is then recognised without building its key.
     */
    add(line: number, fields: ImportFields, rawKey?: string): boolean {
      if (typeof fields.name !== 'string') return !!problem(line, 'name', 'name is required');
      if (!timeAndValue(line, fields.timestamp, fields.value)) return false;
      let known = rawKey === undefined ? undefined : written.get(rawKey);
      if (!known) {
        const labels = (fields.labels ?? {}) as Labels;
        if (typeof labels !== 'object' || Array.isArray(labels)) return !!problem(line, 'labels', 'labels must be an object of label names to strings');
        const key = seriesKey({ name: fields.name, labels });
        known = series.get(key) ?? newSeries(line, key, fields.name, labels, fields.unit);
        if (!known) return false;
        if (rawKey !== undefined) written.set(rawKey, known);
      }
      return keep(line, known);
    },
    /** The point of one CSV record: a series met before (by its cells as written) is not read again. */
    addCells(line: number, cells: readonly string[], columns: CsvColumns): boolean {
      const rawKey = columns.rawKey(cells);
      const known = written.get(rawKey);
      if (!known) return this.add(line, columns.fields(cells), rawKey);
      return timeAndValue(line, cells[columns.timestamp], cells[columns.value]) && keep(line, known);
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
  /** The cells of the time and the value. */
  timestamp: number;
  value: number;
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
    timestamp,
    value,
    /** The line's series as written: its name, unit and label cells. */
    rawKey: (values) => [values[name], unit < 0 ? '' : values[unit], ...labels.map(({ i }) => values[i])].join('\u0001'),
    fields: (values) => {
      const own: Record<string, string> = {};
      for (const { column, i } of labels) if (values[i]) own[column] = values[i]!;
      return { name: values[name], labels: own, timestamp: values[timestamp], value: values[value], unit: unit < 0 ? undefined : values[unit] };
    },
  };
}
