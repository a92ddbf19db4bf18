import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { addDays, timeOf } from './days.js';
import { readQuestion } from './intent.js';
import { narrate } from './narrative.js';

const now = Date.parse('2026-11-25T10:00:00Z');
const flat = (name: string, labels: Record<string, string>, value: (i: number) => number) =>
  ({ name, labels, points: Array.from({ length: 116 }, (_, i) => ({ t: timeOf(addDays('2026-08-01', i)), value: value(i) })) });
// Berths by marina and by season pass (two labels); cancellations and bookings by marina, and their ratio.
const series = [
  flat('berths', { marina: 'north', pass: 'annual' }, (i) => 30 + (i % 3)),
  flat('berths', { marina: 'north', pass: 'visitor' }, () => 10),
  flat('berths', { marina: 'west', pass: 'annual' }, (i) => 20 + (i % 5)),
  flat('berths', { marina: 'west', pass: 'visitor' }, () => 30),
  flat('berths', { marina: 'south', pass: 'annual' }, () => 25),
  flat('berths', { marina: 'south', pass: 'visitor' }, () => 5),
  flat('cancels', { marina: 'north' }, () => 4), flat('cancels', { marina: 'west' }, () => 2), flat('cancels', { marina: 'south' }, () => 6),
  flat('bookings', { marina: 'north' }, () => 40), flat('bookings', { marina: 'west' }, () => 50), flat('bookings', { marina: 'south' }, () => 30),
];
const catalog = [{ name: 'berths' }, { name: 'cancels' }, { name: 'bookings' }, { name: 'cancel_rate', aggregation: { ratio: { numerator: 'cancels', denominator: 'bookings' } }, upIsGood: false }];
const ask = (question: string) => analyse({ question, catalog, series, now });

