/**
 * Where a change happened, through the metric's labels: Adtributor (Bhagwan et al., NSDI 2014)
 * per label dimension, a ThirdEye-style second level inside each value it chose, and a
 * Squeeze-style combination search when no single dimension explains the change.
 *
 * For each value v of a dimension, with comparison F and actual A:
 * explanatory power EP(v) = (A_v − F_v)/(A − F) and surprise
 * S(v) = ½·[p·ln(2p/(p+q)) + q·ln(2q/(p+q))], p = F_v/F, q = A_v/A.
 * Values are taken by falling surprise, each with EP ≥ 0.1, until the set explains ≥ 2/3 of
 * the change, with at most 3 values and never every value of the dimension (a set holding every
 * value says nothing about where), and only when the set explains at least a quarter more of
 * the change than its share of the comparison value (a concentration check added here: a
 * dimension unrelated to the change explains exactly as much as it weighs). Dimensions whose
 * set explains are ranked by the set's surprise.
 */
import { searchCombinations } from './combination-search.js';
import type { Segment } from './segment.js';

export type { Segment } from './segment.js';
import { LeafTable, jsTerm, type SegmentLeaf } from './leaf-table.js';
import { shareOf } from './remainder.js';

export const ADTRIBUTOR = {
  /** Least explanatory power of a value in a set. */
  minValueShare: 0.1,
  /** Share of the change a set must explain. */
  minSetShare: 2 / 3,
  /** Most values in a set (succinctness). */
  maxSetSize: 3,
  /** A set must explain at least this much more of the change than its share of the comparison value (a dimension unrelated to the change explains as much as it weighs). */
  minConcentration: 0.25,
  /** A second level replaces its parent only when it holds at most this share of the parent's comparison value. */
  maxChildBaseShare: 0.8,
} as const;

export interface DimensionSet {
  dimension: string;
  segments: Segment[];
  /** Σ explanatory power of the set. */
  explains: number;
  /** Σ surprise of the set. */
  surprise: number;
  /** Whether the set explains ≥ 2/3 of the change within the size limit. */
  explaining: boolean;
}

export interface SegmentAttribution {
  change: number;
  method: 'adtributor' | 'adtributor+drill-down' | 'combination-search' | 'none';
  /** Every dimension's set, explaining ones first by surprise. */
  dimensions: DimensionSet[];
  /** The most specific segments that account for the change, largest contribution first. */
  causes: Segment[];
  /** change − Σ causes' contributions. */
  remainder: number;
  /**
   * When nothing is concentrated: every value of every label (each holding at least 1 % of the
   * comparison) moved by about the same relative change as the whole (`evenness`), so the change
   * is spread evenly over them. The range is the values' own relative changes.
   */
  even?: { dimensions: string[]; low: number; high: number };
}

export const EVENNESS = {
  /** Values lighter than this share of the comparison are not judged (their changes are noise). */
  minWeight: 0.01,
  /** A value moved "alike" when its relative change is within this much of the whole's, or this share of it. */
  absolute: 0.05,
  relative: 0.35,
} as const;

/** Whether every label's values moved alike (see `SegmentAttribution.even`), and the range of their relative changes. */
export function evenSpread(table: LeafTable): SegmentAttribution['even'] {
  const whole = table.sums(() => true);
  const overall = table.valuesOf(whole);
  if (!(overall.before > 0) || table.dimensions.length === 0) return undefined;
  const r = overall.after / overall.before - 1;
  if (r === 0) return undefined;
  const tolerance = Math.max(EVENNESS.absolute, EVENNESS.relative * Math.abs(r));
  let low = Infinity;
  let high = -Infinity;
  for (let j = 0; j < table.dimensions.length; j++) {
    const codes = table.codes[j]!;
    for (let code = 0; code < table.values[j]!.length; code++) {
      const s = table.sums((i) => codes[i] === code);
      if (s.before < EVENNESS.minWeight * whole.before) continue;
      const v = table.valuesOf(s);
      if (!(v.before > 0)) return undefined;
      const rv = v.after / v.before - 1;
      if (Math.abs(rv - r) > tolerance || Math.sign(rv) !== Math.sign(r)) return undefined;
      low = Math.min(low, rv);
      high = Math.max(high, rv);
    }
  }
  return Number.isFinite(low) ? { dimensions: [...table.dimensions], low, high } : undefined;
}

