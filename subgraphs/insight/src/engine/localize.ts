/**
 * Root-cause localization over a metric's leaves: the smallest set of disjoint elements (each a
 * combination of label values, "node=5 × mode=off") that together explain how the leaves moved
 * from their comparison values `f` to their actual values `v`.
 *
 * The model is the ripple effect that Squeeze, HotSpot and RiskLoc all rest on: a cause moves
 * every leaf under it by the same factor, and leaves outside every cause keep their comparison
 * value up to noise. Each leaf is weighed by its own noise (1 ÷ the typical gap of a leaf of its
 * size, `noiseOf`), so a small leaf that doubled counts as much as a large one that moved as far
 * out of its usual range. An element's gain is the weighted squared error its ripple removes:
 * Σ_e w²·(v − f)² − min_c Σ_e w²·(v − c·f)². That one measure holds the rules of a good answer.
 * A combination cut short (node alone, when only node × mode moved) predicts the still leaves to
 * move and loses gain on them; a combination cut sideways (node × rendition) leaves the moved
 * part of its sibling unexplained; an attribute that did not move (a client type) spreads the
 * cause's move over leaves that held. Noise gains little: a ripple fits a group's net move, and
 * noise nets out.
 *
 * The search descends cuboids (one attribute, pairs, triples, deeper while few) and grows the
 * answer greedily: each round takes the element of greatest gain among those not yet taken,
 * preferring the fewer attributes when that costs at most `simpler` of the gain (so an attribute
 * value is named whole when its parts moved alike, and a combination only when the rest of the
 * value held). An element must stand out of the noise of its leaves, more so the more elements
 * a round weighs (the largest of m normal deviations is about √(2 ln m)); so a second value of an
 * attribute (two renditions failing at once) is found like any other element, and noise is not.
 * A ratio (failures ÷ attempts) is localized on the ratio: a leaf's comparison is its earlier
 * ratio applied to its current denominator. Linear in the leaves per cuboid and round, and cut
 * early: a cuboid none of whose elements can beat the best gain found so far (bounded by its
 * parents' widest groups) is not weighed, which leaves most deep cuboids out once a cause is found.
 *
 * This finds every element that moved out of its noise, however small; which of them a report
 * names as causes of the change is the report's choice (segment-attribution.ts keeps those that
 * hold a real part of the change).
 */
import { LeafTable, type SegmentLeaf } from './leaf-table.js';

export const LOCALIZE = {
  /** Attributes in one element searched whatever the count of cuboids… */
  maxLayer: 3,
  /** …and deeper layers (down to single leaves) while the cuboids searched stay within this count. */
  maxCuboids: 64,
  /** Most elements found. */
  maxElements: 12,
  /** An element of fewer attributes is preferred while its gain is within this share of the best. */
  simpler: 0.05,
  /** Attributes searched in combinations (the ones whose values moved most apart). */
  maxDimensions: 8,
  /** An element's net move must exceed its leaves' noise by the largest of the round's normal deviations and this margin. */
  significanceMargin: 1.5,
  /** Leaves below which noise is not estimated: gaps are weighed as they are… */
  noiseSample: 12,
  /** …and a later element must gain at least this share of the first one's gain. */
  minRelativeGain: 0.2,
} as const;

/** One element of a cause: label values (an attribute not named takes any value). */
export interface LocalizedElement {
  labels: Record<string, string>;
  /** Its leaves (1) outside the elements found before it. */
  mine: Uint8Array;
  /** Those leaves' count, and their comparison and actual sums (on the ratio's comparison for a ratio). */
  leaves: number;
  expected: number;
  actual: number;
  /** Share of the leaves' weighed gaps its ripple explains. */
  gain: number;
}

export interface Localization {
  elements: LocalizedElement[];
  /** Share of the leaves' weighed gaps the elements explain together. */
  explained: number;
}

