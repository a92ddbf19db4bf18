import { describe, expect, it } from '@jest/globals';
import { catalogOf, withDefaults } from './catalog.js';
import { findMetrics, resolveSubject, stem, tokens } from './subject.js';

const catalog = catalogOf([
  { name: 'bookings', synonyms: ['reservations'] },
  { name: 'signups' },
  { name: 'gmv_eur', unit: { kind: 'currency', code: 'EUR' } },
  { name: 'checkout_ratio' },
  { name: 'cdn_traffic_bytes' },
  { name: 'origin.error_count' },
]).values();
const defs = [...catalog];

describe('stem and tokens', () => {
  it('strips plurals simply', () => {
    expect(['bookings', 'bytes', 'categories', 'boxes', 'status', 'ss', 'class'].map(stem)).toEqual(['booking', 'byte', 'category', 'box', 'status', 'ss', 'class']);
  });

  it('splits on _ . - and spaces', () => {
    expect(tokens('cdn_traffic-bytes.total now').map((t) => t.word)).toEqual(['cdn', 'traffic', 'byte', 'total', 'now']);
  });
});

describe('resolveSubject', () => {
  it('takes an exact name first', () => {
    expect(resolveSubject('Why did gmv_eur drop last week?', defs)).toEqual({ kind: 'metric', name: 'gmv_eur', how: 'exact', others: [] });
  });

  it('takes the name written with spaces as exact', () => {
    expect(resolveSubject('why is the checkout ratio down', defs)).toMatchObject({ kind: 'metric', name: 'checkout_ratio', how: 'exact' });
  });

  it('takes a declared synonym, plural or not', () => {
    expect(resolveSubject('why did reservation numbers fall', defs)).toMatchObject({ kind: 'metric', name: 'bookings', how: 'synonym' });
  });

  it('matches tokens of a name, and says which others matched', () => {
    const r = resolveSubject('Why did CDN traffic drop yesterday?', defs);
    expect(r).toEqual({ kind: 'metric', name: 'cdn_traffic_bytes', how: 'token', others: [] });
    expect(resolveSubject('are origin errors rising', defs)).toMatchObject({ name: 'origin.error_count', how: 'token' });
  });

  it('prefers the stronger match and lists the weaker ones', () => {
    const r = resolveSubject('did bookings move with signups', defs);
    expect(r).toEqual({ kind: 'metric', name: 'bookings', how: 'exact', others: [{ name: 'signups', how: 'exact', score: 3, at: 23 }] });
  });

  it('says unknown and lists what exists, inventing nothing', () => {
    expect(resolveSubject('Why did churn drop yesterday?', defs)).toEqual({
      kind: 'unknown', available: ['bookings', 'cdn_traffic_bytes', 'checkout_ratio', 'gmv_eur', 'origin.error_count', 'signups'], asked: 'churn', closest: [],
    });
    // A name written a little differently comes closest by its letters.
    expect(resolveSubject('Why did signup numbers drop yesterday?', defs)).toMatchObject({ kind: 'metric', name: 'signups' });
    expect(resolveSubject('Why did sign-ups drop yesterday?', defs)).toMatchObject({ kind: 'unknown', asked: 'sign-ups', closest: ['signups'] });
  });

  it('names the metrics closest in meaning when none is close by name: a word asked that a display name or a description of the catalog uses', () => {
    const catalog = [
      withDefaults({ name: 'door_count', description: 'Footfall: visitors through the front doors per day' }),
      withDefaults({ name: 'plan_cancels', display: { name: 'Plan churn (cancellations)' } }),
      withDefaults({ name: 'kwh_used' }),
    ];
    expect(resolveSubject('Why did footfall drop last week?', catalog)).toMatchObject({ kind: 'unknown', asked: 'footfall', closest: ['door_count'] });
    expect(resolveSubject('Why did churn rise yesterday?', catalog)).toMatchObject({ kind: 'unknown', asked: 'churn', closest: ['plan_cancels'] });
    expect(resolveSubject('Why did temperature drop yesterday?', catalog)).toMatchObject({ kind: 'unknown', asked: 'temperature', closest: [] });
  });

  it('knows no meaning the catalog does not declare (no vocabulary of the planner\'s own)', () => {
    const catalog = [withDefaults({ name: 'door_count', description: 'Visitors through the front doors per day' })];
    expect(resolveSubject('Why did footfall drop last week?', catalog)).toMatchObject({ kind: 'unknown', asked: 'footfall', closest: [] });
  });

  it('does not match on weak words alone', () => {
    expect(findMetrics('what is the total count and the ratio', defs)).toEqual([]);
  });
});
