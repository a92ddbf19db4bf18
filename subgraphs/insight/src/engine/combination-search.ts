/**
 * When no single label dimension explains a change, look for the combinations of labels that do,
 * in the manner of Squeeze (Li et al., ISSRE 2019): every leaf gets a deviation
 * d = (F − A)/(F + A) (comparison F, actual A; for a ratio, of the leaf's ratio); leaves that
 * deviate beyond the noise (|d − median| > max(0.05, 3·1.4826·MAD)) are grouped where their
 * deviations cluster (a gap wider than that threshold starts a new group). For each group, the
 * cuboids (sets of 1, then 2, then 3 dimensions) are searched for the fewest attribute
 * combinations that each hold mostly abnormal leaves of the group (≥ 70 % of their leaves) and
 * together cover ≥ 80 % of the group's change (and any other such combination holding ≥ 5 % of
 * it); the first layer with an answer wins (the simplest explanation). Linear in the number of leaves per cuboid.
 */
import type { LeafTable } from './leaf-table.js';
import { shareOf } from './remainder.js';
import type { Segment } from './segment.js';

export const SQUEEZE = { minDeviation: 0.05, purity: 0.7, coverage: 0.8, maxLayer: 3, maxCombinations: 8, maxGroupShare: 0.5, minPart: 0.05 } as const;

function median(sorted: Float64Array | number[]): number {
  const n = sorted.length;
  if (n === 0) return 0;
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

function deviations(table: LeafTable): Float64Array {
  const dev = new Float64Array(table.size);
  for (let i = 0; i < table.size; i++) {
    let f = table.before[i]!;
    let a = table.after[i]!;
    if (table.denBefore) {
      f = table.denBefore[i]! > 0 ? f / table.denBefore[i]! : 0;
      a = table.denAfter![i]! > 0 ? a / table.denAfter![i]! : 0;
    }
    dev[i] = f + a !== 0 ? (f - a) / (f + a) : 0;
  }
  return dev;
}

/** Groups of abnormal leaves (indices), by clusters of deviation. */
export function abnormalGroups(dev: Float64Array): number[][] {
  const sorted = Float64Array.from(dev).sort();
  const center = median(sorted);
  const spread = Float64Array.from(dev, (d) => Math.abs(d - center)).sort();
  const threshold = Math.max(SQUEEZE.minDeviation, 3 * 1.4826 * median(spread));
  const abnormal: number[] = [];
  for (let i = 0; i < dev.length; i++) if (Math.abs(dev[i]! - center) > threshold) abnormal.push(i);
  abnormal.sort((a, b) => dev[a]! - dev[b]!);
  const groups: number[][] = [];
  let current: number[] = [];
  for (const i of abnormal) {
    const prev = current[current.length - 1];
    if (prev !== undefined && (dev[i]! - dev[prev]! > threshold || Math.sign(dev[i]! - center) !== Math.sign(dev[prev]! - center))) {
      groups.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length) groups.push(current);
  return groups;
}

function cuboids(n: number, k: number): number[][] {
  const out: number[][] = [];
  const pick = (start: number, acc: number[]) => {
    if (acc.length === k) {
      out.push([...acc]);
      return;
    }
    for (let j = start; j < n; j++) pick(j + 1, [...acc, j]);
  };
  pick(0, []);
  return out;
}

interface Bucket {
  leaves: number;
  inGroup: number;
  weight: number;
  example: number;
}

/** The fewest combinations in one cuboid covering the group, or undefined. */
function coverGroup(table: LeafTable, dims: number[], inGroup: Uint8Array, weight: Float64Array, groupWeight: number): { keys: number[]; coverage: number; example: Map<number, number> } | undefined {
  const radix = dims.map((j) => table.values[j]!.length);
  const buckets = new Map<number, Bucket>();
  for (let i = 0; i < table.size; i++) {
    let key = 0;
    for (let x = 0; x < dims.length; x++) key = key * radix[x]! + table.codes[dims[x]!]![i]!;
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = { leaves: 0, inGroup: 0, weight: 0, example: i }));
    b.leaves++;
    if (inGroup[i]) {
      b.inGroup++;
      b.weight += weight[i]!;
    }
  }
  const candidates = [...buckets].filter(([, b]) => b.inGroup > 0 && b.inGroup / b.leaves >= SQUEEZE.purity).sort((a, b) => b[1].weight - a[1].weight);
  const keys: number[] = [];
  const example = new Map<number, number>();
  let covered = 0;
  for (const [key, b] of candidates) {
    if (keys.length >= SQUEEZE.maxCombinations) break;
    // Past the coverage needed, only combinations carrying a real part of the group are added.
    if (covered >= SQUEEZE.coverage * groupWeight && b.weight < SQUEEZE.minPart * groupWeight) break;
    keys.push(key);
    example.set(key, b.example);
    covered += b.weight;
  }
  return covered >= SQUEEZE.coverage * groupWeight ? { keys, coverage: covered / groupWeight, example } : undefined;
}

/** Attribute combinations (as segments) that explain the change, largest contribution first; empty when none do. */
export function searchCombinations(table: LeafTable): Segment[] {
  const dev = deviations(table);
  const weight = new Float64Array(table.size);
  for (let i = 0; i < table.size; i++) weight[i] = Math.abs(table.after[i]! - table.before[i]!);
  const totalWeight = weight.reduce((a, b) => a + b, 0);
  const out: Segment[] = [];
  for (const group of abnormalGroups(dev)) {
    const inGroup = new Uint8Array(table.size);
    let groupWeight = 0;
    for (const i of group) {
      inGroup[i] = 1;
      groupWeight += weight[i]!;
    }
    // Noise, or a change everywhere (most leaves deviate alike): no combination to name.
    if (groupWeight < 0.05 * totalWeight || group.length > SQUEEZE.maxGroupShare * table.size) continue;
    let best: { dims: number[]; keys: number[]; coverage: number; example: Map<number, number> } | undefined;
    for (let layer = 1; layer <= Math.min(SQUEEZE.maxLayer, table.dimensions.length) && !best; layer++) {
      for (const dims of cuboids(table.dimensions.length, layer)) {
        const found = coverGroup(table, dims, inGroup, weight, groupWeight);
        if (found && (!best || found.keys.length < best.keys.length || (found.keys.length === best.keys.length && found.coverage > best.coverage))) best = { dims, ...found };
      }
    }
    if (!best) continue;
    for (const key of best.keys) {
      const leaf = best.example.get(key)!;
      const labels: Record<string, string> = {};
      for (const j of best.dims) labels[table.dimensions[j]!] = table.values[j]![table.codes[j]![leaf]!]!;
      const match = best.dims.map((j) => [table.codes[j]!, table.codes[j]![leaf]!] as const);
      const s = table.sums((i) => match.every(([codes, code]) => codes[i] === code));
      const contribution = table.contributionOf(s);
      out.push({
        labels,
        before: s.before,
        after: s.after,
        value: table.valuesOf(s),
        contribution,
        share: shareOf(contribution, table.change),
        explanatoryPower: shareOf(contribution, table.change),
        surprise: table.surpriseOf(s),
        children: [],
      });
    }
  }
  return out.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
}
