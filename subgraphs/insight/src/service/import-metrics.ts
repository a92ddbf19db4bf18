import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse as parseCsv } from 'csv-parse/sync';
import { collectGarbage, SvcError, validationError, type Logger, type TenantRequest } from '@svc/kit';
import { csvColumns, createImportReader, importFormatOf, ImportProblems, IMPORT_LIMITS, ndjsonFields, type CsvColumns, type ImportFormat, type ImportReader, type PointBatch } from '../domain/metric-import.js';
import type { MetricImportStore } from '../store/metric-import-store.js';
import { scoped } from './jobs.js';

/** What the caller hears of an import before its outcome. */
export interface ImportListener {
  /** The caller may import and the file's type is known: reading starts. */
  accepted?: () => void;
  /** Points read so far, every 500,000. */
  progress?: (points: number) => void;
}

export interface ImportOutcome {
  series: number;
  points: number;
  lines: number;
  seconds: number;
}

/** The request's body could not be read to its end: the client closed the connection. */
class BodyBroken extends Error {
  constructor(cause: unknown) {
    super('the request body ended early', { cause });
  }
}

/**
 * The body's lines as they arrive, a chunk's worth at a time (split at \n, so \r\n too; no
 * step per line between chunks), numbered from `first`. A line longer than the limit is cut
 * just past it as it arrives (so it is not held whole) and reported by the reader.
 */
async function* lineBlocks(body: Readable): AsyncGenerator<{ first: number; lines: string[] }> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let cutting = false;
  let first = 1;
  const block = (text: string) => {
    if (cutting) {
      const end = text.indexOf('\n');
      if (end < 0) return [];
      cutting = false;
      text = text.slice(end);
    }
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    if (rest.length > IMPORT_LIMITS.lineLength) {
      rest = rest.slice(0, IMPORT_LIMITS.lineLength + 1);
      cutting = true;
    }
    return lines;
  };
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    let read: IteratorResult<Buffer>;
    try {
      read = await chunks.next();
    } catch (error) {
      throw new BodyBroken(error);
    }
    if (read.done) break;
    const lines = block(decoder.write(read.value));
    if (!lines.length) continue;
    yield { first, lines };
    first += lines.length;
  }
  const last = [...block(decoder.end()), ...(rest ? [rest] : [])];
  if (last.length) yield { first, lines: last };
}

/** One CSV record's cells: split at its commas, or read by csv-parse when the line has quotes; a string says what is wrong. */
function cellsOf(text: string): string[] | string {
  if (!text.includes('"')) {
    const cells = text.split(',');
    return text.includes(' ') || text.includes('\t') ? cells.map((c) => c.trim()) : cells;
  }
  try {
    return (parseCsv(text, { trim: true }) as string[][])[0] ?? [];
  } catch (error) {
    return `not CSV: ${(error as Error).message.replace(/^Invalid.*?: /, '').slice(0, 200)}`;
  }
}

/** Reads one file's lines into the reader: CSV (the header first) or NDJSON; true for a line of points (not the header). */
function lineReader(format: ImportFormat, reader: ImportReader): (line: number, text: string) => boolean {
  if (format === 'ndjson') {
    return (line, text) => {
      const fields = ndjsonFields(text);
      if (typeof fields === 'string') reader.unreadable(line, fields);
      else reader.add(line, fields);
      return true;
    };
  }
  // A quoted cell may hold commas and quotes, not a line break: quoting follows RFC 4180, and a
  // line without a quote is split at its commas rather than parsed the slow way.
  let columns: CsvColumns | undefined;
  let badHeader = false;
  return (line, text) => {
    if (badHeader) return false; // reported once: without columns no line can be read
    const cells = cellsOf(text);
    if (typeof cells === 'string') reader.unreadable(line, cells);
    else if (columns) {
      if (cells.length === columns.width) reader.addCells(line, cells, columns);
      else reader.unreadable(line, `expected ${columns.width} cells as the header has, got ${cells.length}`);
    } else {
      const found = csvColumns(cells);
      if (typeof found !== 'string') columns = found;
      else {
        badHeader = true;
        reader.unreadable(line, found);
      }
      return badHeader;
    }
    return true;
  };
}

