import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { addDays, timeOf } from './days.js';
import { narrate } from './narrative.js';

const now = Date.parse('2026-11-18T10:00:00Z');
const flat = (name: string, labels: Record<string, string>, from: string, days: number, value: (i: number) => number) =>
  ({ name, labels, points: Array.from({ length: days }, (_, i) => ({ t: timeOf(addDays(from, i)), value: value(i) })) });

describe('analyse', () => {
  it('says there is no data for the period instead of inventing figures', () => {
    const f = analyse({ question: 'why did parcels drop last week', catalog: [{ name: 'parcels' }], series: [flat('parcels', {}, '2026-09-01', 10, () => 5)], now });
    expect(f).toMatchObject({ status: 'no-data', missing: 'comparison' });
    expect(f.periods?.period).toEqual({ from: '2026-08-31', to: '2026-09-06', kind: 'iso-week' });
    expect(f.notes.at(-1)).toBe('parcels has no data for the comparison period');
  });

  it('predicts the expected range from the history before a move that started before the period', () => {
    // Items fall from about 480 to about 40 a day on Sat 7 Nov, two days before last week (Mon 9 – Sun 15 Nov).
    const series = [flat('items', {}, '2026-09-01', 78, (i) => (i >= 67 ? 40 + (i % 3) : 480 + (i % 5)))];
    const f = analyse({ question: 'why did items drop last week', catalog: [{ name: 'items' }], series, now });
    expect(f.changePoint?.day).toBe('2026-11-07');
    expect(f.premise).toMatchObject({ observed: 'down', position: 'below', verdict: 'confirmed' });
    // Without the fall in its history the range is a week at the old level, never below zero.
    expect(f.premise!.band).toMatchObject({ historyBefore: '2026-11-07' });
    expect(f.premise!.band!.p10).toBeGreaterThan(7 * 400);
    expect(f.notes).toContain('the change started on 2026-11-07, before the period: the expected range comes from the history before that day');
    expect(narrate(f).statements.find((st) => st.topic === 'range')?.text).toMatch(/^From the history before the change started \(Sat 7 Nov\), items was expected between /);
  });

  it('states the causes that matter and leaves a factor of 1 % of the change to the waterfall', () => {
    // cancel_rate = cancels ÷ bookings: cancels double from Mon 9 Nov, bookings wobble a little.
    const series = [
      flat('cancels', {}, '2026-09-01', 76, (i) => (i >= 69 ? 16 + (i % 3) : 8 + (i % 3))),
      flat('bookings', {}, '2026-09-01', 76, (i) => 100 + (i % 4)),
    ];
    const f = analyse({ question: 'why did the cancel rate go up last week', catalog: [{ name: 'cancel_rate', aggregation: { ratio: { numerator: 'cancels', denominator: 'bookings' } } }, { name: 'cancels' }, { name: 'bookings' }], series, now });
    expect(f.causes.map((c) => c.name)).toEqual(['cancels', 'bookings']);
    expect(Math.abs(f.causes[1]!.share)).toBeLessThan(0.05);
    const causes = narrate(f).statements.filter((st) => st.topic === 'cause').map((st) => st.text);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatch(/^The factor cancels accounts for /);
  });

  it('states its readings and defaults, skips segments of a metric that does not add up, and keeps the remainder', () => {
    const series = [
      flat('latency_ms', { region: 'eu' }, '2026-10-01', 48, (i) => (i >= 39 ? 300 : 200)),
      flat('latency_ms', { region: 'us' }, '2026-10-01', 48, () => 200),
    ];
    const f = analyse({ question: 'why did latency rise last week', catalog: [{ name: 'latency_ms', aggregation: 'mean' }], series, now });
    expect(f.status).toBe('analysed');
    expect(f.premise).toMatchObject({ actual: 250, comparison: 200, change: 50, observed: 'up', claimed: 'up' });
    expect(f.segments).toBeUndefined();
    expect(f.notes).toEqual([
      'latency_ms: unit, upIsGood not declared, defaults used',
      '"last week": the last complete ISO week (Monday to Sunday), against the week before',
      'latency_ms aggregates by mean, which does not add up over labels, so segments were not attributed',
    ]);
    expect(f.remainder).toEqual({ value: 50, share: 1 });
  });

  it('produces a finding that survives JSON: every figure finite, even for a metric that starts from nothing', () => {
    const series = [flat('pickups', { hub: 'a' }, '2026-10-01', 48, (i) => (i >= 39 ? 5 : 0)), flat('pickups', { hub: 'b' }, '2026-10-01', 48, () => 0)];
    const f = analyse({ question: 'why did pickups rise last week', catalog: [{ name: 'pickups' }], series, now });
    expect(f.premise).toMatchObject({ actual: 35, comparison: 0, relativeChange: null, verdict: 'confirmed' });
    const numbers: number[] = [];
    JSON.stringify(f, (_k, v: unknown) => {
      if (typeof v === 'number') numbers.push(v);
      return v;
    });
    expect(numbers.every((n) => Number.isFinite(n))).toBe(true);
    expect(JSON.parse(JSON.stringify(f)).causes).toEqual(f.causes);
  });

  it('skips a model stage the models cannot fit, with a note, and still answers', () => {
    const series = [flat('pings', {}, '2026-08-10', 100, (i) => (i % 3 ? 0 : 1e300))];
    const f = analyse({ question: 'where are pings heading next week', catalog: [{ name: 'pings' }], series, now });
    expect([f.status, f.premise?.band, f.forecast]).toEqual(['analysed', undefined, undefined]);
    expect(f.notes.filter((n) => n.includes('skipped'))).toEqual([
      'the expected range was skipped: Fit error: trend model error: no model found',
      'the forecast was skipped: Fit error: trend model error: no model found',
    ]);
  });

  it('notes a formula whose factors were not fetched', () => {
    const f = analyse({
      question: 'why did takings_eur fall last week',
      catalog: [{ name: 'takings_eur', formula: { product: ['units', 'price'] } }],
      series: [flat('takings_eur', {}, '2026-10-01', 48, (i) => (i >= 39 ? 80 : 100))],
      now,
    });
    expect(f.formula).toBeUndefined();
    expect(f.notes).toContain('the formula\'s factors units, price have no data for the periods, so the formula was not applied');
  });

  it('does not offer a ratio factor\'s own numerator or denominator as a candidate that moved at the same time', () => {
    // takings = visits × buy_rate, buy_rate = buys ÷ visits: buys moves with takings by construction.
    const visits = (i: number) => 1000 + 100 * Math.sin(i);
    const buys = (i: number) => (i >= 39 ? 80 : 50) + 5 * Math.cos(i);
    const catalog = [
      { name: 'takings', formula: { product: ['visits', 'buy_rate'] } },
      { name: 'buy_rate', aggregation: { ratio: { numerator: 'buys', denominator: 'visits' } } },
      { name: 'visits' }, { name: 'buys' }, { name: 'weather_index' },
    ];
    const series = [
      flat('takings', {}, '2026-10-01', 48, (i) => visits(i) * (buys(i) / visits(i))),
      flat('visits', {}, '2026-10-01', 48, visits),
      flat('buys', {}, '2026-10-01', 48, buys),
      // An undeclared series whose day-to-day moves the subject's follow: a candidate the history supports.
      flat('weather_index', {}, '2026-10-01', 48, (i) => buys(i) / 10 + 0.01 * Math.sin(3 * i)),
    ];
    const f = analyse({ question: 'why did takings rise last week', catalog, series, now });
    expect(f.status).toBe('analysed');
    expect(f.candidates.map((c) => c.metric)).not.toContain('buys');
    expect(f.candidates.map((c) => c.metric)).toContain('weather_index');
  });

  it('does not offer what the subject is declared part of (a formula it is a factor of, a ratio it divides) as a lead', () => {
    // footfall is a factor of takings and the denominator of buy_rate: both move with it by declaration.
    const footfall = (i: number) => 1000 + 150 * Math.sin(1.3 * i) + (i >= 39 ? -300 : 0);
    const catalog = [
      { name: 'footfall' },
      { name: 'takings', formula: { product: ['footfall', 'spend_per_visit'] } },
      { name: 'spend_per_visit' },
      { name: 'buy_rate', aggregation: { ratio: { numerator: 'buys', denominator: 'footfall' } } },
      { name: 'buys' }, { name: 'kiosk_sales' },
    ];
    const series = [
      flat('footfall', {}, '2026-09-01', 78, footfall),
      flat('takings', {}, '2026-09-01', 78, (i) => footfall(i) * 12),
      flat('spend_per_visit', {}, '2026-09-01', 78, () => 12),
      flat('buys', {}, '2026-09-01', 78, (i) => footfall(i) * 0.05),
      // Not declared anywhere, and moving with footfall day by day: a lead.
      flat('kiosk_sales', {}, '2026-09-01', 78, (i) => footfall(i) * 0.3 + 2 * Math.cos(5 * i)),
    ];
    const f = analyse({ question: 'why did footfall fall last week', catalog, series, now });
    const leads = f.candidates.map((c) => c.metric);
    expect(leads).toContain('kiosk_sales');
    expect(leads).not.toContain('takings');
    expect(leads).not.toContain('buys');
  });

  it('carries the subject\'s last 120 days for the chart: a ratio day by day from its parts, a part\'s own for a question about it', () => {
    const visits = flat('visits', {}, '2026-05-01', 200, () => 100);
    const orders = flat('orders', {}, '2026-05-01', 200, (i) => 5 + (i % 2));
    const ratio = analyse({ question: 'why did conversion drop last week', catalog: [{ name: 'conversion', aggregation: { ratio: { numerator: 'orders', denominator: 'visits' } } }], series: [visits, orders], now });
    expect(ratio.history).toHaveLength(120);
    expect(ratio.history!.at(-1)).toEqual({ t: addDays('2026-05-01', 199), value: (5 + (199 % 2)) / 100 });
    const mobile = flat('parcels', { device: 'mobile' }, '2026-05-01', 200, () => 30);
    const desktop = flat('parcels', { device: 'desktop' }, '2026-05-01', 200, () => 70);
    const part = analyse({ question: 'why did mobile parcels drop last week', catalog: [{ name: 'parcels', labels: ['device'] }], series: [mobile, desktop], now });
    expect(part.subject?.scope).toEqual({ device: 'mobile' });
    expect(new Set(part.history!.map((d) => d.value))).toEqual(new Set([30]));
  });
});