type Sums = { before: number; after: number; denBefore: number; denAfter: number };

/** Adtributor over the leaves where `scope` is 1 (all when undefined), on every dimension not in `fixed`. */
export function adtributor(table: LeafTable, scope?: Uint8Array, fixed: Readonly<Record<string, string>> = {}, skip: readonly string[] = []): DimensionSet[] {
  const inScope = (i: number) => !scope || scope[i] === 1;
  const whole = table.sums(inScope);
  const scopeChange = table.contributionOf(whole);
  if (scopeChange === 0) return [];
  const out: DimensionSet[] = [];
  table.dimensions.forEach((dimension, j) => {
    if (dimension in fixed || skip.includes(dimension)) return;
    const values = table.values[j]!;
    const sums: Sums[] = values.map(() => ({ before: 0, after: 0, denBefore: 0, denAfter: 0 }));
    const seen = new Uint8Array(values.length);
    const codes = table.codes[j]!;
    for (let i = 0; i < table.size; i++) {
      if (!inScope(i)) continue;
      const s = sums[codes[i]!]!;
      seen[codes[i]!] = 1;
      s.before += table.before[i]!;
      s.after += table.after[i]!;
      if (table.denBefore) {
        s.denBefore += table.denBefore[i]!;
        s.denAfter += table.denAfter![i]!;
      }
    }
    const present = values.map((_, c) => c).filter((c) => seen[c]);
    if (present.length < 2) return;
    const rows = present.map((c) => {
      const s = sums[c]!;
      const contribution = table.contributionOf(s);
      const surprise = jsTerm(s.before / whole.before, s.after / whole.after)
        + (table.isRatio ? jsTerm(s.denBefore / whole.denBefore, s.denAfter / whole.denAfter) : 0);
      return { value: values[c]!, s, contribution, ep: contribution / scopeChange, surprise };
    }).sort((a, b) => b.surprise - a.surprise || b.ep - a.ep);
    const chosen: typeof rows = [];
    let explains = 0;
    for (const r of rows) {
      if (explains >= ADTRIBUTOR.minSetShare || chosen.length >= ADTRIBUTOR.maxSetSize) break;
      if (r.ep < ADTRIBUTOR.minValueShare) continue;
      chosen.push(r);
      explains += r.ep;
    }
    const baseShare = chosen.reduce((a, r) => a + r.s.before, 0) / whole.before;
    const explaining = explains >= ADTRIBUTOR.minSetShare && chosen.length < present.length && explains - baseShare >= ADTRIBUTOR.minConcentration;
    out.push({
      dimension,
      explains,
      surprise: chosen.reduce((a, r) => a + r.surprise, 0),
      explaining,
      segments: chosen.map((r) => ({
        labels: { ...fixed, [dimension]: r.value },
        before: r.s.before,
        after: r.s.after,
        value: table.valuesOf(r.s),
        contribution: r.contribution,
        share: shareOf(r.contribution, table.change),
        explanatoryPower: r.ep,
        surprise: r.surprise,
        children: [],
      })),
    });
  });
  return out.sort((a, b) => Number(b.explaining) - Number(a.explaining) || b.surprise - a.surprise || b.explains - a.explains);
}

function maskOf(table: LeafTable, labels: Readonly<Record<string, string>>): Uint8Array {
  const mask = new Uint8Array(table.size);
  const conditions = Object.entries(labels).map(([d, v]) => {
    const j = table.dimensions.indexOf(d);
    return [table.codes[j]!, table.values[j]!.indexOf(v)] as const;
  });
  for (let i = 0; i < table.size; i++) mask[i] = conditions.every(([codes, code]) => codes[i] === code) ? 1 : 0;
  return mask;
}

/** The second level inside a segment: a dimension whose set explains the segment's change from a minority of its comparison value. */
function drillDown(table: LeafTable, parent: Segment): Segment[] {
  const mask = maskOf(table, parent.labels);
  for (const d of adtributor(table, mask, parent.labels)) {
    if (!d.explaining) continue;
    const base = d.segments.reduce((a, s) => a + s.before, 0);
    if (parent.before > 0 && base / parent.before <= ADTRIBUTOR.maxChildBaseShare) return d.segments;
  }
  return [];
}