/** The comparison `f` and actual `v` of each leaf: for a ratio, the earlier ratio applied to the current denominator. */
export function expectedAndActual(table: LeafTable): { f: Float64Array; v: Float64Array } {
  const f = new Float64Array(table.size);
  const v = Float64Array.from(table.after);
  if (!table.denBefore) {
    f.set(table.before);
    return { f, v };
  }
  const overall = table.totalDenBefore > 0 ? table.totalBefore / table.totalDenBefore : 0;
  // A leaf's earlier ratio is shrunk towards the whole's by a pseudo-count of a twentieth of the
  // typical denominator, so a leaf seen a few times before is not judged on a ratio of 0/2 or 2/2.
  const pseudo = (0.05 * table.totalDenBefore) / Math.max(1, table.size);
  // A proportion above a half (successes ÷ attempts) is localized on its rarer complement (the
  // failures): where the successes' rate fell is where the failures' rose, and the rare outcome's
  // counts are the ones whose noise the transform in `stabilised` makes even on both sides.
  let proportion = overall > 0.5;
  for (let i = 0; i < table.size && proportion; i++) proportion = table.before[i]! <= table.denBefore[i]! && table.after[i]! <= table.denAfter![i]!;
  for (let i = 0; i < table.size; i++) {
    const rate = (table.before[i]! + overall * pseudo) / (table.denBefore[i]! + pseudo);
    f[i] = (proportion ? 1 - rate : rate) * table.denAfter![i]!;
    if (proportion) v[i] = table.denAfter![i]! - table.after[i]!;
  }
  return { f, v };
}

/** E[z² | z² < 4] for a normal z: a mean of squares kept below four times their expectation (two deviations), divided by it, is unbiased. */
const KEPT_SQUARES = 0.7737;

/**
 * Each leaf's noise: the typical gap v − f of a leaf of its size a = (|f| + |v|) ÷ 2 (symmetric,
 * so a leaf that fell by half and one that doubled are as far out). Var(v − f) = P·a + R·a² fits
 * counts (the Poisson part P·a) and amounts (a relative noise R·a²) alike, and their mixtures.
 * P and R are fitted to the squared gaps by weighted least squares (weights 1 ÷ the model's
 * variance, as for a gamma model of squares), leaving out the gaps beyond two of their
 * deviations (the causes' leaves) and fitting again until the fit settles. A mean of squares
 * rather than a quantile: small counts, whose gaps are mostly 0 or 1, make a quantile 0. Zero
 * where too few leaves tell (see `noiseSample`).
 */
export function noiseOf(f: Float64Array, v: Float64Array): { scale: Float64Array; P: number; R: number } {
  const n = f.length;
  const scale = new Float64Array(n);
  if (n < LOCALIZE.noiseSample) return { scale, P: 0, R: 0 };
  const a = Float64Array.from(f, (x, i) => (Math.abs(x) + Math.abs(v[i]!)) / 2);
  const g2 = Float64Array.from(f, (x, i) => (v[i]! - x) ** 2);
  // Leaves that were and stayed empty say nothing of the noise.
  const used = Array.from({ length: n }, (_, i) => i).filter((i) => a[i]! > 0);
  if (!used.length) return { scale, P: 0, R: 0 };
  // The fit starts from the median (of χ²₁, 0.4549 for a normal), which the causes' leaves do not
  // move while fewer than half. Where most leaves held exactly, there is no noise to measure.
  const start = used.map((i) => g2[i]! / a[i]!).sort((x, y) => x - y);
  let P = start[Math.floor(start.length / 2)]! / 0.4549;
  let R = 0;
  if (P === 0) used.length = 0;
  for (let round = 0; round < 12 && used.length; round++) {
    // Normal equations of Σ w·(g² − P·a − R·a²)², w = 1/m², over the leaves within nine times their m.
    let saa = 0;
    let sab = 0;
    let sbb = 0;
    let sya = 0;
    let syb = 0;
    for (const i of used) {
      const m = P * a[i]! + R * a[i]! ** 2;
      if (m > 0 && g2[i]! > 4 * m) continue;
      const w = m > 0 ? 1 / (m * m) : 1;
      const x1 = a[i]!;
      const x2 = a[i]! ** 2;
      const y = g2[i]! / KEPT_SQUARES;
      saa += w * x1 * x1;
      sab += w * x1 * x2;
      sbb += w * x2 * x2;
      sya += w * y * x1;
      syb += w * y * x2;
    }
    const det = saa * sbb - sab * sab;
    let nextP = det > 0 ? (sya * sbb - syb * sab) / det : sya / saa;
    let nextR = det > 0 ? (syb * saa - sya * sab) / det : 0;
    // Neither part is negative: where one would be, the other alone is fitted.
    if (nextR < 0) [nextP, nextR] = [sya / saa, 0];
    if (nextP < 0) [nextP, nextR] = [0, syb / sbb];
    const settled = Math.abs(nextP - P) <= 1e-4 * (P + 1e-12) && Math.abs(nextR - R) <= 1e-4 * (R + 1e-12);
    P = nextP;
    R = nextR;
    if (settled) break;
  }
  // A floor for data without noise (every gap a cause's): a millionth of the typical leaf.
  let mean = 0;
  for (let i = 0; i < n; i++) mean += a[i]! / n;
  for (let i = 0; i < n; i++) scale[i] = Math.max(Math.sqrt(P * a[i]! + R * a[i]! ** 2), 1e-6 * (mean + 1));
  return { scale, P, R };
}

