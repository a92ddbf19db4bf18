import { describe, expect, it } from '@jest/globals';
import { cosineSimilarity, fnv1a32, LOCAL_EMBEDDING_DIMENSIONS, localEmbedding } from './local-embedding.js';

const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('fnv1a32', () => {
  it('matches the reference FNV-1a test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });
});

describe('localEmbedding', () => {
  it('has 384 dimensions by default and unit length', () => {
    const v = localEmbedding('The quick brown fox jumps over the lazy dog.');
    expect(LOCAL_EMBEDDING_DIMENSIONS).toBe(384);
    expect(v).toHaveLength(384);
    expect(norm(v)).toBeCloseTo(1, 10);
    expect(v.every((x) => Number.isFinite(x))).toBe(true);
  });

  it('is deterministic', () => {
    const text = 'Quarterly revenue grew by 10% in Q3 2024.';
    expect(localEmbedding(text)).toEqual(localEmbedding(text));
  });

  it('ignores case, spacing and punctuation', () => {
    expect(localEmbedding('Hello,   World!')).toEqual(localEmbedding('hello world'));
  });

  it('gives the zero vector for text without words', () => {
    expect(localEmbedding('')).toEqual(new Array(384).fill(0));
    expect(localEmbedding('  ... !!! ')).toEqual(new Array(384).fill(0));
  });

  it('still embeds a text made only of stopwords', () => {
    expect(norm(localEmbedding('to be or not to be'))).toBeCloseTo(1, 10);
  });

  it('supports other dimensions and rejects invalid ones', () => {
    const v = localEmbedding('some text', 64);
    expect(v).toHaveLength(64);
    expect(norm(v)).toBeCloseTo(1, 10);
    expect(() => localEmbedding('x', 0)).toThrow(RangeError);
    expect(() => localEmbedding('x', 1.5)).toThrow(RangeError);
  });

  it('scores similar texts higher than unrelated ones', () => {
    const query = localEmbedding('The quarterly revenue of the company grew by ten percent.');
    const similar = localEmbedding('Company revenue increased in the last quarter by ten percent.');
    const unrelated = localEmbedding('The cat sat on the warm windowsill in the afternoon sun.');
    expect(cosineSimilarity(query, similar)).toBeGreaterThan(cosineSimilarity(query, unrelated) + 0.15);
  });

  it('ranks documents by vocabulary overlap with the query', () => {
    const docs = [
      'Solar panels convert sunlight into electricity for homes.',
      'Installing solar panels on the roof lowers electricity bills.',
      'The football match ended in a draw after extra time.',
      'A recipe for sourdough bread with a crispy crust.',
    ];
    const query = localEmbedding('cost of solar panels for my roof');
    const ranked = docs
      .map((d, i) => ({ i, score: cosineSimilarity(query, localEmbedding(d)) }))
      .sort((a, b) => b.score - a.score)
      .map((r) => r.i);
    expect(ranked.slice(0, 2)).toEqual([1, 0]);
  });

  it('lets inflected forms overlap through character trigrams', () => {
    const base = localEmbedding('analysis');
    expect(cosineSimilarity(base, localEmbedding('analyses'))).toBeGreaterThan(cosineSimilarity(base, localEmbedding('banana')));
  });

  it('gives identical texts cosine 1 and the zero vector cosine 0', () => {
    const v = localEmbedding('identical text');
    expect(cosineSimilarity(v, v)).toBeCloseTo(1, 10);
    expect(cosineSimilarity(v, localEmbedding(''))).toBe(0);
  });
});
