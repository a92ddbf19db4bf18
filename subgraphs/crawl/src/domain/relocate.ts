/// <reference types="jsdom" />
// Similarity of two element fingerprints, and relocation of a stored element on a changed page by
// scoring every candidate element (after Scrapling's adaptive relocation).
//
// similarity(a, b) is a weighted mean of per-property similarities, each in [0, 1]. Two weight
// profiles: SIMILARITY_WEIGHTS (the default; used for list rows, whose identity is their place
// and inner structure) and FIELD_WEIGHTS (fields within a row: all leaves of a row share path,
// parent and "no children", so naming and content shape must decide).
//
//   property     rows  fields  per-property similarity
//   tag          0.10   0.15   1 when equal, else 0
//   classes      0.15   0.20   Jaccard of the class sets
//   attributes   0.05   0.05   Jaccard of {name} ∪ {name=value for stable values} (fingerprint.ts)
//   text         0.15   0.25   mean of own-text and whole-text shape similarity; a shape similarity
//                              is 0.25·length ratio + 0.25·word-count ratio + 0.5·pattern
//                              similarity (token sequence ratio); two empty texts are equal,
//                              empty vs non-empty scores 0
//   path         0.15   0.10   ancestor tag path sequence ratio 2·LCS/(|a|+|b|) (an added or
//                              removed wrapper costs little, another branch of the page a lot)
//   parent       0.10   0.10   0.5·same tag + 0.5·Jaccard of the parent's classes
//   siblings     0.10   0.10   0.2·same previous tag + 0.2·same next tag + 0.4·Jaccard of sibling
//                              tag sets + 0.2·position similarity (index and count among
//                              same-tag siblings)
//   children     0.20   0.05   0.5·child tag sequence ratio + 0.5·Jaccard of descendant tag sets
//
// Jaccard of two empty sets and the ratio of two empty sequences are 1 (both lack the property,
// which is a resemblance). For rows, structure (path, parent, siblings, children: 0.55) outweighs
// naming (tag, classes, attributes: 0.30), so renamed classes do not lose a row while navigation
// items (other children, other branch) stay far below it.

import { fingerprintElement, type ElementFingerprint, type TextShape } from './fingerprint.js';

export const SIMILARITY_WEIGHTS = {
  tag: 0.1,
  classes: 0.15,
  attributes: 0.05,
  text: 0.15,
  path: 0.15,
  parent: 0.1,
  siblings: 0.1,
  children: 0.2,
} as const;

/**
 * Weights for fields relocated within a list row. There, path, parent and children are shared by
 * most leaf elements of the row (they say little), so naming and content shape decide.
 */
export const FIELD_WEIGHTS: SimilarityWeights = {
  tag: 0.15,
  classes: 0.2,
  attributes: 0.05,
  text: 0.25,
  path: 0.1,
  parent: 0.1,
  siblings: 0.1,
  children: 0.05,
};

export type SimilarityProperty = keyof typeof SIMILARITY_WEIGHTS;
export type SimilarityWeights = Record<SimilarityProperty, number>;

/** Elements never considered as candidates (nor their descendants, for head/template). */
const SKIPPED_TAGS = new Set(['head', 'script', 'style', 'noscript', 'template', 'link', 'meta', 'title', 'base']);

export function jaccard<T>(a: Iterable<T>, b: Iterable<T>): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 1;
  let common = 0;
  for (const x of sa) if (sb.has(x)) common += 1;
  return common / (sa.size + sb.size - common);
}

function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Sequence ratio 2·LCS/(|a|+|b|), 1 for two empty sequences. */
export function sequenceRatio<T>(a: readonly T[], b: readonly T[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  return (2 * lcsLength(a, b)) / (a.length + b.length);
}

function ratio(x: number, y: number): number {
  if (x === y) return 1;
  return Math.min(x, y) / Math.max(x, y);
}

export function textShapeSimilarity(a: TextShape, b: TextShape): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const pattern = sequenceRatio(a.pattern.split(' '), b.pattern.split(' '));
  return 0.25 * ratio(a.length, b.length) + 0.25 * ratio(a.words, b.words) + 0.5 * pattern;
}

function attributeTokens(attributes: Record<string, string | null>): string[] {
  const tokens: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    tokens.push(name);
    if (value !== null) tokens.push(`${name}=${value}`);
  }
  return tokens;
}

function positionSimilarity(a: ElementFingerprint['position'], b: ElementFingerprint['position']): number {
  const index = a.index === b.index ? 1 : 1 / (1 + Math.abs(a.index - b.index));
  return 0.5 * index + 0.5 * ratio(Math.max(a.of, 1), Math.max(b.of, 1));
}

