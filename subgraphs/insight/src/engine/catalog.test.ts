import { describe, expect, it } from '@jest/globals';
import { catalogOf, isAdditive, withDefaults } from './catalog.js';

describe('withDefaults', () => {
  it('makes an undeclared count sum, with up good, and lists what it defaulted', () => {
    expect(withDefaults({ name: 'bookings' })).toEqual({
      name: 'bookings', unit: { kind: 'count' }, aggregation: 'sum', upIsGood: true, labels: [], labelValues: {}, drivers: [], synonyms: [],
      defaulted: ['unit', 'aggregation', 'upIsGood'],
    });
  });

  it('sums a currency', () => {
    const def = withDefaults({ name: 'gmv_eur', unit: { kind: 'currency', code: 'EUR' }, upIsGood: true });
    expect([def.aggregation, def.defaulted]).toEqual(['sum', ['aggregation']]);
    expect(isAdditive(def)).toBe(true);
  });

  it('averages a _rate or _ratio name and gives it a ratio unit', () => {
    for (const name of ['bounce_rate', 'checkout_ratio', 'cache.hit_rate']) {
      const def = withDefaults({ name });
      expect([def.unit, def.aggregation]).toEqual([{ kind: 'ratio' }, 'mean']);
    }
  });

  it('averages a percent unit whatever its name', () => {
    expect(withDefaults({ name: 'uptime', unit: { kind: 'percent' } }).aggregation).toBe('mean');
  });

  it('keeps a declared ratio aggregation (the mean weighted by its denominator) and gives it a ratio unit', () => {
    const def = withDefaults({ name: 'checkout_ratio', aggregation: { ratio: { numerator: 'checkouts', denominator: 'visits' } } });
    expect([def.unit, def.aggregation, isAdditive(def)]).toEqual([{ kind: 'ratio' }, { ratio: { numerator: 'checkouts', denominator: 'visits' } }, false]);
  });

  it('never sums a ratio: a declared sum becomes a mean and is reported', () => {
    const def = withDefaults({ name: 'checkout_ratio', aggregation: 'sum', unit: { kind: 'ratio' }, upIsGood: true });
    expect([def.aggregation, def.defaulted]).toEqual(['mean', ['aggregation']]);
  });

  it('keeps declared fields as they are', () => {
    const def = withDefaults({
      name: 'queue_depth', unit: { kind: 'count', noun: 'jobs' }, aggregation: 'last', upIsGood: false, labels: ['queue'],
      formula: { sum: ['a', 'b'] }, drivers: [{ metric: 'arrivals', lagDays: 1 }], synonyms: ['backlog'],
    });
    expect(def).toEqual({
      name: 'queue_depth', unit: { kind: 'count', noun: 'jobs' }, aggregation: 'last', upIsGood: false, labels: ['queue'], labelValues: {},
      formula: { sum: ['a', 'b'] }, drivers: [{ metric: 'arrivals', lagDays: 1 }], synonyms: ['backlog'], defaulted: [],
    });
  });

  it('indexes a catalog by name', () => {
    expect([...catalogOf([{ name: 'a' }, { name: 'b_rate' }]).entries()].map(([k, v]) => [k, v.aggregation])).toEqual([['a', 'sum'], ['b_rate', 'mean']]);
  });
});
