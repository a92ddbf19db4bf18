/**
 * Token-based chunking for vector sync. `chunkSize` and `chunkOverlap` are counted in o200k_base
 * tokens (gpt-tokenizer): each chunk's own text encodes to at most `chunkSize` tokens, and each
 * chunk starts where at most `chunkOverlap` tokens of the previous one remain (moved to the next
 * word start when one is within 64 characters), so windows advance by roughly `chunkSize -
 * chunkOverlap` tokens. Bounds (checked by {@link checkChunking}, 422 naming `/ragConfig/chunkSize`
 * or `/ragConfig/chunkOverlap`): integers, size 32–8192, overlap 0 to size-1. The text is first
 * normalised (NFC; every run of whitespace, line breaks included, becomes one space; ends
 * trimmed); empty text gives no chunks. A chunk ends at the last sentence end (ICU sentence rules
 * via `Intl.Segmenter`, so `。` counts but `e.g. foo` does not) that leaves it at least 85 % full,
 * else at the last space that does, else at the largest size that fits; after such a cut inside a
 * word of at most 64 characters the next chunk starts at that word, so every such word appears
 * whole in some chunk (longer space-free runs, e.g. CJK text or URLs, are cut between characters).
 * Chunks are cut in the text, never in the token sequence (gpt-tokenizer's `decode` of a token
 * slice can split a character, and its shared streaming decoder carries the partial bytes into
 * the next call): cuts fall on grapheme boundaries, or on code points inside clusters longer than
 * 32 UTF-8 bytes (only contrived text has them), so no character is split and no U+FFFD appears.
 * Text that looks like a special token (`<|endoftext|>`) is counted as plain text. `tokenCount` is
 * the count of the chunk's own text; {@link chunkSpans} gives the same chunks as offsets into the
 * normalised text; the result is deterministic.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { validationError, type FieldProblem } from '@svc/kit';
import { CHUNK_LIMITS } from '../contract.js';

export interface ChunkingOptions {
  /** Maximum tokens (o200k_base) per chunk. */
  chunkSize: number;
  /** Tokens shared by the end of one chunk and the start of the next. */
  chunkOverlap: number;
}

export interface Chunk {
  index: number;
  text: string;
  tokenCount: number;
}

export { CHUNK_LIMITS };

/** A chunk may end early, at a sentence end or a space, if it stays this full. */
const MIN_FILL = 0.85;
/** Words up to this many characters are kept whole across chunk starts. */
const MAX_WORD_CHARS = 64;
/**
 * Grapheme clusters longer than this many UTF-8 bytes may be cut between code points. A token is at
 * least one byte, so every piece between two cuts is at most 32 tokens, the smallest chunk size.
 */
const MAX_UNCUT_CLUSTER_BYTES = CHUNK_LIMITS.minSize;

const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

const show = (value: unknown) => JSON.stringify(value) ?? String(value);

/** The problems with a chunk size and overlap (empty when they are valid). */
export function chunkingProblems(size: unknown, overlap: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const sizeOk = Number.isInteger(size);
  if (!sizeOk) {
    problems.push({ pointer: '/ragConfig/chunkSize', detail: `chunkSize must be an integer number of tokens; got ${show(size)}` });
  } else if ((size as number) < CHUNK_LIMITS.minSize || (size as number) > CHUNK_LIMITS.maxSize) {
    problems.push({
      pointer: '/ragConfig/chunkSize',
      detail: `chunkSize must be between ${CHUNK_LIMITS.minSize} and ${CHUNK_LIMITS.maxSize} tokens; got ${size as number}`,
    });
  }
  if (!Number.isInteger(overlap)) {
    problems.push({ pointer: '/ragConfig/chunkOverlap', detail: `chunkOverlap must be an integer number of tokens; got ${show(overlap)}` });
  } else if ((overlap as number) < 0) {
    problems.push({ pointer: '/ragConfig/chunkOverlap', detail: `chunkOverlap must not be negative; got ${overlap as number}` });
  } else if (sizeOk && (overlap as number) >= (size as number)) {
    problems.push({
      pointer: '/ragConfig/chunkOverlap',
      detail: `chunkOverlap must be less than chunkSize (${size as number}); got ${overlap as number}`,
    });
  }
  return problems;
}

/** Throws a 422 naming `/ragConfig/chunkSize` and/or `/ragConfig/chunkOverlap` when invalid. */
export function checkChunking(size: unknown, overlap: unknown): void {
  const problems = chunkingProblems(size, overlap);
  if (problems.length > 0) throw validationError(problems);
}

/** Whitespace collapsed to single spaces, NFC, trimmed: the text the chunks are cut from. */
export function normalizeChunkText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** Offsets where the text may be cut: grapheme boundaries, plus code points inside long clusters. */
function cutOffsets(text: string): number[] {
  const cuts: number[] = [];
  for (const { index, segment } of graphemes.segment(text)) {
    cuts.push(index);
    if (Buffer.byteLength(segment, 'utf8') > MAX_UNCUT_CLUSTER_BYTES) {
      let offset = index;
      for (const codePoint of segment) {
        offset += codePoint.length;
        if (offset < index + segment.length) cuts.push(offset);
      }
    }
  }
  cuts.push(text.length);
  return cuts;
}

/** Index of the last element of the ascending `values` that is <= `target` (-1 if none). */
function lastAtOrBefore(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! <= target) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** Where a chunk lies in the normalised text ({@link normalizeChunkText}): `[start, end)`. */
export interface ChunkSpan {
  start: number;
  end: number;
}

