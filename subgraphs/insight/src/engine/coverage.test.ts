import { describe, expect, it } from '@jest/globals';
import { analyse } from './analyse.js';
import { coverageOf, coverOf } from './coverage.js';
import { addDays } from './days.js';
import { judgePremise } from './premise.js';

const band = { p10: 95, p50: 100, p90: 105, method: 'test' };

describe('what an answer covers', () => {
  it('is decided from the status, the intents, the claim and the premise', () => {
    const moved = judgePremise({ actual: 80, comparison: 100, band });
    expect(coverageOf({ status: 'no-data', intents: ['why'] })).toEqual({ asks: 'nothing' });
    expect(coverageOf({ status: 'analysed', intents: ['why'], premise: moved })).toEqual({ asks: 'move', move: 'unusual' });
    expect(coverageOf({ status: 'analysed', intents: ['forecast'], premise: moved })).toEqual({ asks: 'ahead', move: 'unusual' });
    // A claimed move is asked about even in a what-if question.
    expect(coverageOf({ status: 'analysed', intents: ['what-if'], claimed: 'down', premise: moved })).toEqual({ asks: 'move', move: 'unusual' });
    expect(coverageOf({ status: 'analysed', intents: ['why'], premise: judgePremise({ actual: 99, comparison: 100, band }) })).toEqual({ asks: 'move', move: 'normal' });
    expect(coverageOf({ status: 'analysed', intents: ['why'], claimed: 'up', premise: judgePremise({ actual: 80, comparison: 100, claimed: 'up', band }) })).toEqual({ asks: 'move', move: 'none' });
    expect(coverageOf({ status: 'analysed', intents: ['why'], premise: judgePremise({ actual: 100, comparison: 100 }) })).toEqual({ asks: 'move', move: 'none' });
  });

  it('is set by the engine on every finding, and read back as set', () => {
    const now = Date.parse('2026-11-18T10:00:00Z');
    const points = Array.from({ length: 120 }, (_, i) => ({ t: Date.parse(`${addDays('2026-11-17', i - 119)}T00:00:00Z`), value: 1000 + 40 * Math.sin(i) - (i >= 112 ? 400 : 0) }));
    const ask = (question: string) => analyse({ question, catalog: [{ name: 'parcels' }], series: [{ name: 'parcels', labels: {}, points }], now });
    expect(ask('Why did parcels drop last week?').covers).toEqual({ asks: 'move', move: 'unusual' });
    expect(ask('Where are parcels heading over the next 30 days?').covers).toMatchObject({ asks: 'ahead' });
    expect(ask('Why did couriers drop last week?').covers).toEqual({ asks: 'nothing' });
    const stored = ask('Why did parcels drop last week?');
    expect(coverOf({ ...stored, covers: { asks: 'ahead', move: 'none' } })).toEqual({ asks: 'ahead', move: 'none' });
    const { covers: _before, ...older } = stored;
    expect(coverOf(older)).toEqual(stored.covers);
  });
});
