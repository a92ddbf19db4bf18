import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse/sync';
import { SvcError, validationError, type Logger, type TenantRequest } from '@svc/kit';
import { csvColumns, createImportReader, ImportProblems, IMPORT_LIMITS, ndjsonFields, type CsvColumns, type ImportFormat, type ImportPoint, type ImportReader } from '../domain/metric-import.js';
import type { MetricImportStore } from '../store/metric-import-store.js';
import { scoped } from './jobs.js';

/** Points handed to the store at a time while a file is read. */
const BATCH = 20_000;

export interface ImportOutcome {
  series: number;
  points: number;
  lines: number;
  seconds: number;
}

/**
 * The body's lines, numbered from 1 (a byte-order mark dropped, blank lines skipped); a line over
 * the length limit is recorded as a problem and comes as undefined.
 */
async function* numberedLines(body: Readable, reader: ImportReader): AsyncGenerator<{ line: number; text: string } | undefined> {
  let line = 0;
  for await (const raw of createInterface({ input: body, crlfDelay: Infinity })) {
    line++;
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (!text.trim()) continue;
    yield text.length > IMPORT_LIMITS.lineLength ? reader.unreadable(line, `a line may hold at most ${IMPORT_LIMITS.lineLength} characters`) : { line, text };
  }
}

/** The points of an NDJSON body, one JSON object a line. */
async function* ndjsonRecords(body: Readable, reader: ImportReader): AsyncGenerator<ImportPoint | undefined> {
  for await (const read of numberedLines(body, reader)) {
    if (!read) {
      yield undefined;
      continue;
    }
    const fields = ndjsonFields(read.text);
    yield typeof fields === 'string' ? reader.unreadable(read.line, fields) : reader.add(read.line, fields);
  }
}

/** One CSV record's cells: split at its commas, or read by csv-parse when the line has quotes; a string says what is wrong. */
function cellsOf(text: string): string[] | string {
  if (!text.includes('"')) return text.split(',').map((c) => c.trim());
  try {
    return (parseCsv(text, { trim: true }) as string[][])[0] ?? [];
  } catch (error) {
    return `not CSV: ${(error as Error).message.replace(/^Invalid.*?: /, '').slice(0, 200)}`;
  }
}

/**
 * The points of a CSV body: one record a line (a quoted cell may hold commas and quotes, not a
 * line break), the header first. A line without a quote is split at its commas; one with quotes
 * is read by csv-parse, so quoting follows RFC 4180 without parsing every line the slow way.
 */
async function* csvRecords(body: Readable, reader: ImportReader): AsyncGenerator<ImportPoint | undefined> {
  let columns: CsvColumns | undefined;
  for await (const read of numberedLines(body, reader)) {
    if (!read) {
      yield undefined;
      continue;
    }
    const cells = cellsOf(read.text);
    if (typeof cells === 'string') {
      yield reader.unreadable(read.line, cells);
      continue;
    }
    if (!columns) {
      const found = csvColumns(cells);
      if (typeof found === 'string') {
        yield reader.unreadable(read.line, found);
        return;
      }
      columns = found;
      continue;
    }
    yield cells.length === columns.width
      ? reader.add(read.line, columns.fields(cells), columns.rawKey(cells))
      : reader.unreadable(read.line, `expected ${columns.width} cells as the header has, got ${cells.length}`);
  }
}

/**
 * Bulk import (POST /api/v1/insight/metrics/import): a CSV or NDJSON body read as a stream,
 * checked line by line, staged and written in one transaction (metric-import-store.ts), all or
 * nothing; 422 names the lines at fault. `progress` is told every 500,000 points.
 */
export function createImportMetrics(deps: { store: MetricImportStore; log: Logger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function importMetrics(request: TenantRequest, format: ImportFormat, body: Readable, progress?: (points: number) => void): Promise<ImportOutcome> {
    const { principal, tenantId } = scoped(request, 'analyst');
    const started = now();
    const reader = createImportReader();
    let lines = 0;
    let reported = 0;
    try {
      const written = await deps.store.importFile(tenantId, async (stage) => {
        let batch: ImportPoint[] = [];
        for await (const point of format === 'csv' ? csvRecords(body, reader) : ndjsonRecords(body, reader)) {
          lines++;
          if (reader.stopped) break;
          if (!point) continue;
          batch.push(point);
          if (batch.length >= BATCH) {
            await stage(batch);
            batch = [];
            if (reader.points - reported >= 500_000) {
              reported = reader.points;
              progress?.(reported);
              deps.log.info({ tenantId, points: reported, lines }, 'metric import progress');
            }
          }
        }
        reader.done();
        if (!reader.points) throw new SvcError('BAD_USER_INPUT', 'The file holds no points: a CSV needs a header and at least one line, NDJSON at least one line', { status: 422, errors: [{ pointer: '/line/1', detail: 'no points' }] });
        await stage(batch);
        return [...reader.series.values()];
      });
      const outcome = { ...written, lines, seconds: Math.round((now() - started) / 100) / 10 };
      deps.log.info({ tenantId, by: principal.subject, format, ...outcome }, 'metrics imported');
      return outcome;
    } catch (error) {
      body.resume(); // what is left of the body is drained, so the answer reaches the client
      if (error instanceof ImportProblems) throw validationError([...error.problems], `The file was not imported: ${error.problems.length === IMPORT_LIMITS.problems ? `the first ${IMPORT_LIMITS.problems} problems` : 'its problems'} are listed in errors, by line`);
      throw error;
    }
  };
}

export type ImportMetrics = ReturnType<typeof createImportMetrics>;
