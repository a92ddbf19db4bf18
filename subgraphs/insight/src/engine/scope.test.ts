import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { withDefaults } from './catalog.js';
import { addDays } from './days.js';
import { namedScope, scopedSeries } from './scope.js';
import { SeriesBook, type SeriesData } from './series.js';
import { generateLeaves, totalOf } from './synthetic-series.js';

describe('namedScope', () => {
  const def = withDefaults({ name: 'parcels', synonyms: ['deliveries'] });
  const values = { device: ['mobile', 'desktop'], region: ['north', 'south'], market: ['fr', 'it', 'de'], plan: ['all', 'pro'] };

  it('reads the label values a question names, one per label', () => {
    expect(namedScope('why did mobile parcels drop in the north last week', def, values)).toEqual({ device: 'mobile', region: 'north' });
    expect(namedScope('why did parcels drop last week', def, values)).toEqual({});
  });

  it('takes a short or common value only after its label, and leaves a label with two values named alone', () => {
    expect(namedScope('why did it drop, parcels I mean', def, values)).toEqual({});
    expect(namedScope('why did parcels in market fr drop', def, values)).toEqual({ market: 'fr' });
    expect(namedScope('parcels for market=it', def, values)).toEqual({ market: 'it' });
    expect(namedScope('why did all parcels drop', def, values)).toEqual({});
    expect(namedScope('mobile and desktop parcels', def, values)).toEqual({});
  });

  it('never takes a word of the metric\'s own name or synonyms as a value', () => {
    const mobile = withDefaults({ name: 'mobile_sessions' });
    expect(namedScope('why did mobile sessions drop', mobile, { device: ['mobile', 'desktop'] })).toEqual({});
  });
});

describe('scopedSeries', () => {
  it('keeps the subject\'s series of the part, with their sum as its total, and every other series as it was', () => {
    const t = (day: string) => Date.parse(`${day}T00:00:00Z`);
    const series: SeriesData[] = [
      { name: 'parcels', labels: {}, points: [{ t: t('2026-11-01'), value: 60 }] },
      { name: 'parcels', labels: { device: 'mobile', region: 'north' }, points: [{ t: t('2026-11-01'), value: 10 }] },
      { name: 'parcels', labels: { device: 'mobile', region: 'south' }, points: [{ t: t('2026-11-01'), value: 20 }] },
      { name: 'parcels', labels: { device: 'desktop', region: 'north' }, points: [{ t: t('2026-11-01'), value: 30 }] },
      { name: 'couriers', labels: {}, points: [{ t: t('2026-11-01'), value: 7 }] },
    ];
    const out = scopedSeries(series, withDefaults({ name: 'parcels' }), { device: 'mobile' });
    expect(out.map((s) => [s.name, s.labels, s.points[0]!.value])).toEqual([
      ['parcels', { device: 'mobile', region: 'north' }, 10],
      ['parcels', { device: 'mobile', region: 'south' }, 20],
      ['couriers', {}, 7],
      ['parcels', {}, 30],
    ]);
    const mean = scopedSeries(series, withDefaults({ name: 'parcels', aggregation: 'mean' }), { device: 'mobile' });
    expect(mean.find((s) => s.name === 'parcels' && Object.keys(s.labels).length === 0)!.points[0]!.value).toBe(15);
  });

  it('takes the part\'s total as read (its whole history) rather than adding up leaves read for a few days', () => {
    const t = (day: string) => Date.parse(`${day}T00:00:00Z`);
    const series: SeriesData[] = [
      { name: 'parcels', labels: { device: 'mobile' }, total: true, points: [{ t: t('2026-10-01'), value: 25 }, { t: t('2026-11-01'), value: 30 }] },
      { name: 'parcels', labels: { device: 'mobile', region: 'north' }, points: [{ t: t('2026-11-01'), value: 10 }] },
      { name: 'parcels', labels: { device: 'mobile', region: 'south' }, points: [{ t: t('2026-11-01'), value: 20 }] },
      { name: 'parcels', labels: { device: 'desktop', region: 'north' }, points: [{ t: t('2026-11-01'), value: 30 }] },
    ];
    const out = scopedSeries(series, withDefaults({ name: 'parcels' }), { device: 'mobile' });
    expect(out.map((s) => [s.labels, s.points.map((p) => p.value)])).toEqual([
      [{}, [25, 30]],
      [{ device: 'mobile', region: 'north' }, [10]],
      [{ device: 'mobile', region: 'south' }, [20]],
    ]);
    // The book answers the part from its total, and lists only true leaves.
    const book = new SeriesBook(series);
    expect([...book.filtered('parcels', { device: 'mobile' })!]).toEqual([['2026-10-01', 25], ['2026-11-01', 30]]);
    expect(book.leaves('parcels')).toHaveLength(3);
    expect(book.span()).toEqual({ first: '2026-10-01', last: '2026-11-01' });
  });
});

describe('a question about part of a metric', () => {
  it('analyses that part: its premise, and the segments inside it', () => {
    const now = Date.parse('2026-11-18T10:00:00Z');
    const start = addDays('2026-11-17', -199);
    const leaves = generateLeaves('parcels', { device: ['mobile', 'desktop'], region: ['north', 'south', 'east'] }, { start, days: 200, level: 6000, seed: 8, noise: 0.01 }, (labels, day) =>
      labels.device === 'mobile' && labels.region === 'north' && day >= '2026-11-09' ? 0.4 : 1,
    );
    const f = analyse({ question: 'Why did mobile parcels drop last week?', catalog: [{ name: 'parcels' }], series: [totalOf('parcels', leaves), ...leaves], now });
    expect(f.subject!.scope).toEqual({ device: 'mobile' });
    const mobile = leaves.filter((l) => l.labels.device === 'mobile');
    const sumOf = (from: string, to: string) => mobile.reduce((a, l) => a + l.points.filter((p) => p.t >= Date.parse(`${from}T00:00:00Z`) && p.t <= Date.parse(`${to}T00:00:00Z`)).reduce((b, p) => b + p.value, 0), 0);
    expect(f.premise!.actual).toBeCloseTo(sumOf('2026-11-09', '2026-11-15'), 6);
    // Inside the part, the segment is the region: the device is the part itself.
    expect(f.causes[0]).toMatchObject({ view: 'segment', labels: { region: 'north' } });
    expect(f.notes).toContain('the question names device=mobile: parcels was analysed for that part only');
  });
});
