import { describe, expect, it } from '@jest/globals';
import type { ToolOutcome } from './composed.js';
import { analyse } from '../engine/analyse.js';
import type { CatalogEntry } from '../engine/catalog.js';
import { addDays, dayOf } from '../engine/days.js';
import { narrate } from '../engine/narrative.js';
import type { SeriesData } from '../engine/series.js';
import { generateDaily, generateLeaves, totalOf } from '../engine/synthetic-series.js';
import { composeReport } from './compose-report.js';
import { segmentTable } from './segment-table.js';

/** The drill-down table of segments, on planted causes with names the demo never had. */

const now = Date.parse('2026-11-18T10:00:00Z');
const start = addDays('2026-11-17', -399);
const outcome = (finding: ReturnType<typeof analyse>): ToolOutcome<'analyse_change'> => ({ step: 4, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' });
/** The sum of the leaves matching `keep` over the days from `from` to `to`. */
const sum = (series: readonly SeriesData[], keep: (s: SeriesData) => boolean, from: string, to: string) =>
  series.filter(keep).reduce((a, s) => a + s.points.filter((p) => dayOf(p.t) >= from && dayOf(p.t) <= to).reduce((b, p) => b + p.value, 0), 0);

describe('the segment table', () => {
  // Parcels by depot and carrier; from Tuesday 10 Nov the depot "harbour" loses 45 % of them.
  const leaves = generateLeaves('parcels', { depot: ['harbour', 'airport', 'city', 'rail'], carrier: ['van', 'bike'] }, { start, days: 400, level: 12_000, seed: 17 }, (labels, day) =>
    labels.depot === 'harbour' && day >= '2026-11-10' ? 0.55 : 1,
  );
  const catalog: CatalogEntry[] = [{ name: 'parcels', unit: { kind: 'count', noun: 'parcels' }, labels: ['depot', 'carrier'] }];
  const finding = analyse({ question: 'Why did parcels fall last week?', catalog, series: [totalOf('parcels', leaves), ...leaves], now });

  it('ranks the segments by contribution with the engine\'s figures, and ends with the change of all the segments not listed', () => {
    const table = segmentTable(outcome(finding))!;
    expect(table).toMatchObject({ metric: 'parcels', unit: 'parcels', step: 4, values: 'TOTAL', period: { from: '2026-11-09', to: '2026-11-15', text: 'Mon 9 – Sun 15 Nov' }, comparison: { from: '2026-11-02', to: '2026-11-08' } });
    expect(table.method).toBe('localization');
    const [first, ...others] = table.rows;
    expect(first!.kind).toBe('SEGMENT');
    expect(first!.labels.depot).toBe('harbour');
    const harbour = (s: SeriesData) => Object.entries(first!.labels).every(([k, v]) => s.labels[k] === v);
    expect(first!.before).toBeCloseTo(sum(leaves, harbour, '2026-11-02', '2026-11-08'), 6);
    expect(first!.after).toBeCloseTo(sum(leaves, harbour, '2026-11-09', '2026-11-15'), 6);
    expect(first!.contribution).toBeCloseTo(first!.after! - first!.before!, 6);
    expect(first!.share).toBeCloseTo(first!.contribution / finding.premise!.change, 12);
    const engine = finding.segments!.causes.find((c) => c.labels.depot === 'harbour')!;
    expect([first!.explanatoryPower, first!.surprise]).toEqual([engine.explanatoryPower, engine.surprise]);
    expect(first!.text.contribution).toMatch(/^−[\d,]+ parcels$/);
    expect(first!.text.before).toMatch(/^[\d,]+ parcels$/);
    expect(first!.text.share).toMatch(/^\d+ %$/);
    expect(first!.text.explanatoryPower).toMatch(/^\d\.\d\d$/);
    // Largest contribution first, the rest last; together they are the change.
    const magnitudes = table.rows.slice(0, -1).map((r) => Math.abs(r.contribution));
    expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a));
    const rest = others.at(-1) ?? first!;
    expect(rest).toMatchObject({ kind: 'REMAINDER', label: 'all other segments', labels: {}, before: null, after: null, explanatoryPower: null, surprise: null });
    expect(table.rows.reduce((a, r) => a + r.contribution, 0)).toBeCloseTo(finding.premise!.change, 6);
    expect(table.rows.reduce((a, r) => a + r.share, 0)).toBeCloseTo(1, 9);
    expect(table.changeText).toMatch(/^−[\d,]+ parcels$/);
  });

  it('shows a ratio\'s segments as their own ratio, and contributions in points', () => {
    const devices = { device: ['ios', 'android', 'web'] };
    const visits = generateLeaves('visits', devices, { start, days: 400, level: 30_000, seed: 23, noise: 0.01 });
    const buys = visits.map((v, k) => ({ name: 'buys', labels: v.labels, points: v.points.map((p) => ({ t: p.t, value: p.value * (v.labels.device === 'android' && dayOf(p.t) >= '2026-11-10' ? 0.02 : 0.04) * (1 + 0.01 * Math.sin(k + p.t)) })) }));
    const ratioCatalog: CatalogEntry[] = [
      { name: 'checkout_rate', unit: { kind: 'ratio' }, aggregation: { ratio: { numerator: 'buys', denominator: 'visits' } } },
      { name: 'buys', labels: ['device'] },
      { name: 'visits', labels: ['device'] },
    ];
    const series = [totalOf('visits', visits), totalOf('buys', buys), ...visits, ...buys];
    const f = analyse({ question: 'Why did checkout_rate fall last week?', catalog: ratioCatalog, series, now });
    const table = segmentTable(outcome(f))!;
    expect(table.values).toBe('RATIO');
    const android = table.rows[0]!;
    expect(android.labels).toEqual({ device: 'android' });
    const isAndroid = (s: SeriesData) => s.labels.device === 'android';
    const ratio = (from: string, to: string) => sum(buys, isAndroid, from, to) / sum(visits, isAndroid, from, to);
    expect(android.before).toBeCloseTo(ratio('2026-11-02', '2026-11-08'), 9);
    expect(android.after).toBeCloseTo(ratio('2026-11-09', '2026-11-15'), 9);
    expect(android.text.before).toMatch(/^\d\.\d+ %$/);
    expect(android.text.contribution).toMatch(/^−[\d.]+ pts$/);
    expect(table.rows.reduce((a, r) => a + r.contribution, 0)).toBeCloseTo(f.premise!.change, 12);
  });

  it('is absent when the metric has no labels, and when nothing moved', () => {
    const points = generateDaily({ start, days: 400, level: 3000, seed: 5 }, (d) => (d >= '2026-11-10' ? 0.7 : 1));
    const unlabelled = analyse({ question: 'Why did lockers drop last week?', catalog: [{ name: 'lockers' }], series: [{ name: 'lockers', labels: {}, points }], now });
    expect(unlabelled.premise?.observed).toBe('down');
    expect(segmentTable(outcome(unlabelled))).toBeUndefined();
    const flat = { ...finding, premise: { ...finding.premise!, observed: 'flat' as const } };
    expect(segmentTable(outcome(flat))).toBeUndefined();
  });

  it('travels in the report beside the charts, one per analysis that found segments', () => {
    const { report } = composeReport({ prompt: 'Why did parcels fall last week?', outcomes: [outcome(finding)], contentAsked: false });
    expect(report.segmentTables).toHaveLength(1);
    expect(report.segmentTables![0]!.rows.at(-1)!.kind).toBe('REMAINDER');
    expect(report.charts.map((c) => c.kind)).toEqual(['SERIES', 'WATERFALL']);
    const none = composeReport({ prompt: 'How many parcels?', outcomes: [], contentAsked: false });
    expect(none.report.segmentTables).toEqual([]);
  });
});
