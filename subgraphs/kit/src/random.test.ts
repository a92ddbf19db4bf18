import { describe, expect, it } from '@jest/globals';
import { seededRandom } from './random.js';

describe('seededRandom', () => {
  it('draws the mulberry32 sequence, so data generated from a seed never changes', () => {
    const next = seededRandom(1);
    expect([next(), next(), next()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  });

  it('repeats a sequence for the same seed and stays in [0, 1)', () => {
    const a = seededRandom(20261121);
    const b = seededRandom(20261121);
    for (let i = 0; i < 10_000; i++) {
      const value = a();
      expect(value).toBe(b());
      expect(value >= 0 && value < 1).toBe(true);
    }
  });
});
