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
  | { kind: 'unknown'; /** Every metric of the catalog, sorted. */ available: string[]; /** The words the question asked about, when it names something. */ asked?: string; /** The metrics closest to them by name and declared synonyms, closest first. */ closest: string[] };

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
  if (!best) {
    const asked = askedFor(text);
    return { kind: 'unknown', available: defs.map((d) => d.name).sort(), ...(asked ? { asked } : {}), closest: asked ? closestMetrics(asked, defs) : [] };
  }
  return { kind: 'metric', name: best.name, how: best.how, others };
}

/**
 * Words that never name a metric in a question: asking, comparing, moving, time and quantity
 * words. What is left, the first run of other words, is what the question asked about.
 */
const NOT_A_NAME = new Set(`why what how when where which who whom whose did does do done is are was were be been being has have had
the a an our my your their its we us you they i me it this that these those there here of for in on at to by from with and or
vs versus compared compare comparing against than so as about over under into between during per
drop dropped dropping drops fall fell falls fallen falling rise rose risen rises rising increase increased increases decrease
decreased decreases grow grew grown grows growth decline declined declines go went gone goes up down change changed changes move
moved moves jump jumped spike spiked dip dipped plunge plunged surge surged shrink shrank climb climbed slip slipped low lower
lowest high higher highest more less much many most least better worse best worst
yesterday today tomorrow now recently recent week weeks weekly month months monthly year years yearly quarter day days daily
last this next previous past since before after ago current so far
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december
forecast forecasts predict prediction expect expected simulate simulation if raise cut lower propose proposal suggest explain show tell
please can could would should will happen happened happening going doing look looking see get got give
number amount total level value percent`.split(/\s+/));

/** The first run of words in `text` that are not question, movement, time or quantity words; undefined when there is none. */
export function askedFor(text: string): string | undefined {
  const words = [...text.matchAll(/[\p{L}\p{N}_.-]+/gu)].map((m) => m[0].replace(/^[.-]+|[.-]+$/g, ''));
  const run: string[] = [];
  for (const word of words) {
    const plain = word.toLowerCase();
    const skip = !plain || NOT_A_NAME.has(plain) || NOT_A_NAME.has(stem(plain)) || /^[\d.,%-]+$/.test(plain);
    if (skip) {
      if (run.length) break;
      continue;
    }
    run.push(word);
    if (run.length === 4) break;
  }
  return run.length ? run.join(' ') : undefined;
}

/** Character trigrams of a phrase, words padded, separators as spaces. */
function trigrams(phrase: string): Set<string> {
  const out = new Set<string>();
  for (const word of phrase.toLowerCase().split(/[\s_.-]+/).filter(Boolean).map(stem)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** Dice's coefficient of two trigram sets. */
function dice(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** How close a metric's meaning is to the words asked: one of them in its declared words (synonyms, display name, description). */
const MEANING_SCORE = 0.5;

/** The stemmed words of `text` that can carry a meaning (three letters or more, not weak). */
function meaningWords(text: string): string[] {
  return tokens(text).map((t) => t.word).filter((w) => w.length >= 3 && !WEAK_TOKENS.has(w));
}

/**
 * The words a metric's catalog entry uses of it: its synonyms, display name and description.
 * What a metric means is the tenant's to declare (ANALYSIS.md: the catalog), so no vocabulary of
 * the planner's own widens it.
 */
function declaredWords(d: MetricDef): Set<string> {
  return new Set(meaningWords([...d.synonyms, d.display?.name ?? '', d.description ?? ''].join(' ')));
}

/**
 * Up to `n` metrics that come closest to `asked`, closest first: by letters (character
 * trigrams of the name, the synonyms, the display name) or, below an exact spelling, by meaning
 * (a word asked that the catalog entry's synonyms, display name or description use); none that
 * share nothing.
 */
export function closestMetrics(asked: string, defs: readonly MetricDef[], n = 3): string[] {
  const want = trigrams(asked);
  const meant = meaningWords(asked);
  return defs
    .map((d) => {
      const phrases = [d.name, ...d.synonyms, ...(d.display?.name ? [d.display.name] : [])];
      const letters = Math.max(...phrases.map((p) => dice(want, trigrams(p))));
      const theirs = declaredWords(d);
      const meaning = meant.some((w) => theirs.has(w)) ? MEANING_SCORE : 0;
      return { name: d.name, score: Math.max(letters, meaning) };
    })
    .filter((m) => m.score >= 0.3)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, n)
    .map((m) => m.name);
}