/**
 * The variance-stabilising transform of Var = P·x + R·x²: (2/√R)·asinh(√(R·x/P)), which is 2√(x/P)
 * for counts (R = 0) and ln(x)/√R for amounts (P = 0). One leaf's move g(v) − g(f) is then a
 * standard normal deviation in both tails, where (v − f) ÷ noise is not: a count of a few
 * failures rises by five far more often than it falls by five.
 */
function stabilised(x: number, P: number, R: number): number {
  const a = Math.max(0, x);
  if (R > 0 && P > 0) return (2 / Math.sqrt(R)) * Math.asinh(Math.sqrt((R * a) / P));
  if (P > 0) return 2 * Math.sqrt(a / P);
  if (R > 0) return Math.log(a + 1e-9) / Math.sqrt(R);
  return a;
}

function cuboids(n: number, k: number): number[][] {
  const out: number[][] = [];
  const pick = (start: number, acc: number[]) => {
    if (acc.length === k) return void out.push([...acc]);
    for (let j = start; j < n; j++) pick(j + 1, [...acc, j]);
  };
  pick(0, []);
  return out;
}

/** The attributes worth combining: those whose values' weighed moves differ most from moving alike. */
function movingDimensions(table: LeafTable, f: Float64Array, v: Float64Array, w: Float64Array): number[] {
  const spread = table.dimensions.map((_, j) => {
    const values = table.values[j]!.length;
    const fs = new Float64Array(values);
    const vs = new Float64Array(values);
    const ws = new Float64Array(values);
    const codes = table.codes[j]!;
    for (let i = 0; i < table.size; i++) {
      fs[codes[i]!]! += f[i]!;
      vs[codes[i]!]! += v[i]!;
      ws[codes[i]!]! += w[i]! * Math.abs(f[i]!) + w[i]!;
    }
    const F = fs.reduce((a, b) => a + b, 0);
    const V = vs.reduce((a, b) => a + b, 0);
    let s = 0;
    for (let x = 0; x < values; x++) s += (Math.abs(vs[x]! - (F !== 0 ? (fs[x]! * V) / F : vs[x]!)) * ws[x]!) / (Math.abs(fs[x]!) + 1);
    return s;
  });
  return table.dimensions.map((_, j) => j).sort((a, b) => spread[b]! - spread[a]!).slice(0, LOCALIZE.maxDimensions).sort((a, b) => a - b);
}

interface Candidate {
  dims: number[];
  gain: number;
  /** Net move over its noise: (V − F) ÷ √Σ noise². */
  z: number;
  leaves: number;
  F: number;
  V: number;
  example: number;
}

/** Numbers the groups of a cuboid (the leaves' combinations of its attributes' values) densely. */
function groupsOf(table: LeafTable, dims: readonly number[]): { count: number; of: Int32Array } {
  const of = new Int32Array(table.size);
  let space = 1;
  for (const j of dims) space *= table.values[j]!.length;
  if (space <= 4 * table.size + 1024) {
    // The combinations fit an array: each one's number is its position, made dense after.
    const dense = new Int32Array(space).fill(-1);
    let count = 0;
    for (let i = 0; i < table.size; i++) {
      let key = 0;
      for (const j of dims) key = key * table.values[j]!.length + table.codes[j]![i]!;
      of[i] = dense[key]! < 0 ? (dense[key] = count++) : dense[key]!;
    }
    return { count, of };
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < table.size; i++) {
    const key = dims.map((j) => table.codes[j]![i]!).join(',');
    let g = seen.get(key);
    if (g === undefined) seen.set(key, (g = seen.size));
    of[i] = g;
  }
  return { count: seen.size, of };
}

