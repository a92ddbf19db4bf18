import { describe, expect, it } from '@jest/globals';
import { createImportReader, csvColumns, ImportProblems, IMPORT_LIMITS, ndjsonFields } from './metric-import.js';

describe('the import reader', () => {
  it('keeps each series once, recognising it by how a line wrote it, and numbers points by line', () => {
    const columns = csvColumns(['name', 'timestamp', 'value', 'region']);
    if (typeof columns === 'string') throw new Error(columns);
    const reader = createImportReader();
    const cells = [['orders', '2026-11-01T00:00:00Z', '3', 'eu'], ['orders', '1793577600000', '4', 'eu'], ['orders', '2026-11-01T00:00:00Z', '5', '']];
    expect(cells.map((c, i) => reader.addCells(i + 2, c, columns))).toEqual([true, true, true]);
    const keys = [...reader.series.values()].map((s) => s.key);
    const batch = reader.take();
    expect(Array.from({ length: batch.length }, (_, i) => [batch.line[i], keys[batch.series[i]!], batch.value[i]])).toEqual([[2, 'orders{region="eu"}', 3], [3, 'orders{region="eu"}', 4], [4, 'orders{}', 5]]);
    expect([...reader.series.values()].map((s) => s.labels)).toEqual([{ region: 'eu' }, {}]);
    expect(() => reader.done()).not.toThrow();
  });

  it('names each bad line and field, and stops after twenty problems', () => {
    const reader = createImportReader();
    reader.add(1, { name: 'Bad Name', labels: {}, timestamp: 0, value: 1, unit: undefined });
    reader.add(2, { name: 'ok', labels: { 'Bad-Key': 'x' }, timestamp: 0, value: 1, unit: undefined });
    reader.add(3, { name: 'ok', labels: {}, timestamp: 1.5, value: 1, unit: undefined });
    reader.add(4, { name: 'ok', labels: {}, timestamp: '2300-01-01T00:00:00Z', value: 1, unit: undefined });
    reader.add(5, { name: 'ok', labels: {}, timestamp: 0, value: Number.NaN, unit: undefined });
    reader.add(6, { name: 'ok', labels: {}, timestamp: 0, value: 1, unit: 'x'.repeat(31) });
    let caught: unknown;
    try {
      reader.done();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ImportProblems);
    expect((caught as ImportProblems).problems.map((p) => p.pointer)).toEqual(['/line/1/name', '/line/2/labels/Bad-Key', '/line/3/timestamp', '/line/4/timestamp', '/line/5/value', '/line/6/unit']);
    for (let line = 7; line < 40; line++) reader.add(line, { name: 'ok', labels: {}, timestamp: 'never', value: 1, unit: undefined });
    expect(reader.stopped).toBe(true);
    expect(IMPORT_LIMITS.problems).toBe(20);
  });

  it('reads NDJSON lines and CSV headers, refusing what they cannot map', () => {
    expect(ndjsonFields('{"name":"a","timestamp":1,"value":2}')).toMatchObject({ name: 'a', timestamp: 1, value: 2 });
    expect(ndjsonFields('[1,2]')).toContain('not a JSON object');
    expect(ndjsonFields('{"name":"a","when":1}')).toContain('unknown member "when"');
    expect(csvColumns(['metric', 'when', 'amount'])).toContain('name, timestamp and value');
  });
});