/** Per-property similarities of two fingerprints (each in [0, 1]). */
export function similarityBreakdown(a: ElementFingerprint, b: ElementFingerprint): Record<SimilarityProperty, number> {
  const parent =
    a.parent === null || b.parent === null
      ? a.parent === b.parent
        ? 1
        : 0
      : 0.5 * (a.parent.tag === b.parent.tag ? 1 : 0) + 0.5 * jaccard(a.parent.classes, b.parent.classes);
  return {
    tag: a.tag === b.tag ? 1 : 0,
    classes: jaccard(a.classes, b.classes),
    attributes: jaccard(attributeTokens(a.attributes), attributeTokens(b.attributes)),
    text: 0.5 * textShapeSimilarity(a.ownText, b.ownText) + 0.5 * textShapeSimilarity(a.text, b.text),
    path: sequenceRatio(a.path, b.path),
    parent,
    siblings:
      0.2 * (a.siblings.prev === b.siblings.prev ? 1 : 0) +
      0.2 * (a.siblings.next === b.siblings.next ? 1 : 0) +
      0.4 * jaccard(a.siblings.tags, b.siblings.tags) +
      0.2 * positionSimilarity(a.position, b.position),
    children: 0.5 * sequenceRatio(a.children, b.children) + 0.5 * jaccard(a.descendants, b.descendants),
  };
}

/** Weighted similarity of two fingerprints in [0, 1] (default weights: SIMILARITY_WEIGHTS). */
export function similarity(
  a: ElementFingerprint,
  b: ElementFingerprint,
  weights: SimilarityWeights = SIMILARITY_WEIGHTS,
): number {
  const parts = similarityBreakdown(a, b);
  let sum = 0;
  let total = 0;
  for (const key of Object.keys(SIMILARITY_WEIGHTS) as SimilarityProperty[]) {
    sum += weights[key] * parts[key];
    total += weights[key];
  }
  return total > 0 ? Math.min(1, Math.max(0, sum / total)) : 0;
}

/** Best similarity of a fingerprint to any of the stored samples (0 when there are none). */
export function similarityToAny(
  fp: ElementFingerprint,
  stored: ElementFingerprint | readonly ElementFingerprint[],
  weights: SimilarityWeights = SIMILARITY_WEIGHTS,
): number {
  const samples = Array.isArray(stored) ? (stored as readonly ElementFingerprint[]) : [stored as ElementFingerprint];
  let best = 0;
  for (const sample of samples) best = Math.max(best, similarity(fp, sample, weights));
  return best;
}

export interface RelocateOptions {
  /**
   * Search only `within` and its descendants, with fingerprints taken relative to `within` (that is
   * how field fingerprints are stored: relative to their list row). Default: the whole <body>.
   */
  within?: Element;
  /** Minimum score for a candidate to be returned. */
  threshold: number;
  /** Extra filter: candidates for which it returns false are not scored. */
  accept?: (el: Element) => boolean;
  /** Weights of the similarity; default SIMILARITY_WEIGHTS (FIELD_WEIGHTS for fields in a row). */
  weights?: SimilarityWeights;
}

export interface ScoredElement {
  element: Element;
  score: number;
}

function candidatesOf(document: Document, within: Element | undefined): Element[] {
  const root = within ?? document.body ?? document.documentElement;
  if (!root) return [];
  const out: Element[] = [];
  const walk = (el: Element): void => {
    if (SKIPPED_TAGS.has(el.localName)) return;
    out.push(el);
    for (const child of Array.from(el.children)) walk(child);
  };
  walk(root);
  return out;
}

/**
 * Every candidate scored against the stored fingerprint(s) (best sample), best first; ties keep
 * document order.
 */
export function scoreCandidates(
  document: Document,
  stored: ElementFingerprint | readonly ElementFingerprint[],
  options: Omit<RelocateOptions, 'threshold'> = {},
): ScoredElement[] {
  const scored: ScoredElement[] = [];
  for (const element of candidatesOf(document, options.within)) {
    if (options.accept && !options.accept(element)) continue;
    const fp = fingerprintElement(element, options.within ? { root: options.within } : {});
    scored.push({ element, score: similarityToAny(fp, stored, options.weights) });
  }
  return scored.sort((x, y) => y.score - x.score);
}

/**
 * The element that best matches the stored fingerprint(s), when its score reaches the threshold;
 * null otherwise (nothing on the page looks like it).
 */
export function relocate(
  document: Document,
  stored: ElementFingerprint | readonly ElementFingerprint[],
  options: RelocateOptions,
): ScoredElement | null {
  const best = scoreCandidates(document, stored, options)[0];
  return best && best.score >= options.threshold ? best : null;
}