/**
 * Causes made disjoint, largest first: a leaf two causes share (the region's part of the product
 * that also fell) is counted once, in the larger; each later cause keeps only its part outside
 * the earlier ones. Causes then add up with the remainder to the change, without a negative
 * remainder balancing an overlap counted twice.
 */
function disjoint(table: LeafTable, causes: readonly Segment[]): Segment[] {
  const covered = new Uint8Array(table.size);
  const out: Segment[] = [];
  for (const cause of causes) {
    const match = Object.entries(cause.labels).map(([d, v]) => {
      const j = table.dimensions.indexOf(d);
      return [table.codes[j]!, table.values[j]!.indexOf(v)] as const;
    });
    const mine = new Uint8Array(table.size);
    let shared = 0;
    for (let i = 0; i < table.size; i++) {
      if (!match.every(([codes, code]) => codes[i] === code)) continue;
      if (covered[i]) shared++;
      else mine[i] = 1;
    }
    const sums = table.sums((i) => mine[i] === 1);
    if (sums.leaves === 0) continue;
    for (let i = 0; i < table.size; i++) covered[i] ||= mine[i]!;
    if (!shared) {
      out.push(cause);
      continue;
    }
    // It shares leaves with larger causes (or was found outside them): its part outside, said so.
    const overlapped = out.filter((earlier) => Object.entries(earlier.labels).every(([d, v]) => cause.labels[d] === undefined || cause.labels[d] === v)).map((earlier) => earlier.labels);
    const contribution = table.contributionOf(sums);
    out.push({ ...cause, before: sums.before, after: sums.after, value: table.valuesOf(sums), contribution, share: shareOf(contribution, table.change), ...(overlapped.length ? { outside: overlapped } : {}) });
  }
  return out.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
}

/** A second cause is looked for when the first leaves at least this share of the change outside it. */
export const SECOND_CAUSE = { minRest: 0.2 } as const;

/**
 * A cause in another dimension: the change outside the first cause's segments (so an overlap is
 * counted once, in the first), searched by Adtributor over the other dimensions. Two causes of
 * a fall in different labels (a product and a region) are both named; the second's
 * contribution is its part outside the first.
 */
function elsewhere(table: LeafTable, first: DimensionSet): Segment[] {
  const j = table.dimensions.indexOf(first.dimension);
  const chosen = new Set(first.segments.map((s) => table.values[j]!.indexOf(s.labels[first.dimension]!)));
  const outside = new Uint8Array(table.size);
  for (let i = 0; i < table.size; i++) outside[i] = chosen.has(table.codes[j]![i]!) ? 0 : 1;
  const rest = table.contributionOf(table.sums((i) => outside[i] === 1));
  if (!(Math.abs(rest) >= SECOND_CAUSE.minRest * Math.abs(table.change)) || Math.sign(rest) !== Math.sign(table.change)) return [];
  // Adtributor over the leaves outside: its segments' sums and contributions are their part outside already.
  const second = adtributor(table, outside, {}, [first.dimension])[0];
  return second?.explaining ? second.segments : [];
}

/** Attributes the change of a metric over its leaves (one per label combination, with comparison and actual values). */
export function attributeSegments(leaves: readonly SegmentLeaf[], options: { scale?: number } = {}): SegmentAttribution {
  const table = new LeafTable(leaves, options.scale ?? 1);
  const change = table.change;
  const dimensions = table.size > 1 && change !== 0 ? adtributor(table) : [];
  const best = dimensions[0]?.explaining ? dimensions[0] : undefined;
  let causes: Segment[] = [];
  let method: SegmentAttribution['method'] = 'none';
  if (best) {
    method = 'adtributor';
    for (const s of best.segments) {
      s.children = drillDown(table, s);
      if (s.children.length) method = 'adtributor+drill-down';
      causes.push(...(s.children.length ? s.children : [s]));
    }
    causes.push(...elsewhere(table, best));
  } else if (dimensions.length) {
    causes = searchCombinations(table);
    if (causes.length) method = 'combination-search';
  }
  causes.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  causes = disjoint(table, causes);
  const even = !causes.length && change !== 0 ? evenSpread(table) : undefined;
  return { change, method, dimensions, causes, remainder: change - causes.reduce((a, c) => a + c.contribution, 0), ...(even ? { even } : {}) };
}