/** The leaves' data one search works on. */
interface Leaves {
  f: Float64Array;
  v: Float64Array;
  /** Each leaf's weight: 1 ÷ its noise (1 where the noise is not estimated). */
  w: Float64Array;
  noise: Float64Array;
  /** The noise's Poisson and relative parts (`noiseOf`). */
  P: number;
  R: number;
  /** 1 for a leaf an element already holds. */
  taken: Uint8Array;
  /** Group sums of the cuboid being weighed, as long as the most groups a cuboid has. */
  sums: GroupSums;
}

interface GroupSums {
  F: Float64Array;
  V: Float64Array;
  gg: Float64Array;
  vv: Float64Array;
  vf: Float64Array;
  ff: Float64Array;
  variance: Float64Array;
  leaves: Int32Array;
  example: Int32Array;
}

function groupSums(size: number): GroupSums {
  const column = () => new Float64Array(size);
  return { F: column(), V: column(), gg: column(), vv: column(), vf: column(), ff: column(), variance: column(), leaves: new Int32Array(size), example: new Int32Array(size) };
}

/**
 * The element of greatest gain among those of one cuboid whose net move over the leaves not taken
 * yet stands out of their noise by `z` (its gain on those leaves), and the largest weighted gap
 * Σw²(v − f)² of any of its groups: no element inside one of its groups can gain more. An element that overlaps one taken before is
 * judged on its part outside it: an overlap counts once, in the element taken first.
 */
function bestOf(dims: number[], numbered: { count: number; of: Int32Array }, data: Leaves, z: number): { best: Candidate | undefined; widest: number } {
  const { count, of } = numbered;
  const { f, v, w, noise, taken } = data;
  // Weighted sums for the ripple's least-squares fit: Σw²(v−f)², Σw²v², Σw²vf, Σw²f² (w = 1/noise),
  // in the search's own arrays, cleared for this cuboid's groups (a cuboid a call: no garbage per call).
  const { F, V, gg, vv, vf, ff, variance, leaves, example } = data.sums;
  for (const column of [F, V, gg, vv, vf, ff, variance]) column.fill(0, 0, count);
  leaves.fill(0, 0, count);
  example.fill(-1, 0, count);
  const n = of.length;
  for (let i = 0; i < n; i++) {
    if (taken[i]) continue;
    const k = of[i]!;
    const w2 = w[i]! * w[i]!;
    const fi = f[i]!;
    const vi = v[i]!;
    F[k]! += fi;
    V[k]! += vi;
    gg[k]! += w2 * (vi - fi) * (vi - fi);
    vv[k]! += w2 * vi * vi;
    vf[k]! += w2 * vi * fi;
    ff[k]! += w2 * fi * fi;
    variance[k]! += noise[i]! * noise[i]!;
    leaves[k]!++;
    if (example[k]! < 0) example[k] = i;
  }
  let best: Candidate | undefined;
  let widest = 0;
  for (let k = 0; k < count; k++) {
    if (!leaves[k]) continue;
    if (gg[k]! > widest) widest = gg[k]!;
    // One leaf's move on the stabilised scale (a sum of many is normal enough as it is).
    const moved = leaves[k] === 1 && (data.P > 0 || data.R > 0) ? stabilised(V[k]!, data.P, data.R) - stabilised(F[k]!, data.P, data.R) : variance[k]! > 0 ? (V[k]! - F[k]!) / Math.sqrt(variance[k]!) : (V[k]! - F[k]!) * Infinity;
    const zk = Number.isNaN(moved) ? 0 : moved;
    if (!(Math.abs(zk) > z)) continue;
    // The ripple v ≈ c·f fitted by weighted least squares leaves Σw²v² − (Σw²vf)²/Σw²f².
    const residual = ff[k]! > 0 ? vv[k]! - (vf[k]! * vf[k]!) / ff[k]! : 0;
    const gain = gg[k]! - residual;
    if (!best || gain > best.gain) best = { dims, gain, z: zk, leaves: leaves[k]!, F: F[k]!, V: V[k]!, example: example[k]! };
  }
  return { best, widest };
}

