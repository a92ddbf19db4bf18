import { describe, expect, it } from '@jest/globals';
import { seededRandom, SvcError, type FieldProblem } from '@svc/kit';
import { thrown } from '@svc/kit/testing/thrown';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CHUNK_LIMITS, checkChunking, chunkingProblems, chunkSpans, chunkText, normalizeChunkText, type Chunk } from './chunking.js';


function problemsOf(error: SvcError): FieldProblem[] {
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.status).toBe(422);
  expect(error.extensions.slug).toBe('validation-failed');
  return error.extensions.errors as FieldProblem[];
}

const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

const SYLLABLES = ['ka', 'lo', 'min', 'ter', 'vo', 'sa', 'rup', 'el', 'dor', 'qui', 'ne', 'bra'];

/** English-like prose with distinct, numbered words and capitalised sentences of 4–20 words. */
function prose(words: number, seed = 1): { text: string; vocabulary: string[] } {
  const next = seededRandom(seed);
  const vocabulary: string[] = [];
  const sentences: string[] = [];
  let sentence: string[] = [];
  let length = 4 + Math.floor(next() * 17);
  for (let i = 0; i < words; i++) {
    const first = SYLLABLES[Math.floor(next() * SYLLABLES.length)]!;
    // Sentences start with a capital, as ICU sentence segmentation expects.
    const word = `${sentence.length === 0 ? first.toUpperCase() : first}${SYLLABLES[Math.floor(next() * SYLLABLES.length)]}${i}`;
    vocabulary.push(word);
    sentence.push(word);
    if (sentence.length === length) {
      sentences.push(`${sentence.join(' ')}.`);
      sentence = [];
      length = 4 + Math.floor(next() * 17);
    }
  }
  if (sentence.length > 0) sentences.push(`${sentence.join(' ')}.`);
  return { text: sentences.join(next() < 0.5 ? ' ' : '\n\n'), vocabulary };
}

/** Checks the chunks of `text` and returns where they lie in the normalised text. */
function expectWellFormed(text: string, chunks: Chunk[], options: { chunkSize: number; chunkOverlap: number }): Array<[number, number]> {
  const source = normalizeChunkText(text);
  const places = chunkSpans(text, options).map(({ start, end }): [number, number] => [start, end]);
  expect(places).toHaveLength(chunks.length);
  chunks.forEach((chunk, i) => {
    expect(chunk.index).toBe(i);
    expect(chunk.text).toBe(source.slice(...places[i]!));
    expect(chunk.text).toBe(chunk.text.trim());
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.tokenCount).toBe(tokens(chunk.text));
    expect(chunk.tokenCount).toBeLessThanOrEqual(options.chunkSize);
    expect(chunk.text).not.toContain('\uFFFD');
    expect(chunk.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u);
  });
  // Contiguous coverage: the first chunk starts at 0, the last ends at the end, and no gaps.
  expect(places[0]![0]).toBe(0);
  expect(places.at(-1)![1]).toBe(source.length);
  for (let i = 1; i < places.length; i++) {
    expect(places[i]![0]).toBeGreaterThan(places[i - 1]![0]);
    expect(places[i]![1]).toBeGreaterThan(places[i - 1]![1]);
    expect(source.slice(places[i - 1]![1], places[i]![0]).trim()).toBe('');
  }
  return places;
}

describe('checkChunking', () => {
  it('accepts integers within the limits with overlap below size', () => {
    expect(() => checkChunking(512, 64)).not.toThrow();
    expect(() => checkChunking(CHUNK_LIMITS.minSize, 0)).not.toThrow();
    expect(() => checkChunking(CHUNK_LIMITS.maxSize, CHUNK_LIMITS.maxSize - 1)).not.toThrow();
    expect(CHUNK_LIMITS).toEqual({ minSize: 32, maxSize: 8192 });
  });

  it.each([
    [31, 0, '/ragConfig/chunkSize', 'chunkSize must be between 32 and 8192 tokens; got 31'],
    [8193, 0, '/ragConfig/chunkSize', 'chunkSize must be between 32 and 8192 tokens; got 8193'],
    [512.5, 0, '/ragConfig/chunkSize', 'chunkSize must be an integer number of tokens; got 512.5'],
    ['512', 0, '/ragConfig/chunkSize', 'chunkSize must be an integer number of tokens; got "512"'],
    [Number.NaN, 0, '/ragConfig/chunkSize', 'chunkSize must be an integer number of tokens; got null'],
    [512, -1, '/ragConfig/chunkOverlap', 'chunkOverlap must not be negative; got -1'],
    [512, 512, '/ragConfig/chunkOverlap', 'chunkOverlap must be less than chunkSize (512); got 512'],
    [512, 600, '/ragConfig/chunkOverlap', 'chunkOverlap must be less than chunkSize (512); got 600'],
    [512, 6.4, '/ragConfig/chunkOverlap', 'chunkOverlap must be an integer number of tokens; got 6.4'],
    [512, undefined, '/ragConfig/chunkOverlap', 'chunkOverlap must be an integer number of tokens; got undefined'],
  ])('refuses size %p with overlap %p, naming %s', (size, overlap, pointer, detail) => {
    const error = thrown(() => checkChunking(size, overlap));
    expect(problemsOf(error)).toEqual([{ pointer, detail }]);
  });

  it('names both fields when both are wrong', () => {
    expect(chunkingProblems(10, -5).map((p) => p.pointer)).toEqual(['/ragConfig/chunkSize', '/ragConfig/chunkOverlap']);
    expect(chunkingProblems('x', 'y').map((p) => p.pointer)).toEqual(['/ragConfig/chunkSize', '/ragConfig/chunkOverlap']);
  });

  it('does not compare overlap with a size that is not an integer', () => {
    expect(chunkingProblems(1.5, 4)).toEqual([
      { pointer: '/ragConfig/chunkSize', detail: 'chunkSize must be an integer number of tokens; got 1.5' },
    ]);
  });

  it('is applied by chunkText', () => {
    const error = thrown(() => chunkText('hello', { chunkSize: 16, chunkOverlap: 0 }));
    expect(problemsOf(error).map((p) => p.pointer)).toEqual(['/ragConfig/chunkSize']);
  });
});

