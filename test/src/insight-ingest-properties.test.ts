import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ingestInputSchema, reservedLabelProblems } from '@svc/insight/domain/metric-input';
import { METRIC_LIMITS } from '@svc/insight/domain/metric';
import { parseRfc3339 } from '@svc/insight/domain/timestamp';

/** Properties of what the ingest accepts: numbers, timestamps and label names (fast-check). */

const batch = (points: unknown[], labels: Record<string, unknown> = {}) => ({ series: [{ name: 'orders', labels, points }] });
const accepts = (input: unknown) => ingestInputSchema.safeParse(input).success;

describe('ingest properties', () => {
  it('accepts every finite value within the bound and refuses every one beyond it, naming the value', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (value) => {
        const result = ingestInputSchema.safeParse(batch([{ timestamp: 1_700_000_000_000, value }]));
        const within = Number.isFinite(value) && Math.abs(value) <= METRIC_LIMITS.maxAbsValue;
        expect(result.success).toBe(within);
        if (!result.success) expect(result.error.issues[0]!.path).toEqual(['series', 0, 'points', 0, 'value']);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads integer epoch milliseconds as themselves and refuses fractional ones', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: METRIC_LIMITS.maxTime - 1 }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), (t, fraction) => {
        const parsed = ingestInputSchema.parse(batch([{ timestamp: t, value: 1 }]));
        expect(parsed.series[0]!.points[0]!.timestamp).toBe(t);
        expect(accepts(batch([{ timestamp: t + fraction, value: 1 }]))).toBe(false);
      }),
    );
  });

  it('reads every RFC 3339 rendering of an instant as that instant, with any offset', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('2199-12-30T00:00:00Z'), noInvalidDate: true }), fc.integer({ min: -14 * 60, max: 14 * 60 }), (date, offsetMinutes) => {
        const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = offsetMinutes < 0 ? '-' : '+';
        const abs = Math.abs(offsetMinutes);
        const text = `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        expect(parseRfc3339(text)).toBe(date.getTime());
        expect(parseRfc3339(date.toISOString())).toBe(date.getTime());
      }),
    );
  });

  it('refuses what Date.parse would guess: bare numbers, words, impossible days, sub-millisecond precision', () => {
    for (const text of ['1', '2026', 'Nov 1 2026', '2026-02-30T00:00:00Z', '2026-04-31', '2026-11-01T24:00:00Z', '2026-11-01 00:00:00', '2026-11-01T00:00:00.0001Z', '2026-11-01T00:00:00+25:00']) {
      expect([text, accepts(batch([{ timestamp: text, value: 1 }]))]).toEqual([text, false]);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }).filter((s) => !/^\d{4}-\d{2}-\d{2}/.test(s)), (text) => {
        expect(typeof parseRfc3339(text)).toBe('object');
      }),
    );
  });

  it('refuses the label names that reach a prototype, wherever they appear, and accepts ordinary ones', () => {
    fc.assert(
      fc.property(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), (reserved, ordinary) => {
        const labels = JSON.parse(`{${JSON.stringify(ordinary)}: "a", ${JSON.stringify(reserved)}: "b"}`) as Record<string, unknown>;
        const input = batch([{ timestamp: 1, value: 1 }], labels);
        const problems = reservedLabelProblems(input);
        expect(problems).toEqual([{ pointer: `/series/0/labels/${reserved}`, detail: `label name "${reserved}" is reserved` }]);
        if (ordinary !== reserved) expect(reservedLabelProblems(batch([{ timestamp: 1, value: 1 }], { [ordinary]: 'a' }))).toEqual([]);
      }),
    );
  });

  it('keeps the points limit inside the default 1 MiB body: the largest batch of long values and offsets fits', () => {
    const points = Array.from({ length: METRIC_LIMITS.pointsPerBatch }, (_, i) => ({ timestamp: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().replace('Z', '+00:00'), value: -123456789012345.67 }));
    const body = JSON.stringify({ series: [{ name: 'a'.repeat(METRIC_LIMITS.nameLength), labels: { region: 'x'.repeat(200) }, unit: 'u'.repeat(30), points }] });
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    expect(accepts(JSON.parse(body))).toBe(true);
    expect(accepts({ series: [{ name: 'a', points: [...points, { timestamp: '2030-01-01T00:00:00Z', value: 1 }] }] })).toBe(false);
  });
});
