/**
 * Which catalog metric the question is about: by exact name (or the name with spaces for its
 * separators), then a declared synonym, then tokens (names split on `_ . -` and spaces, plurals
 * stemmed). Nothing is invented: when nothing matches, the answer is `unknown` with the list of
 * what exists.
 */
import type { MetricDef } from './catalog.js';

export type MatchHow = 'exact' | 'synonym' | 'token';

export interface MetricMatch {
  name: string;
  how: MatchHow;
  /** 3 exact, 2 synonym, (0, 1] the share of the name's tokens found in the text. */
  score: number;
  /** Position of the first matching word in the text (earlier wins a tie). */
  at: number;
}

export type SubjectResolution =
  | { kind: 'metric'; name: string; /** `lever-target`: a bare what-if, answered for the metric that declares the lever as a driver. */ how: MatchHow | 'lever-target'; /** Other metrics that matched too, best first. */ others: MetricMatch[] }
  | { kind: 'unknown'; /** Every metric of the catalog, sorted. */ available: string[] };

/** Words that say nothing about which metric is meant when they are all a name shares with the text. */
const WEAK_TOKENS = new Set(['total', 'count', 'rate', 'ratio', 'daily', 'per', 'avg', 'sum', 'number', 'num', 'the', 'and', 'of', 'by', 'in', 'on', 'to', 'a', 'is', 'share', 'value']);

export function stem(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 4 && /(ss|x|z|ch|sh)es$/.test(token)) return token.slice(0, -2);
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss') && !token.endsWith('us')) return token.slice(0, -1);
  return token;
}

export interface Token {
  word: string;
  at: number;
}

/** Lower-case stemmed words with their positions, split on anything that is not a letter or digit. */
export function tokens(text: string): Token[] {
  return [...text.toLowerCase().matchAll(/[a-z0-9]+/g)].map((m) => ({ word: stem(m[0]), at: m.index }));
}

function phraseAt(text: Token[], phrase: string[]): number {
  outer: for (let i = 0; i + phrase.length <= text.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (text[i + j]!.word !== phrase[j]) continue outer;
    return text[i]!.at;
  }
  return -1;
}

function exactAt(text: string, name: string): number {
  const lower = text.toLowerCase();
  const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const raw = new RegExp(`(?<![a-z0-9_.])${escaped}(?![a-z0-9_])`).exec(lower);
  if (raw) return raw.index;
  const spaced = name.toLowerCase().split(/[_.-]+/).filter(Boolean).join(' ');
  if (spaced.includes(' ')) {
    const m = new RegExp(`(?<![a-z0-9])${spaced.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9])`).exec(lower);
    if (m) return m.index;
  }
  return -1;
}

function matchOne(text: string, words: Token[], def: MetricDef): MetricMatch | undefined {
  const exact = exactAt(text, def.name);
  if (exact >= 0) return { name: def.name, how: 'exact', score: 3, at: exact };
  for (const synonym of def.synonyms) {
    const at = phraseAt(words, tokens(synonym).map((t) => t.word));
    if (at >= 0) return { name: def.name, how: 'synonym', score: 2, at };
  }
  const nameTokens = tokens(def.name).map((t) => t.word);
  const found = nameTokens.map((w) => words.find((t) => t.word === w));
  const strong = nameTokens.filter((w, i) => found[i] && !WEAK_TOKENS.has(w) && w.length >= 2);
  if (strong.length === 0) return undefined;
  const hits = found.filter((f): f is Token => f !== undefined);
  return { name: def.name, how: 'token', score: hits.length / nameTokens.length, at: Math.min(...hits.map((h) => h.at)) };
}

/** Every metric the text names, strongest first (exact, synonym, then token share), earliest first on a tie. */
export function findMetrics(text: string, catalog: Iterable<MetricDef>): MetricMatch[] {
  const words = tokens(text);
  const matches: MetricMatch[] = [];
  for (const def of catalog) {
    const m = matchOne(text, words, def);
    if (m) matches.push(m);
  }
  return matches.sort((a, b) => b.score - a.score || a.at - b.at || a.name.localeCompare(b.name));
}

/** The metric the text is about, or `unknown`. */
export function resolveSubject(text: string, catalog: Iterable<MetricDef>): SubjectResolution {
  const defs = [...catalog];
  const [best, ...others] = findMetrics(text, defs);
  if (!best) return { kind: 'unknown', available: defs.map((d) => d.name).sort() };
  return { kind: 'metric', name: best.name, how: best.how, others };
}