describe('questions beyond why: which part comes first, named parts compared, how much, against last year', () => {
  it('is read as a ranking, largest or smallest first, and "most of the drop" is not one', () => {
    const read = (q: string) => readQuestion(q, []);
    expect(read('Which marina booked the most berths last month?')).toMatchObject({ intents: ['rank'], rankOrder: 'most' });
    expect(read('what store sold the fewest units?')).toMatchObject({ intents: ['rank'], rankOrder: 'least' });
    expect(read('Rank the regions by revenue')).toMatchObject({ intents: ['rank'], rankOrder: 'most' });
    expect(read('Which channel performed worst?')).toMatchObject({ intents: ['rank'], rankOrder: 'worst' });
    expect(read('What drove most of the drop in revenue last week?').intents).toEqual(['why']);
    expect(read('Why did revenue drop last week?').rankOrder).toBeUndefined();
  });

  it('says a metric kept as one total cannot be ranked, before what it did', () => {
    const f = analyse({ question: 'Which harbour had the most moorings last month?', catalog: [{ name: 'moorings' }], series: [flat('moorings', {}, (i) => 40 + (i % 4))], now });
    expect(f.status).toBe('analysed');
    expect(f.ranking).toBeUndefined();
    expect(narrate(f).answer).toMatch(/^moorings has no label with two or more values, so its parts cannot be ranked\. In all, moorings (rose|fell|was flat) /);
  });

  it('ranks the label the question names, with each part\'s total, share and the comparison period\'s', () => {
    const f = ask('Which marina booked the most berths last month?');
    expect(f.ranking).toMatchObject({ dimension: 'marina', order: 'most' });
    expect(f.ranking!.rows.map((r) => r.value)).toEqual(['west', 'north', 'south']);
    // October 2026: west 31 days × (30 + 20…24), north 31 × (40…42), south 31 × 30.
    const west = f.ranking!.rows[0]!;
    expect(west.amount).toBe(series.filter((s) => s.name === 'berths' && s.labels.marina === 'west').reduce((t, s) => t + s.points.filter((p) => p.t >= timeOf('2026-10-01') && p.t < timeOf('2026-11-01')).reduce((a, p) => a + p.value, 0), 0));
    expect(f.ranking!.rows.reduce((t, r) => t + r.share!, 0)).toBeCloseTo(1, 10);
    expect(west.before).toBeGreaterThan(0);
    const n = narrate(f);
    expect(n.answer).toMatch(/^marina=west had the most berths in October 2026: [\d,]+, 4\d % of the total; then north \([\d,]+\), south \([\d,]+\)\. In all, berths /);
    expect(n.statements[0]).toMatchObject({ topic: 'ranking', text: expect.stringMatching(/^By marina, largest first: west [\d,]+ \(4\d % of the total; [\d,]+ in September 2026\), north /) });
  });

  it('ranks the other label when the question fixes one, and the smallest first when asked', () => {
    const f = ask('Which pass had the fewest berths at the west marina last week?');
    expect(f.subject?.scope).toEqual({ marina: 'west' });
    expect(f.ranking).toMatchObject({ dimension: 'pass', order: 'least' });
    expect(f.ranking!.rows.map((r) => [r.value, r.amount])).toEqual([['annual', expect.any(Number)], ['visitor', 210]]);
    expect(narrate(f).answer).toMatch(/^pass=annual had the fewest berths \(marina=west\) over Mon 16 – Sun 22 Nov: /);
  });

  it('ranks a ratio by each part\'s own ratio, and "worst" by whether up is good', () => {
    const f = ask('Which marina has the worst cancel rate?');
    expect(f.ranking).toMatchObject({ dimension: 'marina', order: 'most' });
    expect(f.ranking!.rows.map((r) => [r.value, r.amount, r.share])).toEqual([['south', 0.2, undefined], ['north', 0.1, undefined], ['west', 0.04, undefined]]);
    expect(narrate(f).answer).toMatch(/^marina=south had the highest cancel_rate over Mon 16 – Sun 22 Nov: 20 %; then north \(10 %\), west \(4 %\)\./);
  });

  it('says so when the metric has no label to rank by', () => {
    const f = analyse({ question: 'Which day had the most fuel sold?', catalog: [{ name: 'fuel' }], series: [flat('fuel', {}, () => 100)], now });
    expect(f.ranking).toBeUndefined();
    expect(f.notes).toContain('fuel has no label with two or more values to rank');
  });

  it('names a year-before comparison as such in the answer', () => {
    const long = [flat('berths', { marina: 'north' }, () => 40)].map((s0) => ({ ...s0, points: Array.from({ length: 510 }, (_, i) => ({ t: timeOf(addDays('2025-07-01', i)), value: i >= 470 ? 50 : 40 })) }));
    const f = analyse({ question: 'How did berths change compared to last year?', catalog: [{ name: 'berths' }], series: long, now });
    expect(f.periods?.comparison).toEqual({ from: '2025-11-17', to: '2025-11-23', kind: 'iso-week' });
    expect(narrate(f).answer).toMatch(/^berths rose 25.0 % over Mon 16 – Sun 22 Nov, from 280 to 350 against the same week a year before \(Mon 17 – Sun 23 Nov 2025\)/);
  });

  it('compares only the values the question names', () => {
    expect(readQuestion('Compare the north and south marinas on berths last week', []).intents).toEqual(['rank']);
    expect(readQuestion('How did revenue do compared to last year?', []).intents).toEqual([]);
    const f = ask('Compare the north and south marinas on berths last week');
    expect(f.ranking).toMatchObject({ dimension: 'marina', named: true });
    expect(f.ranking!.rows.map((r) => r.value)).toEqual(['north', 'south']);
    // Shares stay shares of the whole (west included).
    expect(f.ranking!.rows[0]!.share! + f.ranking!.rows[1]!.share!).toBeLessThan(0.8);
    expect(narrate(f).answer).toMatch(/^marina=north had more berths than south over Mon 16 – Sun 22 Nov: 28\d against 210 \(\+\d+\)\. In all, berths /);
  });

  it('answers how much it was with the figure first, and a day\'s figure when asked for one', () => {
    expect(readQuestion('How many berths were booked last week?', [])).toMatchObject({ intents: ['value'] });
    expect(readQuestion('What is the average daily fuel use this month?', [])).toMatchObject({ intents: ['value'], perDay: true });
    expect(readQuestion('Why did revenue drop last week?', []).intents).toEqual(['why']);
    expect(readQuestion('What is the reason revenue fell?', []).intents).toEqual(['why']);
    expect(narrate(ask('How many berths were booked last week?')).answer).toMatch(/^berths totalled [\d,]+ over Mon 16 – Sun 22 Nov, [\d,]+ a day\. berths (rose|fell|was flat)/);
    expect(narrate(ask('What was the average daily number of berths last week?')).answer).toMatch(/^berths averaged [\d,]+ a day over Mon 16 – Sun 22 Nov \([\d,]+ in all\)\. /);
    expect(narrate(ask('What is the cancel rate last week?')).answer).toMatch(/^cancel_rate was 10 % over Mon 16 – Sun 22 Nov\. cancel_rate was flat/);
  });
});