/**
 * The best single leaf (the cuboid of every label): its own ripple fits it exactly, so its gain
 * is its whole weighted gap, judged on the stabilised scale; no groups to number or sum.
 */
function bestLeaf(dims: number[], data: Leaves, z: number): { best: Candidate | undefined; widest: number } {
  const { f, v, w, taken } = data;
  let best: Candidate | undefined;
  for (let i = 0; i < f.length; i++) {
    if (taken[i]) continue;
    const moved = data.P > 0 || data.R > 0 ? stabilised(v[i]!, data.P, data.R) - stabilised(f[i]!, data.P, data.R) : data.noise[i]! > 0 ? (v[i]! - f[i]!) / data.noise[i]! : (v[i]! - f[i]!) * Infinity;
    if (!(Math.abs(moved) > z)) continue;
    const gain = (w[i]! * (v[i]! - f[i]!)) ** 2;
    if (!best || gain > best.gain) best = { dims, gain, z: moved, leaves: 1, F: f[i]!, V: v[i]!, example: i };
  }
  return { best, widest: Infinity };
}

/** The cuboids searched: every layer up to `maxLayer` attributes, deeper layers while the count stays within `maxCuboids`. */
function cuboidsToSearch(dims: readonly number[]): number[][][] {
  const layers: number[][][] = [];
  let total = 0;
  for (let layer = 1; layer <= dims.length; layer++) {
    const these = cuboids(dims.length, layer).map((c) => c.map((x) => dims[x]!));
    if (layer > LOCALIZE.maxLayer && total + these.length > LOCALIZE.maxCuboids) break;
    layers.push(these);
    total += these.length;
  }
  return layers;
}

/** The gain of one ripple over every leaf (the whole moved by one factor), when its move stands out of the noise by `z`. */
function wholeGain(data: Leaves, z: number): number {
  const { f, v, w, noise } = data;
  let gg = 0;
  let vv = 0;
  let vf = 0;
  let ff = 0;
  let moved = 0;
  let variance = 0;
  for (let i = 0; i < f.length; i++) {
    const w2 = w[i]! * w[i]!;
    gg += w2 * (v[i]! - f[i]!) ** 2;
    vv += w2 * v[i]! * v[i]!;
    vf += w2 * v[i]! * f[i]!;
    ff += w2 * f[i]! * f[i]!;
    moved += v[i]! - f[i]!;
    variance += noise[i]! * noise[i]!;
  }
  if (!(ff > 0) || Math.abs(moved) <= z * Math.sqrt(variance)) return 0;
  return gg - (vv - (vf * vf) / ff);
}

/** Whether, once every leaf's comparison is scaled by the whole's factor, no single label's value still stands out: the leaves moved alike. */
function movedAlike(data: Leaves, layer: number[][], numbering: (dims: number[]) => { count: number; of: Int32Array }, z: number): boolean {
  let F = 0;
  let V = 0;
  for (let i = 0; i < data.f.length; i++) {
    F += data.f[i]!;
    V += data.v[i]!;
  }
  const scaled: Leaves = { ...data, f: Float64Array.from(data.f, (x) => (x * V) / F) };
  return layer.every((c) => !bestOf(c, numbering(c), scaled, z).best);
}

/** Leaf numberings kept between rounds while they hold at most this many entries (else made again each round). */
const KEPT_NUMBERINGS = 50_000_000;

