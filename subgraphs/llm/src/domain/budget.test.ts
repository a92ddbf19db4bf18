import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { admits, type HardLimitState } from './budget.js';

const limited = (allocatedUsd: number, spentUsd: number, reservedUsd: number): HardLimitState => ({ hardLimitEnabled: true, allocatedUsd, spentUsd, reservedUsd });

describe('admits (the hard limit)', () => {
  it('admits anything when the hard limit is off, even past the allocation', () => {
    expect(admits({ hardLimitEnabled: false, allocatedUsd: 5, spentUsd: 10, reservedUsd: 3 }, 100)).toBe(true);
    expect(admits({ hardLimitEnabled: false, allocatedUsd: 0, spentUsd: 0, reservedUsd: 0 }, 0.000001)).toBe(true);
  });

  it('admits a hold that reaches the allocation exactly, and refuses one a micro-dollar past it', () => {
    expect(admits(limited(10, 0, 0), 10)).toBe(true);
    expect(admits(limited(10, 0, 0), 10.000001)).toBe(false);
  });

  it('counts what is spent and what is held alike', () => {
    expect(admits(limited(10, 4, 5), 1)).toBe(true);
    expect(admits(limited(10, 4, 5), 1.000001)).toBe(false);
    expect(admits(limited(10, 9, 0), 1.000001)).toBe(false);
    expect(admits(limited(10, 0, 9), 1.000001)).toBe(false);
  });

  it('takes float drift of a nano-dollar or less as equal (0.1 + 0.2 is 0.30000000000000004)', () => {
    expect(0.1 + 0.2 + 0 > 0.3).toBe(true);
    expect(admits(limited(0.3, 0.1, 0.2), 0)).toBe(true);
    expect(admits(limited(0.3, 0.1, 0.2), 0.000001)).toBe(false);
    expect(admits(limited(1, 0, 0), 1 + 1e-9)).toBe(true);
    expect(admits(limited(1, 0, 0), 1 + 1e-8)).toBe(false);
  });

  it('admits nothing but a free hold on an empty budget, and not even that once it is overspent', () => {
    expect(admits(limited(0, 0, 0), 0)).toBe(true);
    expect(admits(limited(0, 0, 0), 0.000001)).toBe(false);
    expect(admits(limited(10, 11, 0), 0)).toBe(false);
  });

  it('refuses an amount that is not a number when the limit is on (fails closed)', () => {
    expect(admits(limited(10, 0, 0), Number.NaN)).toBe(false);
  });
});

/**
 * Micro-dollar amounts (the stores keep 6 to 8 decimals; costs are rounded up to the micro-dollar)
 * as integers, for exact arithmetic; the amount is drawn around what is left so that the
 * boundary is hit often.
 */
const micros = (maxUsd: number) =>
  fc
    .record({ allocated: fc.integer({ min: 0, max: maxUsd * 1e6 }), spent: fc.integer({ min: 0, max: maxUsd * 1e6 }), reserved: fc.integer({ min: 0, max: maxUsd * 1e6 }), delta: fc.integer({ min: -3, max: 3 }) })
    .map(({ allocated, spent, reserved, delta }) => ({ allocated, spent, reserved, amount: Math.max(0, allocated - spent - reserved + delta) }));
const inUsd = (m: { allocated: number; spent: number; reserved: number }) => limited(m.allocated / 1e6, m.spent / 1e6, m.reserved / 1e6);

describe('admits, against exact micro-dollar arithmetic', () => {
  it('decides as exact arithmetic does for allocations up to $1,000,000', () => {
    fc.assert(
      fc.property(micros(1e6), (m) => {
        expect(admits(inUsd(m), m.amount / 1e6)).toBe(m.spent + m.reserved + m.amount <= m.allocated);
      }),
      { numRuns: 5000 },
    );
  });

  it('never admits a micro-dollar past the allocation, up to the largest budget the contract accepts ($1e9)', () => {
    // (Above ~$100M float sums may refuse the very last micro-dollar that would fit; they never admit more.)
    fc.assert(
      fc.property(micros(1e9), (m) => {
        if (admits(inUsd(m), m.amount / 1e6)) expect(m.spent + m.reserved + m.amount).toBeLessThanOrEqual(m.allocated);
      }),
      { numRuns: 5000 },
    );
  });
});