describe('chunkText: small inputs', () => {
  it('returns no chunks for empty or whitespace-only text', () => {
    expect(chunkText('', { chunkSize: 64, chunkOverlap: 8 })).toEqual([]);
    expect(chunkText(' \n\t \u00a0 ', { chunkSize: 64, chunkOverlap: 8 })).toEqual([]);
  });

  it('returns one chunk, with whitespace normalised, when the text fits', () => {
    const chunks = chunkText('  Hello,\n\n  world!\tHow   are you?  ', { chunkSize: 64, chunkOverlap: 8 });
    expect(chunks).toEqual([{ index: 0, text: 'Hello, world! How are you?', tokenCount: tokens('Hello, world! How are you?') }]);
  });

  it('treats text that looks like a special token as plain text', () => {
    const chunks = chunkText('before <|endoftext|> after', { chunkSize: 64, chunkOverlap: 0 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.text).toBe('before <|endoftext|> after');
    expect(chunks[0]!.tokenCount).toBeGreaterThan(3);
  });
});

describe('chunkText: English prose', () => {
  const { text, vocabulary } = prose(3000);

  it.each([
    [64, 0],
    [64, 16],
    [128, 32],
    [512, 64],
    [200, 150],
  ])('size %i, overlap %i: within size, contiguous, every word whole in some chunk', (chunkSize, chunkOverlap) => {
    const chunks = chunkText(text, { chunkSize, chunkOverlap });
    expectWellFormed(text, chunks, { chunkSize, chunkOverlap });
    const known = new Set(vocabulary);
    const seen = new Set<string>();
    const partial: string[] = [];
    for (const chunk of chunks) {
      for (const word of chunk.text.split(' ')) {
        const bare = word.replace(/\.$/, '');
        // Every chunk starts and ends at word boundaries: no partial words.
        if (!known.has(bare)) partial.push(bare);
        seen.add(bare);
      }
    }
    expect(partial).toEqual([]);
    expect(seen.size).toBe(vocabulary.length);
  });

  it('overlaps consecutive chunks by roughly chunkOverlap tokens', () => {
    const chunkOverlap = 32;
    const chunks = chunkText(text, { chunkSize: 128, chunkOverlap });
    const source = normalizeChunkText(text);
    const places = expectWellFormed(text, chunks, { chunkSize: 128, chunkOverlap });
    for (let i = 1; i < chunks.length; i++) {
      const shared = tokens(source.slice(places[i]![0], places[i - 1]![1]).trim());
      expect(shared).toBeLessThanOrEqual(chunkOverlap);
      expect(shared).toBeGreaterThanOrEqual(chunkOverlap - 8);
    }
  });

  it('does not overlap when chunkOverlap is 0', () => {
    const chunks = chunkText(text, { chunkSize: 96, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text).join(' ')).toBe(normalizeChunkText(text));
  });

  it('advances by about chunkSize - chunkOverlap tokens', () => {
    const total = tokens(normalizeChunkText(text));
    const chunks = chunkText(text, { chunkSize: 128, chunkOverlap: 32 });
    // Each chunk is at least 85 % full, so each step is at least 0.85 * 128 - 32 tokens.
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / (0.85 * 128 - 32)) + 1);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.floor(total / (128 - 32 + 8)));
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokenCount).toBeGreaterThanOrEqual(Math.ceil(0.85 * 128));
  });

  it('ends chunks at sentence ends when one falls in the last 15 % of the window', () => {
    const chunkSize = 256;
    const chunks = chunkText(text, { chunkSize, chunkOverlap: 0 });
    let atSentenceEnd = 0;
    for (const chunk of chunks.slice(0, -1)) {
      if (chunk.text.endsWith('.')) {
        atSentenceEnd++;
      } else {
        // Only when the last sentence end in the chunk would leave it less than 85 % full.
        const lastSentenceEnd = chunk.text.lastIndexOf('. ');
        if (lastSentenceEnd >= 0) expect(tokens(chunk.text.slice(0, lastSentenceEnd + 1))).toBeLessThan(Math.ceil(0.85 * chunkSize));
      }
    }
    expect(atSentenceEnd).toBeGreaterThan(chunks.length / 3);
  });

  it('always ends at a sentence end when sentences are short', () => {
    const words = prose(2000, 3).vocabulary.map((w) => w.toLowerCase());
    const sentences = Array.from({ length: words.length / 5 }, (_, i) => {
      const sentence = words.slice(i * 5, i * 5 + 5).join(' ');
      return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
    });
    const short = sentences.join(' ');
    const chunks = chunkText(short, { chunkSize: 256, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.text.endsWith('.')).toBe(true);
  });

  it('falls back to a space when no sentence ends in the last 15 %', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `${SYLLABLES[i % SYLLABLES.length]}${i}`);
    const chunks = chunkText(words.join(' '), { chunkSize: 64, chunkOverlap: 8 });
    expectWellFormed(words.join(' '), chunks, { chunkSize: 64, chunkOverlap: 8 });
    const vocabulary = new Set(words);
    for (const chunk of chunks) for (const word of chunk.text.split(' ')) expect(vocabulary.has(word)).toBe(true);
  });

  it('is deterministic', () => {
    const options = { chunkSize: 100, chunkOverlap: 20 };
    expect(chunkText(text, options)).toEqual(chunkText(text, options));
  });

  it('chunks a long text quickly', () => {
    const long = prose(40000, 7).text;
    const started = Date.now();
    const chunks = chunkText(long, { chunkSize: 512, chunkOverlap: 64 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expectWellFormed(long, chunks, { chunkSize: 512, chunkOverlap: 64 });
  });
});

