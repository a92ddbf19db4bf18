import { describe, expect, it } from '@jest/globals';
import { alignEvents, eventDay } from './events.js';

const events = [
  { at: '2026-11-12T09:30:00Z', kind: 'content.published', title: 'pricing page v7 published', ref: 'v7' },
  { at: Date.parse('2026-11-11T23:00:00Z'), kind: 'deploy', title: 'deploy 42' },
  { at: '2026-11-14', kind: 'campaign', title: 'weekend campaign' },
  { at: '2026-10-01', kind: 'price', title: 'old price change' },
];

describe('alignEvents', () => {
  it('names the events within a day of a change point, nearest first', () => {
    expect(alignEvents(events, ['2026-11-12']).map((a) => [a.event.title, a.changePoint, a.offsetDays])).toEqual([
      ['pricing page v7 published', '2026-11-12', 0],
      ['deploy 42', '2026-11-12', -1],
    ]);
  });

  it('lines an event up with the nearest of several change points', () => {
    expect(alignEvents(events, ['2026-11-10', '2026-11-13']).map((a) => [a.event.title, a.changePoint, a.offsetDays])).toEqual([
      ['deploy 42', '2026-11-10', 1],
      ['pricing page v7 published', '2026-11-13', -1],
      ['weekend campaign', '2026-11-13', 1],
    ]);
  });

  it('names an event posted twice once, and keeps two different events of the same day', () => {
    const twice = [...events, { at: '2026-11-12T15:00:00Z', kind: 'content.published', title: 'pricing page v7 published', ref: 'v7' }, { at: '2026-11-12T16:00:00Z', kind: 'deploy', title: 'deploy 43' }];
    expect(alignEvents(twice, ['2026-11-12']).map((a) => a.event.title)).toEqual(['pricing page v7 published', 'deploy 43', 'deploy 42']);
  });

  it('returns nothing without change points, and refuses an event without a time', () => {
    expect(alignEvents(events, [])).toEqual([]);
    expect(() => eventDay({ at: 'soon', kind: 'x', title: 'bad' })).toThrow('event "bad" has no valid time: "soon"');
  });
});
