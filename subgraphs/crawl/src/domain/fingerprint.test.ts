import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { JSDOM } from 'jsdom';
import { extractItems, type ListSelectors } from './extract-items.js';
import { FILL_HISTORY_RUNS, fillHistoryOf, fingerprintElement, fingerprintSelectors, SAMPLE_ROWS, textShape, withFillHistory } from './fingerprint.js';

const PAGE_URL = 'https://news.example.com/latest/';

function page(html: string): Document {
  return new JSDOM(html, { url: PAGE_URL }).window.document;
}

function fixture(name: string): Document {
  return page(readFileSync(new URL(`../../../test/fixtures/${name}`, import.meta.url), 'utf8'));
}

const V1_SELECTORS: ListSelectors = {
  listRow: 'ul.news-list > li.news-item',
  title: ':scope > h3.title > a',
  link: ':scope > h3.title > a::attr(href)',
  publishedAt: ':scope > h3.title + span.date',
};

describe('textShape', () => {
  it('keeps the length, word count and a character-class pattern, never the text', () => {
    expect(textShape('21 Nov 2026')).toEqual({ length: 11, words: 3, pattern: '9 Aa 9' });
    expect(textShape('  COVID-19:\n new rules ')).toEqual({ length: 19, words: 3, pattern: 'A-9: a a' });
    expect(textShape('Été à Zürich')).toEqual({ length: 12, words: 3, pattern: 'Aa a Aa' });
    expect(textShape('')).toEqual({ length: 0, words: 0, pattern: '' });
  });

  it('keeps the pattern of the first 8 tokens only', () => {
    expect(textShape('a b c d e f g h i j').pattern).toBe('a a a a a a a a');
  });
});

describe('fingerprintElement', () => {
  const doc = page(`<!doctype html><html><body><main>
      <ul class="list main-list" id="news">
        <li class="item"><b>x</b></li>
        <li class="item first" id="item-12" data-kind="story" data-pos="3" style="color:red" title="Hello">
          Intro <h3 class="t"><a href="/n/1">Title one</a></h3> tail
          <span class="date">21 Nov 2026</span>
        </li>
        <li class="item"></li>
      </ul></main></body></html>`);
  const li = doc.querySelectorAll('li')[1]!;

  it('records tag, classes and attributes, volatile values reduced to presence', () => {
    const fp = fingerprintElement(li);
    expect(fp.tag).toBe('li');
    expect(fp.classes).toEqual(['item', 'first']);
    expect(fp.attributes).toEqual({ id: null, 'data-kind': 'story', 'data-pos': null, title: null });
  });

  it('records own text and whole text shapes', () => {
    const fp = fingerprintElement(li);
    expect(fp.ownText).toEqual({ length: 10, words: 2, pattern: 'Aa a' });
    expect(fp.text.words).toBe(7);
    expect(fp.text.pattern).toBe('Aa Aa a a 9 Aa 9');
  });

  it('records the ancestor path, parent, siblings, position, children and descendants', () => {
    const fp = fingerprintElement(li);
    expect(fp.path).toEqual(['html', 'body', 'main', 'ul']);
    expect(fp.parent).toEqual({ tag: 'ul', classes: ['list', 'main-list'] });
    expect(fp.siblings).toEqual({ prev: 'li', next: 'li', tags: ['li', 'li'] });
    expect(fp.position).toEqual({ index: 1, of: 3 });
    expect(fp.children).toEqual(['h3', 'span']);
    expect(fp.descendants).toEqual(['a', 'h3', 'span']);
  });

  it('takes the path relative to a root when given (how fields are stored)', () => {
    const a = li.querySelector('a')!;
    expect(fingerprintElement(a, { root: li }).path).toEqual(['li', 'h3']);
    expect(fingerprintElement(a).path).toEqual(['html', 'body', 'main', 'ul', 'li', 'h3']);
    expect(fingerprintElement(li, { root: li }).path).toEqual([]);
  });

  it('is plain JSON', () => {
    const fp = fingerprintElement(li);
    expect(JSON.parse(JSON.stringify(fp))).toEqual(fp);
  });
});

describe('fingerprintSelectors on the v1 fixture', () => {
  const doc = fixture('v1.html');
  const { rows } = extractItems(doc, PAGE_URL, V1_SELECTORS);
  const stored = fingerprintSelectors(doc, rows, V1_SELECTORS);

  it('samples the first rows that yielded an item (not the ad row)', () => {
    expect(stored.version).toBe(1);
    expect(stored.listRow.selector).toBe(V1_SELECTORS.listRow);
    expect(stored.listRow.count).toBe(9);
    expect(stored.listRow.samples).toHaveLength(SAMPLE_ROWS);
    for (const sample of stored.listRow.samples) {
      expect(sample.classes).toEqual(['news-item']);
      expect(sample.children).toEqual(['h3', 'span', 'p']);
      expect(sample.path).toEqual(['html', 'body', 'main', 'ul']);
    }
  });

  it('stores each field relative to its row, with coverage and whether values had digits', () => {
    const { title, link, publishedAt } = stored.fields;
    expect(title!.selector).toBe(V1_SELECTORS.title);
    expect(title!.samples[0]).toMatchObject({ tag: 'a', path: ['li', 'h3'], parent: { tag: 'h3', classes: ['title'] } });
    expect(title!.coverage).toBeCloseTo(8 / 9);
    expect(title!.valueHasDigits).toBe(false);
    expect(link!.samples[0]!.attributes).toEqual({ href: null });
    expect(link!.valueHasDigits).toBe(false); // attribute values are never required to have digits
    expect(publishedAt!.samples[0]).toMatchObject({ tag: 'span', classes: ['date'], ownText: { pattern: '9 Aa 9' } });
    expect(publishedAt!.valueHasDigits).toBe(true);
  });

  it('leaves out fields without a selector or without a single match', () => {
    const partial = fingerprintSelectors(doc, rows, { listRow: V1_SELECTORS.listRow, title: 'h3 > a', publishedAt: 'time' });
    expect(Object.keys(partial.fields)).toEqual(['title']);
  });

  it('is plain JSON (what the job stores)', () => {
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
  });

  it('refuses rows of another document', () => {
    expect(() => fingerprintSelectors(fixture('v1.html'), rows, V1_SELECTORS)).toThrow(/same|belong/);
  });
});

describe('withFillHistory', () => {
  const doc = fixture('v1.html');
  const run = () => fingerprintSelectors(doc, extractItems(doc, PAGE_URL, V1_SELECTORS).rows, V1_SELECTORS);

  it('appends each field\'s fill rate to those of the earlier runs, keeping the last runs only', () => {
    const first = withFillHistory(run(), null);
    expect(fillHistoryOf(first.fields.title!)).toEqual([8 / 9]);
    const previous = { ...first, fields: { ...first.fields, publishedAt: { ...first.fields.publishedAt!, fillHistory: [0.5, 1] } } };
    const second = withFillHistory(run(), previous);
    expect(second.fields.publishedAt!.fillHistory).toEqual([0.5, 1, 8 / 9]);
    expect(second.fields.title!.fillHistory).toEqual([8 / 9, 8 / 9]);
    let many = first;
    for (let i = 0; i < FILL_HISTORY_RUNS + 3; i += 1) many = withFillHistory(run(), many);
    expect(many.fields.link!.fillHistory).toHaveLength(FILL_HISTORY_RUNS);
  });

  it('reads fingerprints stored before the history was kept as one run', () => {
    const { fillHistory: _none, ...legacy } = withFillHistory(run(), null).fields.link!;
    expect(fillHistoryOf(legacy)).toEqual([legacy.coverage]);
  });
});

