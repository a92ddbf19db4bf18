/**
 * Planted causes, part 2 (premise, normal range, events, months, forecasts, unknown metrics):
 * generated series with a known truth, on names the demo never uses.
 */
import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { answerFirstSentence } from './answer.js';
import { addDays, dayOf } from './days.js';
import { formatValue } from './format.js';
import type { SeriesPoint } from './series.js';
import { generateDaily, type Shape } from './synthetic-series.js';

const now = Date.parse('2026-11-18T10:00:00Z');
const start = addDays('2026-11-17', -399);
const shape = (seed: number, level: number, extra: Partial<Shape> = {}): Shape => ({ start, days: 400, level, seed, ...extra });
const sum = (points: readonly SeriesPoint[], from: string, to: string) => points.filter((p) => dayOf(p.t) >= from && dayOf(p.t) <= to).reduce((a, p) => a + p.value, 0);
const count = { kind: 'count' as const };

describe('planted causes: premise, normal range, events, months, forecasts, unknown metrics', () => {
  it('a false premise: asked why signups dropped when they rose 10 %', () => {
    const points = generateDaily(shape(61, 3000), (d) => (d >= '2026-11-09' ? 1.1 : 1));
    const f = analyse({ question: 'Why did signups drop last week?', catalog: [{ name: 'signups' }], series: [{ name: 'signups', labels: {}, points }], now });
    const after = sum(points, '2026-11-09', '2026-11-15');
    const before = sum(points, '2026-11-02', '2026-11-08');
    expect(f.premise).toMatchObject({ verdict: 'false-premise', observed: 'up', claimed: 'down' });
    expect(f.premise!.relativeChange).toBeCloseTo(after / before - 1, 12);
    expect(answerFirstSentence(f)).toBe(`signups did not fall over Mon 9 – Sun 15 Nov: it rose ${((after / before - 1) * 100).toFixed(1)} %, from ${formatValue(before, count)} to ${formatValue(after, count)} against the week before.`);
  });

  it('within normal variation: a 2 % "spike" inside the expected range is called normal', () => {
    const points = generateDaily(shape(75, 3000, { noise: 0.05 }), (d) => (d >= '2026-11-09' ? 1.02 : 1));
    const f = analyse({ question: 'Why did bookings spike last week?', catalog: [{ name: 'bookings' }], series: [{ name: 'bookings', labels: {}, points }], now });
    const band = f.premise!.band!;
    expect(f.premise).toMatchObject({ verdict: 'within-normal', observed: 'up', position: 'inside' });
    expect(band.p10).toBeLessThan(f.premise!.actual);
    expect(band.p90).toBeGreaterThan(f.premise!.actual);
    expect(f.causes).toEqual([]);
    expect(f.remainder).toEqual({ value: f.premise!.change, share: 1 });
    expect(answerFirstSentence(f)).toBe(
      `bookings rose 2.0 % over Mon 9 – Sun 15 Nov, from ${formatValue(f.premise!.comparison, count)} to ${formatValue(f.premise!.actual, count)} against the week before, which is within its normal range for the period (expected ${formatValue(band.p10, count)} to ${formatValue(band.p90, count)}, p10–p90).`,
    );
  });

  it('an event-aligned cause: signups fell a quarter the day the pricing page\'s version 7 was published', () => {
    const points = generateDaily(shape(91, 3000), (d) => (d >= '2026-11-12' ? 0.75 : 1));
    const events = [
      { at: '2026-11-12T09:30:00Z', kind: 'content.published', title: 'pricing page version 7 published', ref: 'v7' },
      { at: '2026-10-20T10:00:00Z', kind: 'deploy', title: 'unrelated deploy' },
      { at: 'last Tuesday', kind: 'note', title: 'an event without a valid time' },
    ];
    const series = [{ name: 'signups', labels: {}, points }, { name: 'refunds', labels: {}, points: generateDaily(shape(92, 100)) }];
    const f = analyse({ question: 'Why did signups drop last week?', catalog: [{ name: 'signups' }, { name: 'refunds' }], series, events, now });
    expect(f.premise?.verdict).toBe('confirmed');
    expect(f.changePoint?.day).toBe('2026-11-12');
    expect(f.changePoint!.shift).toBeCloseTo(-0.25, 1);
    expect(f.events.map((e) => [e.event.ref, e.changePoint, e.offsetDays])).toEqual([['v7', '2026-11-12', 0]]);
    expect(f.candidates).toEqual([]);
    expect(f.remainder.share).toBe(1);
    expect(f.notes).toContain('1 event(s) without a valid time were left out');
    expect(answerFirstSentence(f)).toMatch(/^signups fell 1\d\.\d % over Mon 9 – Sun 15 Nov, .*; the change started Thu 12 Nov, the day of “pricing page version 7 published”\.$/);
  });

  it('an undeclared series that moved the same day is a low-confidence candidate, never a cause', () => {
    // Payments go through less the day after retries rise (elasticity −0.6, in the history too); retries rose 60 % on the 11th.
    const retries = generateDaily(shape(94, 500, { noise: 0.06 }), (d) => (d >= '2026-11-11' ? 1.6 : 1));
    const base = generateDaily(shape(93, 3000));
    const points = base.map((p, i) => ({ t: p.t, value: p.value * (i > 0 ? (retries[i - 1]!.value / 500) ** -0.6 : 1) }));
    const f = analyse({ question: 'why did payments_ok fall last week', catalog: [{ name: 'payments_ok' }, { name: 'gateway_retries' }], series: [{ name: 'payments_ok', labels: {}, points }, { name: 'gateway_retries', labels: {}, points: retries }], now });
    expect(f.changePoint?.day).toBe('2026-11-12');
    expect(f.candidates).toEqual([{ metric: 'gateway_retries', reason: 'change-point', day: '2026-11-11', shift: expect.any(Number), implied: { change: expect.any(Number), share: expect.any(Number), elasticity: expect.any(Number) }, confidence: 'low', wording: 'moved at the same time' }]);
    expect(f.candidates[0]!.implied!.elasticity).toBeCloseTo(-0.6, 0);
    expect(f.causes).toEqual([]);
    // An unrelated series that jumped the same day is not offered: the history shows its moves never reached payments.
    const unrelated = generateDaily(shape(95, 800, { noise: 0.08 }), (d) => (d >= '2026-11-12' ? 1.5 : 1));
    const g = analyse({ question: 'why did payments_ok fall last week', catalog: [{ name: 'payments_ok' }, { name: 'queue_depth' }], series: [{ name: 'payments_ok', labels: {}, points }, { name: 'queue_depth', labels: {}, points: unrelated }], now });
    expect(g.candidates).toEqual([]);
  });

  it('month against month: bookings fell a fifth in October against September', () => {
    const points = generateDaily(shape(101, 3000), (d) => (d >= '2026-10-01' && d <= '2026-10-31' ? 0.8 : 1));
    const f = analyse({ question: 'Why did bookings fall in October compared with September?', catalog: [{ name: 'bookings' }], series: [{ name: 'bookings', labels: {}, points }], now });
    const oct = sum(points, '2026-10-01', '2026-10-31');
    const sep = sum(points, '2026-09-01', '2026-09-30');
    expect([f.periods?.period, f.periods?.comparison]).toEqual([{ from: '2026-10-01', to: '2026-10-31', kind: 'month' }, { from: '2026-09-01', to: '2026-09-30', kind: 'month' }]);
    expect([f.premise!.actual, f.premise!.comparison]).toEqual([expect.closeTo(oct, 6), expect.closeTo(sep, 6)]);
    expect(f.premise?.verdict).toBe('confirmed');
    expect(f.changePoint?.day).toBe('2026-10-01');
    expect(answerFirstSentence(f)).toMatch(new RegExp(`^bookings fell ${((1 - oct / sep) * 100).toFixed(1)} % in October 2026, from ${formatValue(sep, count)} to ${formatValue(oct, count)} against September 2026, below its expected range of [\\d,]+ to [\\d,]+; the change started Thu 1 Oct\\.$`));
  });

  it('a forecast whose band covers the continuation', () => {
    let inside = 0;
    let days = 0;
    let totals = 0;
    for (const seed of [111, 112, 113, 114]) {
      const all = generateDaily({ start, days: 430, level: 3000, seed });
      const f = analyse({ question: 'Where are signups heading next month?', catalog: [{ name: 'signups' }], series: [{ name: 'signups', labels: {}, points: all.slice(0, 400) }], now });
      expect(f.intents).toEqual(['forecast']);
      const fc = f.forecast!;
      expect([fc.from, fc.to, fc.points.length]).toEqual(['2026-11-18', '2026-12-17', 30]);
      fc.points.forEach((p, i) => {
        days++;
        if (all[400 + i]!.value >= p.p10 && all[400 + i]!.value <= p.p90) inside++;
      });
      const actual = all.slice(400).reduce((a, p) => a + p.value, 0);
      if (actual >= fc.p10 && actual <= fc.p90) totals++;
      const figure = (v: number) => formatValue(v, count).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(answerFirstSentence(f)).toMatch(new RegExp(`^signups is expected at ${figure(fc.p50)} from Wed 18 Nov to Thu 17 Dec \\(p10–p90 ${figure(fc.p10)} to ${figure(fc.p90)}\\), after it (rose|fell|was flat) .*over Mon 9 – Sun 15 Nov\\.$`));
    }
    expect(inside / days).toBeGreaterThanOrEqual(0.7);
    expect(totals).toBeGreaterThanOrEqual(2);
  });

  it('an unknown metric: says so, lists what exists, invents nothing', () => {
    const f = analyse({ question: 'Why did churn drop yesterday?', catalog: [{ name: 'bookings' }, { name: 'signups' }, { name: 'gmv_eur' }], series: [], now });
    expect(f).toMatchObject({ status: 'unknown-metric', available: ['bookings', 'gmv_eur', 'signups'], causes: [], candidates: [], events: [] });
    expect(f.premise).toBeUndefined();
    expect(answerFirstSentence(f)).toBe('No metric in this tenant\'s catalog matches "churn", so nothing was analysed; the catalog has bookings, gmv_eur, signups.');
  });

  it('an unknown metric: names what was asked for and the metrics closest to it by name or synonym', () => {
    const catalog = [{ name: 'shipped_units' }, { name: 'shipping_cost' }, { name: 'courier_shifts' }, { name: 'fuel_litres' }];
    const f = analyse({ question: 'Why did shipments fall last week?', catalog, series: [], now });
    expect(f).toMatchObject({ status: 'unknown-metric', asked: 'shipments' });
    expect([...f.closest!].sort()).toEqual(['shipped_units', 'shipping_cost']);
    expect(answerFirstSentence(f)).toMatch(/^No metric in this tenant's catalog matches "shipments", so nothing was analysed; the closest by name or meaning are (shipped_units and shipping_cost|shipping_cost and shipped_units); the catalog has courier_shifts, fuel_litres, shipped_units, shipping_cost\.$/);
    const vague = analyse({ question: 'Why did it drop yesterday?', catalog, series: [], now });
    expect(vague).toMatchObject({ status: 'unknown-metric', closest: [] });
    expect(vague.asked).toBeUndefined();
    expect(answerFirstSentence(vague)).toMatch(/^No metric in this tenant's catalog matches the question, so nothing was analysed; the catalog has/);
  });

  it('a metric named by its words: CDN traffic fell yesterday', () => {
    const points = generateDaily(shape(3, 5e9), (d) => (d === '2026-11-17' ? 0.7 : 1));
    const f = analyse({ question: 'Why did CDN traffic drop yesterday?', catalog: [{ name: 'bookings' }, { name: 'cdn_traffic_bytes', unit: { kind: 'count', noun: 'bytes' } }], series: [{ name: 'cdn_traffic_bytes', labels: {}, points }], now });
    expect(f.subject).toMatchObject({ name: 'cdn_traffic_bytes', how: 'token' });
    expect(f.periods?.period).toEqual({ from: '2026-11-17', to: '2026-11-17', kind: 'day' });
    expect(f.premise?.verdict).toBe('confirmed');
    expect(f.changePoint?.day).toBe('2026-11-17');
    expect(answerFirstSentence(f)).toMatch(/^cdn_traffic_bytes fell \d+\.\d % on Tue 17 Nov, from [\d,]+ bytes to [\d,]+ bytes against the same day a week before \(Tue 10 Nov\), below its expected range/);
  });

  it('a bare what-if: the lever is read with its label and its effect estimated through the declared driver', () => {
    const clicks = generateDaily(shape(55, 20000, { noise: 0.15 }));
    const byDay = new Map(clicks.map((p) => [dayOf(p.t), p.value]));
    const trials = generateDaily(shape(56, 700, { noise: 0.01 }), (d) => ((byDay.get(d) ?? 20000) / 20000) ** 0.5);
    const catalog = [{ name: 'trial_starts', drivers: [{ metric: 'ad_clicks' }] }, { name: 'ad_clicks', labels: ['channel'] }];
    const f = analyse({ question: 'What if we increase search ad clicks by 20%?', catalog, series: [{ name: 'trial_starts', labels: {}, points: trials }, { name: 'ad_clicks', labels: { channel: 'search' }, points: clicks }], now });
    expect(f.subject).toMatchObject({ name: 'trial_starts', how: 'lever-target' });
    const w = f.whatIf!;
    expect([w.metric, w.labels, w.change]).toEqual(['ad_clicks', { channel: 'search' }, 0.2]);
    expect(w.effect!.elasticity).toBeCloseTo(0.5, 1);
    expect(w.effect!.p50).toBeCloseTo(f.premise!.actual * (1.2 ** w.effect!.elasticity - 1), 6);
    expect(answerFirstSentence(f)).toMatch(/^"increase search ad clicks by 20%" would change trial_starts by \+[\d,]+ over a period like Mon 9 – Sun 15 Nov \(p10–p90 \+[\d,]+ to \+[\d,]+, elasticity 0\.\d\d estimated\)\.$/);
  });
});
