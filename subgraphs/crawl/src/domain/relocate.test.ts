import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { JSDOM } from 'jsdom';
import { fingerprintElement, textShape } from './fingerprint.js';
import {
  FIELD_WEIGHTS,
  jaccard,
  relocate,
  scoreCandidates,
  sequenceRatio,
  similarity,
  similarityBreakdown,
  SIMILARITY_WEIGHTS,
  textShapeSimilarity,
} from './relocate.js';

const PAGE_URL = 'https://news.example.com/latest/';

function fixture(name: string): Document {
  return new JSDOM(readFileSync(new URL(`../../../test/fixtures/${name}`, import.meta.url), 'utf8'), { url: PAGE_URL }).window.document;
}

describe('building blocks', () => {
  it('jaccard treats two empty sets as equal', () => {
    expect(jaccard([], [])).toBe(1);
    expect(jaccard(['a'], [])).toBe(0);
    expect(jaccard(['a', 'b'], ['b', 'c'])).toBeCloseTo(1 / 3);
  });

  it('sequenceRatio is 2·LCS/(|a|+|b|): a wrapper costs little', () => {
    expect(sequenceRatio([], [])).toBe(1);
    expect(sequenceRatio(['li', 'h3'], ['li', 'div', 'h3'])).toBeCloseTo(0.8);
    expect(sequenceRatio(['h3', 'span', 'p'], ['span', 'h3', 'p'])).toBeCloseTo(2 / 3);
    expect(sequenceRatio(['a'], ['b'])).toBe(0);
  });

  it('text shapes: dates resemble dates more than titles', () => {
    const date = textShape('21 Nov 2026');
    expect(textShapeSimilarity(date, textShape('3 Dec 2025'))).toBeGreaterThan(0.9);
    expect(textShapeSimilarity(date, textShape('Storm warning issued for the northern coast'))).toBeLessThan(0.4);
    expect(textShapeSimilarity(textShape(''), textShape(''))).toBe(1);
    expect(textShapeSimilarity(textShape(''), date)).toBe(0);
  });

  it('both weight profiles sum to 1', () => {
    expect(Object.values(SIMILARITY_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(Object.values(FIELD_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
  });
});

describe('similarity', () => {
  const v1 = fixture('v1.html');
  const v2 = fixture('v2-renamed-classes.html');
  const v5 = fixture('v5-unrelated.html');
  const row1 = fingerprintElement(v1.querySelector('li.news-item')!);

  it('is 1 for identical fingerprints, symmetric and within [0, 1]', () => {
    expect(similarity(row1, row1)).toBe(1);
    const other = fingerprintElement(v1.querySelector('li.nav-item')!);
    expect(similarity(row1, other)).toBeCloseTo(similarity(other, row1));
    for (const el of Array.from(v1.body.querySelectorAll('*'))) {
      const s = similarity(row1, fingerprintElement(el));
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });

  it('a row with renamed classes still resembles the stored row; navigation items do not', () => {
    const renamed = fingerprintElement(v2.querySelector('li.article-card')!);
    const parts = similarityBreakdown(row1, renamed);
    expect(parts.classes).toBe(0);
    expect(parts.children).toBe(1);
    expect(similarity(row1, renamed)).toBeGreaterThan(0.7);
    expect(similarity(row1, fingerprintElement(v2.querySelector('li.menu-link')!))).toBeLessThan(0.6);
    expect(similarity(row1, fingerprintElement(v5.querySelector('div.field')!))).toBeLessThan(0.4);
  });
});

describe('relocate', () => {
  const v1 = fixture('v1.html');
  const stored = fingerprintElement(v1.querySelector('li.news-item')!);

  it('finds the renamed row on v2, scoring every element of the body', () => {
    const v2 = fixture('v2-renamed-classes.html');
    const found = relocate(v2, stored, { threshold: 0.6 });
    expect(found).not.toBeNull();
    expect(found!.element.className).toBe('article-card');
    expect(found!.score).toBeGreaterThan(0.75);
    const ranked = scoreCandidates(v2, stored);
    expect(ranked[0]!.element).toBe(found!.element);
    expect(ranked.some((c) => c.element.localName === 'script' || c.element.localName === 'head')).toBe(false);
    expect(ranked.map((c) => c.score)).toEqual([...ranked.map((c) => c.score)].sort((a, b) => b - a));
  });

  it('returns null when nothing reaches the threshold', () => {
    const v5 = fixture('v5-unrelated.html');
    expect(relocate(v5, stored, { threshold: 0.6 })).toBeNull();
    expect(scoreCandidates(v5, stored)[0]!.score).toBeLessThan(0.6);
  });

  it('searches within an element with fingerprints relative to it, and honours accept', () => {
    const storedRow = v1.querySelector('li.news-item')!;
    const storedDate = fingerprintElement(storedRow.querySelector('span.date')!, { root: storedRow });
    const v4 = fixture('v4-reordered.html');
    const row = v4.querySelectorAll('li.news-item')[1]!;
    const found = relocate(v4, storedDate, { within: row, threshold: 0.6 });
    expect(found!.element.textContent).toBe('21 Nov 2026');
    expect(row.contains(found!.element)).toBe(true);
    const notSpan = (el: Element) => el.localName !== 'span';
    expect(relocate(v4, storedDate, { within: row, threshold: 0.6, accept: notSpan, weights: FIELD_WEIGHTS })).toBeNull();
  });

  it('field weights separate a date from a teaser of the same row better than row weights', () => {
    const storedRow = v1.querySelector('li.news-item')!;
    const storedDate = fingerprintElement(storedRow.querySelector('span.date')!, { root: storedRow });
    const v4 = fixture('v4-reordered.html');
    const row = v4.querySelectorAll('li.news-item')[1]!;
    const teaser = fingerprintElement(row.querySelector('p.teaser')!, { root: row });
    const date = fingerprintElement(row.querySelector('span.date')!, { root: row });
    const gap = (weights?: typeof FIELD_WEIGHTS) => similarity(storedDate, date, weights) - similarity(storedDate, teaser, weights);
    expect(similarity(storedDate, teaser, FIELD_WEIGHTS)).toBeLessThan(0.5);
    expect(similarity(storedDate, teaser)).toBeGreaterThan(0.55); // with row weights, leaves of a row look alike
    expect(gap(FIELD_WEIGHTS)).toBeGreaterThan(gap() + 0.1);
  });

  it('takes the best of several stored samples', () => {
    const rows = Array.from(v1.querySelectorAll('li.news-item'));
    const samples = rows.map((r) => fingerprintElement(r));
    const [best] = scoreCandidates(v1, samples);
    expect(best!.score).toBe(1);
  });
});
