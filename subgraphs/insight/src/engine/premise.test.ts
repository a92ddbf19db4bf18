import { describe, expect, it } from '@jest/globals';
import { judgePremise } from './premise.js';

const band = { p10: 90, p50: 100, p90: 110, method: 'test' };

describe('judgePremise', () => {
  it('confirms a fall below the band', () => {
    expect(judgePremise({ actual: 80, comparison: 100, claimed: 'down', band })).toEqual({
      actual: 80, comparison: 100, change: -20, relativeChange: -0.2, observed: 'down', claimed: 'down', band, position: 'below', verdict: 'confirmed',
    });
  });

  it('calls a claimed drop that was a rise a false premise', () => {
    expect(judgePremise({ actual: 106.44, comparison: 100, claimed: 'down', band }).verdict).toBe('false-premise');
  });

  it('calls a claimed move that did not happen (under 0.5 %) a false premise', () => {
    const p = judgePremise({ actual: 100.4, comparison: 100, claimed: 'up', band });
    expect([p.observed, p.verdict]).toEqual(['flat', 'false-premise']);
  });

  it('calls a move inside the band normal', () => {
    expect(judgePremise({ actual: 108, comparison: 100, claimed: 'up', band })).toMatchObject({ observed: 'up', position: 'inside', verdict: 'within-normal' });
  });

  it('calls a fall that is still above the band normal, not a confirmed fall', () => {
    expect(judgePremise({ actual: 115, comparison: 120, claimed: 'down', band })).toMatchObject({ position: 'above', verdict: 'within-normal' });
  });

  it('has no relative change when the comparison is 0', () => {
    expect(judgePremise({ actual: 5, comparison: 0 })).toMatchObject({ change: 5, relativeChange: null, observed: 'up', verdict: 'confirmed' });
  });

  it('confirms any move outside the band when the question claims none, and any move at all without a band', () => {
    expect(judgePremise({ actual: 120, comparison: 100, band }).verdict).toBe('confirmed');
    expect(judgePremise({ actual: 101, comparison: 100, claimed: 'up', yearBefore: 90 })).toMatchObject({ verdict: 'confirmed', yearBefore: 90 });
  });
});