/** Localizes the move from `f` to `v` over the table's leaves (see the file's comment). */
export function localize(table: LeafTable): Localization {
  const { f, v } = expectedAndActual(table);
  const { scale: noise, P, R } = noiseOf(f, v);
  const w = Float64Array.from(noise, (s) => (s > 0 ? 1 / s : 1));
  let total = 0;
  for (let i = 0; i < table.size; i++) total += (w[i]! * (v[i]! - f[i]!)) ** 2;
  if (!(total > 0) || table.size < 2) return { elements: [], explained: 0 };
  const layers = cuboidsToSearch(movingDimensions(table, f, v, w));
  // The cuboid of every label holds single leaves, weighed without groups (`bestLeaf`); the
  // others' group sums need as many slots as the most groups one of them can have.
  const leafLevel = (c: readonly number[]) => c.length === table.dimensions.length;
  const most = layers.flat().filter((c) => !leafLevel(c)).reduce((m, c) => Math.max(m, Math.min(table.size, c.reduce((k, j) => k * table.values[j]!.length, 1))), 1);
  const data: Leaves = { f, v, w, noise, P, R, taken: new Uint8Array(table.size), sums: groupSums(most) };
  const groups = layers.flat().reduce((a, c) => a + Math.min(table.size, c.reduce((m, j) => m * table.values[j]!.length, 1)), 0);
  // The largest of m normal deviations is about √(2 ln m): an element must stand out beyond it.
  const z = Math.sqrt(2 * Math.log(Math.max(2, groups))) + LOCALIZE.significanceMargin;
  const keep = layers.flat().filter((c) => !leafLevel(c)).length * table.size <= KEPT_NUMBERINGS;
  const kept = new Map<number[], { count: number; of: Int32Array }>();
  const numbering = (dims: number[]) => {
    let n = kept.get(dims);
    if (!n) {
      n = groupsOf(table, dims);
      if (keep) kept.set(dims, n);
    }
    return n;
  };
  const elements: LocalizedElement[] = [];
  const estimated = table.size >= LOCALIZE.noiseSample;
  let firstGain = 0;
  let explained = 0;
  while (elements.length < LOCALIZE.maxElements) {
    // The best element of each layer; then the simplest whose gain is within `simpler` of the best.
    // A cuboid's elements lie inside its parents' groups (one label fewer), so none gains more than
    // the widest of those groups' gaps: a cuboid whose parents are all narrower than the best gain
    // found so far cannot change the answer, and is not weighed (nor its descendants).
    const widest = new Map<string, number>();
    let most = 0;
    const best = layers.map((cuboidsOfLayer) => {
      let top: Candidate | undefined;
      for (const c of cuboidsOfLayer) {
        const bound = c.length === 1 ? Infinity : Math.min(...c.map((_, x) => widest.get(c.filter((__, y) => y !== x).join()) ?? Infinity));
        if (bound <= most) {
          widest.set(c.join(), bound);
          continue;
        }
        const x = leafLevel(c) ? bestLeaf(c, data, z) : bestOf(c, numbering(c), data, z);
        widest.set(c.join(), x.widest);
        if (x.best && (!top || x.best.gain > top.gain)) top = x.best;
      }
      if (top) most = Math.max(most, top.gain);
      return top;
    });
    const max = Math.max(0, ...best.map((b) => b?.gain ?? 0));
    if (!(max > 0)) break;
    // The whole, moved alike everywhere, is the simplest answer of all: no element is named. It
    // is the answer when its one factor explains most of how the leaves moved, and as much as any element.
    if (!elements.length && wholeGain(data, z) >= (1 - LOCALIZE.simpler) * max && movedAlike(data, layers[0]!, numbering, z)) break;
    const chosen = best.find((b) => b && b.gain >= (1 - LOCALIZE.simpler) * max)!;
    if (!estimated && elements.length && chosen.gain < LOCALIZE.minRelativeGain * firstGain) break;
    firstGain ||= chosen.gain;
    const labels: Record<string, string> = {};
    for (const j of chosen.dims) labels[table.dimensions[j]!] = table.values[j]![table.codes[j]![chosen.example]!]!;
    const mine = new Uint8Array(table.size);
    if (leafLevel(chosen.dims)) mine[chosen.example] = data.taken[chosen.example] = 1;
    else {
      const { of } = numbering(chosen.dims);
      const group = of[chosen.example]!;
      for (let i = 0; i < table.size; i++) {
        if (data.taken[i] || of[i] !== group) continue;
        mine[i] = 1;
        data.taken[i] = 1;
      }
    }
    elements.push({ labels, mine, leaves: chosen.leaves, expected: chosen.F, actual: chosen.V, gain: chosen.gain / total });
    explained += chosen.gain;
  }
  return { elements, explained: explained / total };
}

/** The elements that explain the leaves' move, as label sets (the benchmark's and the tests' entry). */
export function localizeCauses(leaves: readonly SegmentLeaf[]): { labels: Record<string, string> }[] {
  return localize(new LeafTable(leaves)).elements.map((e) => ({ labels: e.labels }));
}