describe('chunkText: CJK, emoji and other multi-byte text', () => {
  const japanese =
    '東京は日本の首都です。人口はおよそ千四百万人で、世界でも有数の大都市として知られています。' +
    '春には桜が咲き、多くの人が花見を楽しみます。夏は暑く湿度が高いですが、祭りや花火大会が各地で開かれます。';
  const emoji = '👩‍👩‍👧 family 🇯🇵 flag 👍🏽 thumbs e\u0301 café 😀😃😄😁 ';

  it.each([
    ['Japanese', japanese.repeat(30)],
    ['Chinese', '北京是中华人民共和国的首都，也是全国的政治、文化和国际交往中心。'.repeat(40)],
    ['Korean', '서울은 대한민국의 수도이며 가장 큰 도시입니다. 한강이 도시를 가로질러 흐릅니다. '.repeat(40)],
    ['emoji', emoji.repeat(60)],
    ['mixed', `${japanese} ${emoji} Ünïcödé Ελληνικά русский текст עברית العربية `.repeat(20)],
  ])('%s: no U+FFFD, no broken surrogates, within size, contiguous', (_label, text) => {
    for (const [chunkSize, chunkOverlap] of [
      [32, 0],
      [32, 8],
      [64, 16],
      [100, 30],
    ] as const) {
      const chunks = chunkText(text, { chunkSize, chunkOverlap });
      expect(chunks.length).toBeGreaterThan(1);
      expectWellFormed(text, chunks, { chunkSize, chunkOverlap });
    }
  });

  it('reconstructs space-free text exactly with zero overlap, never splitting a character', () => {
    const text = `${japanese}🇯🇵👍🏽👩‍👩‍👧`.repeat(25);
    const chunks = chunkText(text, { chunkSize: 40, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text).join('')).toBe(text);
    const count = (s: string, needle: string) => s.split(needle).length - 1;
    const joined = chunks.map((c) => c.text).join('|');
    expect(count(joined, '🇯🇵')).toBe(25);
    expect(count(joined, '👍🏽')).toBe(25);
    expect(count(joined, '👩‍👩‍👧')).toBe(25);
  });

  it('ends CJK chunks at 。 when one falls in the last 15 %', () => {
    const chunks = chunkText(japanese.repeat(30), { chunkSize: 200, chunkOverlap: 0 });
    for (const chunk of chunks) expect(chunk.text.endsWith('。')).toBe(true);
  });

  it('cuts a long run without spaces or sentence ends between characters', () => {
    const run = 'x7Q'.repeat(3000);
    const chunks = chunkText(run, { chunkSize: 50, chunkOverlap: 0 });
    expectWellFormed(run, chunks, { chunkSize: 50, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text).join('')).toBe(run);
    const overlapping = chunkText(run, { chunkSize: 50, chunkOverlap: 10 });
    expectWellFormed(run, overlapping, { chunkSize: 50, chunkOverlap: 10 });
  });

  it('cuts inside a contrived grapheme cluster of many combining marks, still within size', () => {
    const zalgo = `a${'\u0301\u0308\u0323'.repeat(40)} ok `.repeat(20);
    const chunks = chunkText(zalgo, { chunkSize: 32, chunkOverlap: 4 });
    expectWellFormed(zalgo, chunks, { chunkSize: 32, chunkOverlap: 4 });
  });
});