/**
 * Splits `text` into chunks of at most `chunkSize` o200k_base tokens overlapping by about
 * `chunkOverlap` tokens. Throws the 422 of {@link checkChunking} for invalid options.
 */
export function chunkText(text: string, options: ChunkingOptions): Chunk[] {
  const source = normalizeChunkText(text);
  return chunkSpans(text, options).map(({ start, end }, index) => {
    const chunk = source.slice(start, end);
    return { index, text: chunk, tokenCount: countTokens(chunk, ENCODE_OPTIONS) };
  });
}

/** The chunks of {@link chunkText} as offsets into `normalizeChunkText(text)`. */
export function chunkSpans(text: string, options: ChunkingOptions): ChunkSpan[] {
  const { chunkSize: size, chunkOverlap: overlap } = options;
  checkChunking(size, overlap);
  const source = normalizeChunkText(text);
  if (source === '') return [];

  const tokens = (from: number, to: number) => countTokens(source.slice(from, to).trim(), ENCODE_OPTIONS);
  const total = countTokens(source, ENCODE_OPTIONS);
  if (total <= size) return [{ start: 0, end: source.length }];

  const cuts = cutOffsets(source);
  const last = cuts.length - 1;
  const cutIndex = (offset: number) => lastAtOrBefore(cuts, offset);
  const sentenceEnds = [...sentences.segment(source)].map((s) => s.index + s.segment.length);
  const spaces: number[] = [];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 32) spaces.push(i);
  const isSpace = (offset: number) => source.charCodeAt(offset) === 32;
  const midWord = (offset: number) => offset > 0 && offset < source.length && !isSpace(offset - 1) && !isSpace(offset);
  const fill = Math.ceil(size * MIN_FILL);
  /** Roughly how many cut positions one token spans, to guess where a window ends. */
  const cutsPerToken = last / total;

  /** Largest cut index e > s whose text from s fits in `size` tokens. */
  function maxEnd(s: number): number {
    let ok = s + 1; // one piece is at most 32 bytes, so at most 32 tokens <= chunkSize
    let step = Math.max(1, Math.floor(size * cutsPerToken));
    let bad = -1;
    while (bad < 0) {
      const candidate = Math.min(last, ok + step);
      if (candidate === ok) return ok;
      if (tokens(cuts[s]!, cuts[candidate]!) <= size) {
        ok = candidate;
        step *= 2;
      } else {
        bad = candidate;
      }
    }
    while (bad - ok > 1) {
      const mid = (ok + bad) >> 1;
      if (tokens(cuts[s]!, cuts[mid]!) <= size) ok = mid;
      else bad = mid;
    }
    return ok;
  }

  /** Where the chunk starting at cut s ends: [cut index, whether it cuts inside a word]. */
  function chooseEnd(s: number, e: number, previousEnd: number): [number, boolean] {
    const from = cuts[s]!;
    const acceptable = (offset: number) => {
      if (offset <= from || offset <= previousEnd) return false;
      const count = tokens(from, offset);
      return count >= fill && count <= size;
    };
    const sentence = sentenceEnds[lastAtOrBefore(sentenceEnds, cuts[e]!)];
    if (sentence !== undefined && acceptable(sentence)) return [cutIndex(sentence), false];
    const space = spaces[lastAtOrBefore(spaces, cuts[e]!)];
    if (space !== undefined && acceptable(space)) return [cutIndex(space), false];
    return [e, midWord(cuts[e]!)];
  }

  /** The first cut of the chunk after the one from s to e. */
  function nextStart(s: number, e: number, cutInWord: boolean): number {
    const end = cuts[e]!;
    // Smallest p whose text up to the end fits in the overlap.
    let lo = s + 1;
    let hi = e;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens(cuts[mid]!, end) <= overlap) hi = mid;
      else lo = mid + 1;
    }
    let p = hi;
    // Start at the next word start rather than inside a word, when it is near.
    if (p < e && midWord(cuts[p]!)) {
      const space = spaces[lastAtOrBefore(spaces, cuts[p]!) + 1];
      if (space !== undefined && space + 1 <= end && space + 1 - cuts[p]! <= MAX_WORD_CHARS) p = cutIndex(space + 1);
    }
    // After a cut inside a word, start the next chunk at that word so it appears whole.
    if (cutInWord) {
      const space = spaces[lastAtOrBefore(spaces, end)];
      const wordStart = space === undefined ? 0 : space + 1;
      if (wordStart > cuts[s]! && end - wordStart <= MAX_WORD_CHARS) p = Math.min(p, cutIndex(wordStart));
    }
    return Math.max(p, s + 1);
  }

  const spans: ChunkSpan[] = [];
  let start = 0;
  let previousEnd = -1;
  for (;;) {
    const fits = maxEnd(start);
    const [end, cutInWord] = fits === last ? [last, false] : chooseEnd(start, fits, previousEnd);
    // Cuts at a space leave it at one edge; a span never starts or ends with a space.
    const from = cuts[start]! + (isSpace(cuts[start]!) ? 1 : 0);
    const to = cuts[end]! - (isSpace(cuts[end]! - 1) ? 1 : 0);
    if (to > from) spans.push({ start: from, end: to });
    if (end === last) return spans;
    previousEnd = cuts[end]!;
    start = nextStart(start, end, cutInWord);
  }
}
