import { describe, expect, it } from '@jest/globals';
import { collectGarbage } from './memory.js';

describe('collectGarbage', () => {
  it('frees the heap a batch left behind, and says how long it paused', () => {
    let batch: { line: string }[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ line: `name,${i},${i * 1.5}` }));
    const held = process.memoryUsage().heapUsed;
    expect(batch.length).toBe(400_000);
    batch = undefined;
    const paused = collectGarbage();
    // 400,000 objects with their strings are some 40 MiB; all of it is garbage now.
    expect(held - process.memoryUsage().heapUsed).toBeGreaterThan(20 * 2 ** 20);
    expect(paused).toBeGreaterThan(0);
    expect(collectGarbage()).toBeGreaterThan(0);
  });
});
