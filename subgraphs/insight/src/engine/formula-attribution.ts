/**
 * How much each part of a formula contributed to a change.
 *
 * - Product Y = X₁·X₂·…: log-mean Divisia index (LMDI-I, Ang 2004),
 *   Cᵢ = L(Y₁, Y₀)·ln(Xᵢ₁/Xᵢ₀) with L(a, b) = (a − b)/ln(a/b). The contributions add up exactly
 *   to Y₁ − Y₀ and do not depend on the order of the factors.
 * - Sum Y = X₁ + X₂ + …: each part's own difference.
 * - Ratio Y = N/D: the numerator contributes L·ln(N₁/N₀), the denominator −L·ln(D₁/D₀).
 *
 * When the subject's observed values are given and the factors do not multiply (or add) up to
 * them exactly (a factor averaged rather than derived), the gap is returned as `remainder`, so
 * contributions plus remainder always equal the observed change.
 */

import { shareOf } from './remainder.js';

export interface Part {
  name: string;
  before: number;
  after: number;
}

export interface Contribution {
  name: string;
  /** In the subject's unit; positive pushes the subject up. */
  contribution: number;
  /** contribution ÷ total change (0 when the change is 0). */
  share: number;
}

export interface FormulaAttribution {
  /** Subject after − before. */
  change: number;
  contributions: Contribution[];
  /** change − Σ contributions. */
  remainder: number;
}

/**
 * Logarithmic mean L(a, b) = (a − b)/ln(a/b), with L(a, a) = a. Both must be positive. Within a
 * factor 2 of each other, a − b is exact and the logarithm is taken as log1p((a − b)/b): for a
 * and b a few parts in 10⁸ apart, a/b rounded to a double keeps only about 8 digits of its
 * distance from 1, and ln(a/b) with it (an LMDI weight then moved in the ninth digit with the
 * order the factors were multiplied in). Further apart, ln(a/b) is far from 0 and exact enough.
 */
export function logMean(a: number, b: number): number {
  if (a === b) return a;
  const near = a >= b / 2 && a <= 2 * b;
  return (a - b) / (near ? Math.log1p((a - b) / b) : Math.log(a / b));
}

function finish(change: number, parts: { name: string; contribution: number }[]): FormulaAttribution {
  const total = parts.reduce((s, p) => s + p.contribution, 0);
  return {
    change,
    contributions: parts.map((p) => ({ ...p, share: shareOf(p.contribution, change) })),
    remainder: change - total,
  };
}

function positive(parts: readonly Part[], what: string): void {
  for (const p of parts) {
    if (!(p.before > 0 && p.after > 0)) throw new RangeError(`${what} needs positive values; ${p.name} went from ${p.before} to ${p.after}`);
  }
}

/** LMDI split of a product's change. `subject` defaults to the product of the factors. */
export function productAttribution(factors: readonly Part[], subject?: { before: number; after: number }): FormulaAttribution {
  positive(factors, 'a product decomposition');
  const y0 = subject?.before ?? factors.reduce((p, f) => p * f.before, 1);
  const y1 = subject?.after ?? factors.reduce((p, f) => p * f.after, 1);
  positive([{ name: 'the subject', before: y0, after: y1 }], 'a product decomposition');
  const weight = logMean(y1, y0);
  return finish(y1 - y0, factors.map((f) => ({ name: f.name, contribution: weight * Math.log(f.after / f.before) })));
}

/** Differences of a sum's parts. `subject` defaults to the sum of the parts. */
export function sumAttribution(parts: readonly Part[], subject?: { before: number; after: number }): FormulaAttribution {
  const y0 = subject?.before ?? parts.reduce((s, p) => s + p.before, 0);
  const y1 = subject?.after ?? parts.reduce((s, p) => s + p.after, 0);
  return finish(y1 - y0, parts.map((p) => ({ name: p.name, contribution: p.after - p.before })));
}

/** A ratio's change split into its numerator's and its denominator's parts (log-mean weights). */
export function ratioAttribution(numerator: Part, denominator: Part, subject?: { before: number; after: number }): FormulaAttribution {
  positive([numerator, denominator], 'a ratio decomposition');
  const y0 = subject?.before ?? numerator.before / denominator.before;
  const y1 = subject?.after ?? numerator.after / denominator.after;
  const weight = logMean(y1, y0);
  return finish(y1 - y0, [
    { name: numerator.name, contribution: weight * Math.log(numerator.after / numerator.before) },
    { name: denominator.name, contribution: -weight * Math.log(denominator.after / denominator.before) },
  ]);
}
