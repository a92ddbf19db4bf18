/**
 * The offline, deterministic text embedding used by the built-in `local` provider (and reusable
 * by any service that needs vectors without a model, e.g. the crawler).
 *
 * Method (lexical feature hashing, no model, no randomness):
 *  1. The text is Unicode-normalised (NFKC), lower-cased and split into words: maximal runs of
 *     letters and digits (`\p{L}\p{N}` plus combining marks). Common English function words
 *     (`EMBEDDING_STOPWORDS`: "the", "of", "and", ...) are dropped so that they do not make unrelated
 *     texts look alike, unless the text has nothing else (then they are kept, so "to be or not to
 *     be" still gets a vector).
 *  2. Features, each counted by term frequency `tf`:
 *     - word unigrams                                weight 1.0
 *     - word bigrams (adjacent remaining words)      weight 0.5
 *     - character trigrams inside each word, with `<` and `>` boundary markers
 *       (`cat` → `<ca`, `cat`, `at>`; a one-letter word gives `<a>`)   weight 0.25
 *     The trigrams let inflected forms (`analyse`/`analysis`) overlap; the lower weights keep the
 *     many trigrams from drowning the whole-word signal.
 *  3. Each feature (its kind prefix + text, UTF-8) is hashed with 32-bit FNV-1a; bucket =
 *     hash mod `dims`, sign = +1 or -1 from bit 31 of the same hash (signed hashing, so collisions
 *     cancel out on average instead of piling up).
 *  4. The bucket receives sign × weight × (1 + ln tf) (sublinear term frequency).
 *  5. The vector is L2-normalised. A text without any word (empty, punctuation only) gives the
 *     zero vector, whose cosine similarity with anything is 0 by convention.
 *
 * Cosine similarity therefore measures shared vocabulary (with some tolerance for morphology and
 * word order via trigrams and bigrams); it knows nothing about synonyms.
 */

export const LOCAL_EMBEDDING_DIMENSIONS = 384;

const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.25;

const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const utf8 = new TextEncoder();

/** Function words left out of the embedding (see the module comment). */
export const EMBEDDING_STOPWORDS: ReadonlySet<string> = new Set(
  `a an and are as at be been but by can could did do does for from had has have he her his i if in into is it its
  me my no not of on or our she so than that the their them then there these they this those to too was we were what
  when where which who whom why will with would you your`.split(/\s+/),
);

/** Lower-cased words of `text` (letters, marks and digits), in order. */
export function embeddingWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/** 32-bit FNV-1a over the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of utf8.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The deterministic lexical embedding of `text` (see the module comment), L2-normalised. */
export function localEmbedding(text: string, dims: number = LOCAL_EMBEDDING_DIMENSIONS): number[] {
  if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
  const all = embeddingWords(text);
  const content = all.filter((w) => !EMBEDDING_STOPWORDS.has(w));
  const words = content.length > 0 ? content : all;
  const vector = new Array<number>(dims).fill(0);
  if (words.length === 0) return vector;

  const features = new Map<string, { tf: number; weight: number }>();
  const add = (key: string, weight: number): void => {
    const entry = features.get(key);
    if (entry) entry.tf++;
    else features.set(key, { tf: 1, weight });
  };
  words.forEach((word, i) => {
    add(`w:${word}`, UNIGRAM_WEIGHT);
    if (i > 0) add(`b:${words[i - 1]} ${word}`, BIGRAM_WEIGHT);
    const chars = Array.from(`<${word}>`);
    for (let c = 0; c + 3 <= chars.length; c++) add(`c:${chars.slice(c, c + 3).join('')}`, TRIGRAM_WEIGHT);
  });

  for (const [key, { tf, weight }] of features) {
    const hash = fnv1a32(key);
    const sign = hash >>> 31 === 1 ? -1 : 1;
    vector[hash % dims] += sign * weight * (1 + Math.log(tf));
  }

  let norm = 0;
  for (const v of vector) norm += v * v;
  if (norm === 0) return vector;
  norm = Math.sqrt(norm);
  return vector.map((v) => v / norm);
}

/** Cosine similarity of two vectors of equal length (0 when either is the zero vector). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
