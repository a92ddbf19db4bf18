/**
 * Where a change happened, through the metric's labels. The causes are the elements `localize`
 * finds (the smallest set of disjoint label combinations whose ripple explains how the leaves
 * moved); beside them, each label alone is split the way Adtributor (Bhagwan et al., NSDI 2014)
 * does, for the reader who asks how the change falls by one label.
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
import { localize } from './localize.js';
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
} as const;

/** An element the localizer found is named as a cause when it holds at least this share of the change. */
export const CAUSE = { minShare: 0.05 } as const;

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
  /** `localization` when causes were found (localize.ts); findings stored before it say `adtributor`, `adtributor+drill-down` or `combination-search`. */
  method: 'localization' | 'adtributor' | 'adtributor+drill-down' | 'combination-search' | 'none';
  /** Every dimension's Adtributor set, explaining ones first by surprise: how each label alone splits the change (the causes come from `localize`). */
  dimensions: DimensionSet[];
  /** The elements that explain the change (localize.ts), disjoint, largest contribution first. */
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

/** Attributes the change of a metric over its leaves (one per label combination, with comparison and actual values). */
export function attributeSegments(leaves: readonly SegmentLeaf[], options: { scale?: number } = {}): SegmentAttribution {
  const table = new LeafTable(leaves, options.scale ?? 1);
  const change = table.change;
  const moved = table.size > 1 && change !== 0;
  const dimensions = moved ? adtributor(table) : [];
  // Every element that moved out of its noise, of which the causes are those holding a real part of the change.
  const found = (moved ? localize(table).elements : []).filter((e) => Math.abs(table.contributionOf(table.sums((i) => e.mine[i] === 1))) >= CAUSE.minShare * Math.abs(change));
  // Each element over its own leaves (outside those named before it), as a segment of the change.
  const causes = found.map((e, k): Segment => {
    const sums = table.sums((i) => e.mine[i] === 1);
    const contribution = table.contributionOf(sums);
    // Earlier elements it shares leaves with (they agree on every label both name).
    const outside = found.slice(0, k).filter((earlier) => Object.entries(earlier.labels).every(([d, v]) => e.labels[d] === undefined || e.labels[d] === v)).map((earlier) => earlier.labels);
    return {
      labels: e.labels,
      before: sums.before,
      after: sums.after,
      value: table.valuesOf(sums),
      contribution,
      share: shareOf(contribution, change),
      explanatoryPower: shareOf(contribution, change),
      surprise: table.surpriseOf(sums),
      children: [],
      ...(outside.length ? { outside } : {}),
    };
  }).sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  const even = !causes.length && change !== 0 ? evenSpread(table) : undefined;
  return { change, method: causes.length ? 'localization' : 'none', dimensions, causes, remainder: change - causes.reduce((a, c) => a + c.contribution, 0), ...(even ? { even } : {}) };
}