/**
 * Bulk import (POST /api/v1/insight/metrics/import): a CSV or NDJSON body read as a stream,
 * checked line by line, copied and written in one transaction (metric-import-store.ts), all or
 * nothing; 422 names the lines at fault. The caller's tenant and role are checked before the
 * Content-Type (`contentType`: text/csv or application/x-ndjson).
 */
export function createImportMetrics(deps: { store: MetricImportStore; log: Logger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function importMetrics(request: TenantRequest, contentType: string, body: Readable, tell: ImportListener = {}): Promise<ImportOutcome> {
    // The caller first (tenant and role), then what it sent.
    const { principal, tenantId } = scoped(request, 'analyst');
    const format = importFormatOf(contentType);
    tell.accepted?.();
    const progress = tell.progress;
    const started = now();
    const reader = createImportReader();
    let lines = 0;
    let reported = 0;
    /** The file's points in batches as they are read; the reader's problems end it (and the COPY) with an error. */
    async function* batches(): AsyncGenerator<PointBatch> {
      const read = lineReader(format, reader);
      reading: for await (const { first, lines: block } of lineBlocks(body)) {
        for (let i = 0; i < block.length; i++) {
          const line = first + i;
          let text = block[i]!;
          if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
          if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
          if (!text || (text.charCodeAt(0) <= 32 && !text.trim())) continue;
          if (text.length > IMPORT_LIMITS.lineLength) {
            lines++;
            reader.unreadable(line, `a line may hold at most ${IMPORT_LIMITS.lineLength} characters`);
          } else if (read(line, text)) lines++;
          if (reader.stopped) break reading;
          if (reader.batch.full) yield reader.take();
        }
        if (reader.points - reported >= 500_000) {
          reported = reader.points;
          progress?.(reported);
          deps.log.info({ tenantId, points: reported, lines }, 'metric import progress');
        }
      }
      reader.done();
      if (!reader.points) throw new SvcError('BAD_USER_INPUT', 'The file holds no points: a CSV needs a header and at least one line, NDJSON at least one line', { status: 422, errors: [{ pointer: '/line/1', detail: 'no points' }] });
      yield reader.take();
    }
    try {
      const written = await deps.store.importFile(tenantId, batches(), reader.series);
      const outcome = { ...written, lines, seconds: Math.round((now() - started) / 100) / 10 };
      // A large file's request chunks, lines and COPY buffers are garbage now, most of it promoted
      // while the COPY held the stream back: freed at once, not beside the analysis that follows.
      const gcMs = written.points >= IMPORT_LIMITS.collectAfterPoints ? Math.round(collectGarbage()) : undefined;
      deps.log.info({ tenantId, by: principal.subject, format, ...outcome, ...(gcMs !== undefined ? { gcMs } : {}) }, 'metrics imported');
      return outcome;
    } catch (error) {
      if (error instanceof BodyBroken) {
        // Nothing to answer: the transaction was rolled back with the connection.
        deps.log.warn({ tenantId, by: principal.subject, format, lines, points: reader.points }, 'metric import abandoned: the client closed the connection before the file ended; nothing was imported');
        throw new SvcError('BAD_USER_INPUT', 'The request ended before the file did: nothing was imported');
      }
      body.resume(); // what is left of the body is drained, so the answer reaches the client
      if (error instanceof ImportProblems) throw validationError([...error.problems], `The file was not imported: ${error.problems.length === IMPORT_LIMITS.problems ? `the first ${IMPORT_LIMITS.problems} problems` : 'its problems'} are listed in errors, by line`);
      throw error;
    }
  };
}

export type ImportMetrics = ReturnType<typeof createImportMetrics>;
