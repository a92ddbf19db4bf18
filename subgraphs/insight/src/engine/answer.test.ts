import { describe, expect, it } from '@jest/globals';
import { answerFirstSentence } from './answer.js';
import { coverageOf } from './coverage.js';
import type { Finding } from './finding.js';
import { judgePremise } from './premise.js';

const usd = { kind: 'currency' as const, code: 'USD' };
/** A hand-made finding with the coverage the engine would decide for it. */
const covered = (f: Omit<Finding, 'covers'>): Finding => ({ ...f, covers: coverageOf(f) });
const base: Omit<Finding, 'covers'> = {
  question: 'Why did order_value drop last week?',
  status: 'analysed',
  intents: ['why'],
  claimed: 'down',
  subject: { name: 'order_value', how: 'exact', others: [], unit: usd, aggregation: 'sum', upIsGood: true, defaulted: [] },
  periods: {
    period: { from: '2026-11-09', to: '2026-11-15', kind: 'iso-week' },
    comparison: { from: '2026-11-02', to: '2026-11-08', kind: 'iso-week' },
    reading: 'last week',
    today: '2026-11-18',
  },
  drivers: [],
  causes: [],
  remainder: { value: 0, share: 0 },
  events: [],
  candidates: [],
  notes: [],
  locale: 'en-US',
};
const band = { p10: 64000, p50: 65500, p90: 67000, method: 'test' };

describe('answerFirstSentence', () => {
  it('says a false premise first, with the figures', () => {
    const f = { ...base, premise: judgePremise({ actual: 66581.72, comparison: 62555.03, claimed: 'down', band }) };
    expect(answerFirstSentence(covered(f))).toBe('order_value did not fall over Mon 9 – Sun 15 Nov: it rose 6.4 %, from $62,555 to $66,582 against the week before.');
  });

  it('calls a move inside the expected range normal', () => {
    const f = { ...base, premise: judgePremise({ actual: 64500, comparison: 66000, claimed: 'down', band }) };
    expect(answerFirstSentence(covered(f))).toBe('order_value fell 2.3 % over Mon 9 – Sun 15 Nov, from $66,000 to $64,500 against the week before, which is within its normal range for the period (expected $64,000 to $67,000, p10–p90).');
  });

  it('calls a fall that stays above the range not unusual', () => {
    const f = { ...base, premise: judgePremise({ actual: 68000, comparison: 70000, claimed: 'down', band }) };
    expect(answerFirstSentence(covered(f))).toBe('order_value fell 2.9 % over Mon 9 – Sun 15 Nov, from $70,000 to $68,000 against the week before, which is above its expected range ($64,000 to $67,000, p10–p90), so not an unusual fall.');
  });

  it('gives a confirmed change with its start, the event that day, its largest cause and where it concentrates', () => {
    const f: Omit<Finding, 'covers'> = {
      ...base,
      premise: judgePremise({ actual: 61120, comparison: 66582, claimed: 'down', band }),
      changePoint: { day: '2026-11-11', shift: -0.12, strength: 9 },
      events: [{ event: { at: '2026-11-11', kind: 'price', title: 'price list 12 published' }, changePoint: '2026-11-11', offsetDays: 0 }],
      primaryView: 'formula',
      causes: [
        { view: 'formula', name: 'basket', metric: 'basket', contribution: -4900, share: 0.897 },
        { view: 'formula', name: 'orders', metric: 'orders', contribution: -562, share: 0.103 },
        { view: 'segment', name: 'region=eu', labels: { region: 'eu' }, contribution: -5000, share: 0.915 },
      ],
    };
    expect(answerFirstSentence(covered(f))).toBe('order_value fell 8.2 % over Mon 9 – Sun 15 Nov, from $66,582 to $61,120 against the week before, below its expected range of $64,000 to $67,000; the change started Wed 11 Nov, the day of “price list 12 published”; the largest part, −$4,900 (90 % of the change), comes from basket, concentrated in region=eu (92 %).');
  });

  it('compares a day with the same weekday a week before, and says when there is no data', () => {
    const day = { ...base, periods: { ...base.periods!, period: { from: '2026-11-17', to: '2026-11-17', kind: 'day' as const }, comparison: { from: '2026-11-10', to: '2026-11-10', kind: 'day' as const } } };
    expect(answerFirstSentence(covered({ ...day, premise: judgePremise({ actual: 900, comparison: 1000, claimed: 'down' }) }))).toBe('order_value fell 10.0 % on Tue 17 Nov, from $1,000 to $900 against the same day a week before (Tue 10 Nov).');
    expect(answerFirstSentence(covered({ ...day, status: 'no-data', missing: 'period' }))).toBe('order_value has no data on Tue 17 Nov, so it could not be analysed.');
    expect(answerFirstSentence(covered({ ...day, status: 'no-data', missing: 'comparison' }))).toBe('order_value has data on Tue 17 Nov but none for the same day a week before (Tue 10 Nov) to compare it with, so no change could be measured.');
  });

  it('gives no percentage for a rise from nothing', () => {
    const f = { ...base, claimed: 'up' as const, premise: judgePremise({ actual: 500, comparison: 0, claimed: 'up' }) };
    expect(answerFirstSentence(covered(f))).toBe('order_value rose over Mon 9 – Sun 15 Nov, from $0.00 to $500 against the week before.');
  });

  it('says a what-if has no estimate when its lever is not a driver', () => {
    const f: Omit<Finding, 'covers'> = { ...base, intents: ['what-if'], premise: judgePremise({ actual: 100, comparison: 100 }), whatIf: { text: 'increase prices by 3%', change: 0.03, labels: {} } };
    const { claimed: _claimed, ...unclaimed } = f;
    expect(answerFirstSentence(covered(unclaimed))).toBe('The lever named is not a declared driver of order_value and no elasticity could be estimated, so "increase prices by 3%" has no estimate.');
  });

  it('lists at most twelve metrics of an unknown catalog', () => {
    const names = Array.from({ length: 14 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    expect(answerFirstSentence(covered({ ...base, status: 'unknown-metric', available: names }))).toBe(`No metric in this tenant's catalog matches the question, so nothing was analysed; the catalog has ${names.slice(0, 12).join(', ')} and 2 more.`);
  });
});
