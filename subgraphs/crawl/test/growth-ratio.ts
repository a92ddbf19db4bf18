/** Below this, a timing is mostly timer and scheduler noise. */
const FLOOR_MS = 5;

/**
 * How much longer `run` takes on `large` than on `small`: the best of `rounds` timings of each,
 * taken in turns (small, large, small, ...) after one warm-up of each, so that both see the same
 * load on a shared machine and the best of each is the least disturbed; the small one counts as
 * at least FLOOR_MS. For texts n times apart, linear work gives a ratio near n, quadratic work
 * one near n².
 */
export function growthRatio(run: (input: string) => unknown, small: string, large: string, rounds = 7): number {
  run(small);
  run(large);
  let bestSmall = Infinity;
  let bestLarge = Infinity;
  for (let i = 0; i < rounds; i++) {
    let start = performance.now();
    run(small);
    bestSmall = Math.min(bestSmall, performance.now() - start);
    start = performance.now();
    run(large);
    bestLarge = Math.min(bestLarge, performance.now() - start);
  }
  return bestLarge / Math.max(bestSmall, FLOOR_MS);
}
