/**
 * Leaves of a metric (one per combination of label values) held column-wise, with the two
 * measures attribution needs: a set of leaves' contribution to the subject's change and its
 * Adtributor surprise. For an additive metric a contribution is the set's own change. For a
 * ratio N/D it is the first-order change (ΔN_S·D₀ − N₀·ΔD_S)/D₀², scaled so that all leaves
 * together contribute exactly the observed change of the ratio.
 */

export interface SegmentLeaf {
  labels: Readonly<Record<string, string>>;
  /** The additive measure (or a ratio's numerator) in the comparison period and in the period. */
  before: number;
  after: number;
  /** A ratio's denominator in the comparison period and in the period. */
  denominatorBefore?: number;
  denominatorAfter?: number;
}

export class LeafTable {
  readonly size: number;
  readonly dimensions: string[];
  /** Per dimension: each leaf's value code, and the values by code. */
  readonly codes: Int32Array[];
  readonly values: string[][];
  readonly before: Float64Array;
  readonly after: Float64Array;
  readonly denBefore?: Float64Array;
  readonly denAfter?: Float64Array;
  readonly totalBefore: number;
  readonly totalAfter: number;
  readonly totalDenBefore: number;
  readonly totalDenAfter: number;
  /** The observed change of the subject (of the ratio, for a ratio). */
  readonly change: number;
  readonly #scale: number;
  /** A ratio's unit factor (100 for a percent), as the subject's own value is scaled. */
  readonly unitScale: number;

  constructor(leaves: readonly SegmentLeaf[], scale = 1) {
    this.size = leaves.length;
    this.unitScale = scale;
    const dims = new Set<string>();
    for (const l of leaves) for (const k of Object.keys(l.labels)) dims.add(k);
    this.dimensions = [...dims].sort();
    this.codes = this.dimensions.map(() => new Int32Array(leaves.length));
    this.values = this.dimensions.map(() => []);
    const index = this.dimensions.map(() => new Map<string, number>());
    this.before = new Float64Array(leaves.length);
    this.after = new Float64Array(leaves.length);
    const ratio = leaves.some((l) => l.denominatorBefore !== undefined);
    if (ratio) {
      this.denBefore = new Float64Array(leaves.length);
      this.denAfter = new Float64Array(leaves.length);
    }
    leaves.forEach((l, i) => {
      this.dimensions.forEach((d, j) => {
        const v = l.labels[d] ?? '';
        let code = index[j]!.get(v);
        if (code === undefined) {
          code = this.values[j]!.length;
          index[j]!.set(v, code);
          this.values[j]!.push(v);
        }
        this.codes[j]![i] = code;
      });
      this.before[i] = l.before;
      this.after[i] = l.after;
      if (this.denBefore) {
        this.denBefore[i] = l.denominatorBefore ?? 0;
        this.denAfter![i] = l.denominatorAfter ?? 0;
      }
    });
    const sum = (xs?: Float64Array) => (xs ? xs.reduce((a, b) => a + b, 0) : 0);
    this.totalBefore = sum(this.before);
    this.totalAfter = sum(this.after);
    this.totalDenBefore = sum(this.denBefore);
    this.totalDenAfter = sum(this.denAfter);
    if (this.denBefore) {
      this.change = (this.totalAfter / this.totalDenAfter - this.totalBefore / this.totalDenBefore) * scale;
      const firstOrder = this.rawRatio(this.totalAfter - this.totalBefore, this.totalDenAfter - this.totalDenBefore);
      this.#scale = firstOrder !== 0 ? this.change / firstOrder : 0;
    } else {
      this.change = this.totalAfter - this.totalBefore;
      this.#scale = 1;
    }
  }

  get isRatio(): boolean {
    return this.denBefore !== undefined;
  }

  private rawRatio(dn: number, dd: number): number {
    const d0 = this.totalDenBefore;
    return (dn * d0 - this.totalBefore * dd) / (d0 * d0);
  }

  /** Contribution to the subject's change of a set with these sums (after − before of the measure and of the denominator). */
  contributionOf(sums: { before: number; after: number; denBefore: number; denAfter: number }): number {
    if (!this.isRatio) return sums.after - sums.before;
    return this.rawRatio(sums.after - sums.before, sums.denAfter - sums.denBefore) * this.#scale;
  }

  /** A set's own value in the subject's unit before and after: its sums, or for a ratio its numerator ÷ denominator (0 over an empty denominator). */
  valuesOf(sums: { before: number; after: number; denBefore: number; denAfter: number }): { before: number; after: number } {
    if (!this.isRatio) return { before: sums.before, after: sums.after };
    const ratio = (n: number, d: number) => (d !== 0 ? (n / d) * this.unitScale : 0);
    return { before: ratio(sums.before, sums.denBefore), after: ratio(sums.after, sums.denAfter) };
  }

  /** Adtributor's surprise of a set with these sums (for a ratio, numerator's plus denominator's). */
  surpriseOf(sums: { before: number; after: number; denBefore: number; denAfter: number }): number {
    const s = jsTerm(sums.before / this.totalBefore, sums.after / this.totalAfter);
    return this.isRatio ? s + jsTerm(sums.denBefore / this.totalDenBefore, sums.denAfter / this.totalDenAfter) : s;
  }

  /** Sums of the leaves for which `keep` is true. */
  sums(keep: (i: number) => boolean): { before: number; after: number; denBefore: number; denAfter: number; leaves: number } {
    let before = 0;
    let after = 0;
    let denBefore = 0;
    let denAfter = 0;
    let leaves = 0;
    for (let i = 0; i < this.size; i++) {
      if (!keep(i)) continue;
      before += this.before[i]!;
      after += this.after[i]!;
      if (this.denBefore) {
        denBefore += this.denBefore[i]!;
        denAfter += this.denAfter![i]!;
      }
      leaves++;
    }
    return { before, after, denBefore, denAfter, leaves };
  }
}

/** ½·[p·ln(2p/(p+q)) + q·ln(2q/(p+q))], the Jensen-Shannon term Adtributor calls surprise (0·ln 0 = 0). */
export function jsTerm(p: number, q: number): number {
  const safe = (x: number) => (Number.isFinite(x) && x > 0 ? x : 0);
  const a = safe(p);
  const b = safe(q);
  const m = a + b;
  if (m === 0) return 0;
  return 0.5 * ((a > 0 ? a * Math.log((2 * a) / m) : 0) + (b > 0 ? b * Math.log((2 * b) / m) : 0));
}
