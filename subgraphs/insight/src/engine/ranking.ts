/**
 * A question that asks which part comes first ("which marina booked the most berths last
 * month?"): the subject's value for each value of one label over the period, ranked, with the
 * comparison period's beside it. The label is the one the question names (its name, or every
 * word of it), else the one two or more of whose values it names, else the one with the most
 * values; a label the question fixes (its scope) is not ranked; when the question names two or
 * more of its values ("compare north and south"), only those are compared. Only a metric that adds up over labels, or a ratio of two that do, can be split so.
 */
import { additiveLeaves, ratioScale } from './aggregate.js';
import { ratioParts, type MetricDef } from './catalog.js';
import type { Period } from './periods.js';
import type { SeriesBook } from './series.js';
import { stem, tokens } from './subject.js';

export interface RankRow {
  value: string;
  /** The subject's value for this part over the period, in its unit (a ratio: the part's own ratio). */
  amount: number;
  /** The same over the comparison period; undefined when the part had no data then. */
  before?: number;
  /** The part's share of the whole (additive metrics). */
  share?: number;
}

export interface Ranking {
  dimension: string;
  /** True when the question named the values compared (only those are ranked). */
  named?: boolean;
  order: 'most' | 'least';
  /** Ranked by amount, first the one the question asks for. */
  rows: RankRow[];
}

type Sums = { num: number; den: number; numBefore: number; denBefore: number; seen: boolean; seenBefore: boolean };

/** Whether every word of `name` is among the question's (stemmed) words. */
const namedIn = (words: ReadonlySet<string>, name: string) => {
  const parts = name.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return parts.length > 0 && parts.every((w) => words.has(stem(w)));
};

/**
 * The label to rank by: named in the question, else the one two or more of whose values it
 * names ("compare north and south"), else the one with the most values (at least two); and the
 * values the question names of it, when it names two or more (only those are compared).
 */
function dimensionOf(question: string, values: ReadonlyMap<string, Set<string>>): { dimension: string; only?: Set<string> } | undefined {
  const words = new Set(tokens(question).map((t) => t.word));
  const candidates = [...values].filter(([, v]) => v.size >= 2);
  const namedValues = (v: Set<string>) => new Set([...v].filter((x) => namedIn(words, x)));
  const chosen = candidates.find(([label]) => namedIn(words, label))
    ?? candidates.find(([, v]) => namedValues(v).size >= 2)
    ?? candidates.sort((a, b) => b[1].size - a[1].size || a[0].localeCompare(b[0]))[0];
  if (!chosen) return undefined;
  const only = namedValues(chosen[1]);
  return { dimension: chosen[0], ...(only.size >= 2 ? { only } : {}) };
}

export function rankParts(def: MetricDef, book: SeriesBook, period: Period, comparison: Period, question: string, order: 'most' | 'least', fixed: Readonly<Record<string, string>>): Ranking | undefined {
  const pairs = additiveLeaves(def, book);
  if (!pairs) return undefined;
  const values = new Map<string, Set<string>>();
  for (const { leaf } of pairs) for (const [label, value] of Object.entries(leaf.labels)) if (!(label in fixed)) (values.get(label) ?? values.set(label, new Set()).get(label)!).add(value);
  const chosen = dimensionOf(question, values);
  if (!chosen) return undefined;
  const { dimension, only } = chosen;
  const ratio = ratioParts(def.aggregation) !== undefined;
  const sums = new Map<string, Sums>();
  // Shares are of the whole, also when only the values the question names are compared.
  let total = 0;
  for (const { leaf, denominator: den } of pairs) {
    const value = leaf.labels[dimension];
    if (value === undefined) continue;
    const after = leaf.sumBetween(period.from, period.to);
    total += after;
    if (only && !only.has(value)) continue;
    const s = sums.get(value) ?? sums.set(value, { num: 0, den: 0, numBefore: 0, denBefore: 0, seen: false, seenBefore: false }).get(value)!;
    s.num += after;
    s.numBefore += leaf.sumBetween(comparison.from, comparison.to);
    s.seen ||= leaf.hasBetween(period.from, period.to);
    s.seenBefore ||= leaf.hasBetween(comparison.from, comparison.to);
    if (den) {
      s.den += den.sumBetween(period.from, period.to);
      s.denBefore += den.sumBetween(comparison.from, comparison.to);
    }
  }
  const scale = ratioScale(def);
  const amountOf = (num: number, den: number) => (ratio ? (den > 0 ? (num / den) * scale : Number.NaN) : num);
  const rows: RankRow[] = [...sums]
    .filter(([, s]) => s.seen && Number.isFinite(amountOf(s.num, s.den)))
    .map(([value, s]) => ({
      value,
      amount: amountOf(s.num, s.den),
      ...(s.seenBefore && Number.isFinite(amountOf(s.numBefore, s.denBefore)) ? { before: amountOf(s.numBefore, s.denBefore) } : {}),
      ...(!ratio && total > 0 ? { share: s.num / total } : {}),
    }))
    .sort((a, b) => (order === 'most' ? b.amount - a.amount : a.amount - b.amount) || a.value.localeCompare(b.value));
  return rows.length >= 2 ? { dimension, ...(only ? { named: true } : {}), order, rows } : undefined;
}
