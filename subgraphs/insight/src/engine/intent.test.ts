import { describe, expect, it } from '@jest/globals';
import { catalogOf } from './catalog.js';
import { readLever, readQuestion } from './intent.js';

const defs = [...catalogOf([
  { name: 'bookings' },
  { name: 'ad_clicks', labelValues: { channel: ['search', 'social', 'display'] } },
  { name: 'voucher_budget', unit: { kind: 'currency', code: 'EUR' } },
]).values()];

describe('readQuestion', () => {
  it('reads why with a claimed fall, ignoring the what-if clause for the direction', () => {
    const r = readQuestion('Why did bookings drop last week? What if we increase search ad clicks by 20%?', defs);
    expect(r.intents).toEqual(['why', 'what-if']);
    expect([r.claimed, r.claimWord]).toEqual(['down', 'drop']);
    expect(r.whatIf).toEqual({ text: 'increase search ad clicks by 20%', change: 0.2, metric: 'ad_clicks', labels: { channel: 'search' } });
    expect(r.subjectText.includes('increase')).toBe(false);
  });

  it('reads rises and spikes as a claimed rise', () => {
    expect(readQuestion('why did bookings spike yesterday', defs).claimed).toBe('up');
    expect(readQuestion('bookings rose, why?', defs).claimed).toBe('up');
    expect(readQuestion('what caused the decline in bookings', defs).claimed).toBe('down');
  });

  it('reads "fewer" as a fall and does not take "sign up" for a rise', () => {
    expect(readQuestion('Why did fewer people sign up last week?', defs)).toMatchObject({ claimed: 'down', claimWord: 'fewer' });
    expect(readQuestion('tell me more about the people who signed up', defs).claimed).toBeUndefined();
  });

  it('claims nothing when the question names no direction', () => {
    const r = readQuestion('How are bookings doing?', defs);
    expect([r.claimed, r.intents]).toEqual([undefined, []]);
  });

  it('reads forecasts and their horizon', () => {
    expect(readQuestion('Where are bookings heading next month?', defs)).toMatchObject({ intents: ['forecast'], horizonDays: 30 });
    expect(readQuestion('forecast bookings for the next 10 days', defs).horizonDays).toBe(10);
    expect(readQuestion('what will bookings be next week', defs).horizonDays).toBe(7);
  });
});

describe('readLever', () => {
  it('reads cuts as negative changes and names the metric', () => {
    expect(readLever('what if we cut the voucher budget by 15 percent', defs)).toEqual({ text: 'cut the voucher budget by 15 percent', change: -0.15, metric: 'voucher_budget', labels: {} });
  });

  it('takes label values from the series when the catalog does not list them', () => {
    const values = new Map([['voucher_budget', { market: ['fr', 'de'] }]]);
    expect(readLever('raise FR voucher budget by 5%', defs, values)?.labels).toEqual({ market: 'fr' });
  });

  it('leaves the metric out when the lever names none', () => {
    expect(readLever('increase prices by 3%', defs)).toEqual({ text: 'increase prices by 3%', change: 0.03, labels: {} });
  });
});
