import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { JSDOM } from 'jsdom';
import { extractItems, normaliseText, resolveLink, type ListSelectors } from './extract-items.js';

const PAGE_URL = 'https://news.example.com/latest/';

function page(html: string, url = PAGE_URL): Document {
  return new JSDOM(html, { url }).window.document;
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

describe('extractItems on the v1 fixture', () => {
  const { rows, items } = extractItems(fixture('v1.html'), PAGE_URL, V1_SELECTORS);

  it('returns every matched row, and an item per row with a title or a link (the ad row is dropped)', () => {
    expect(rows).toHaveLength(9);
    expect(rows.every((row) => row.localName === 'li')).toBe(true);
    expect(items).toHaveLength(8);
  });

  it('extracts titles, raw dates and absolute detail URLs', () => {
    expect(items).toEqual([
      { title: 'City council approves new bike lanes on Harbour Road', publishedAtRaw: '21 Nov 2026', detailUrl: 'https://news.example.com/n/1' },
      { title: 'Storm warning issued for the northern coast', publishedAtRaw: '21 Nov 2026', detailUrl: 'https://news.example.com/n/2' },
      { title: 'Local bakery wins national bread award', publishedAtRaw: '20 Nov 2026', detailUrl: 'https://news.example.com/latest/story-3.html' },
      { title: 'Ferry timetable changes for the winter season', publishedAtRaw: '20 Nov 2026', detailUrl: 'https://news.example.com/n/4' },
      { title: 'School library reopens after renovation', publishedAtRaw: '19 Nov 2026', detailUrl: 'https://news.example.com/archive/2026/11/n5' },
      { title: 'Live: harbour festival updates', publishedAtRaw: '19 Nov 2026', detailUrl: null },
      { title: 'Museum extends opening hours on weekends', publishedAtRaw: '18 Nov 2026', detailUrl: 'https://news.example.com/n/7?ref=list#top' },
      { title: 'New playground opens in Eastside Park', publishedAtRaw: '18 Nov 2026', detailUrl: 'https://news.example.com/n/8' },
    ]);
  });

  it('evaluates field selectors within each row, not against the whole page', () => {
    // Against the whole page, `a` would first match the logo link in the header.
    const { items: viaA } = extractItems(fixture('v1.html'), PAGE_URL, { listRow: V1_SELECTORS.listRow, title: 'a' });
    expect(viaA[0]!.title).toBe('City council approves new bike lanes on Harbour Road');
    expect(viaA.some((item) => item.title === 'Harbour Gazette')).toBe(false);
  });
});

describe('extractItems field rules', () => {
  const html = `<!doctype html><body><div class="list">
      <article class="row" data-href="/a/1">
        <a class="t" href="one.html">  First
           story </a>
        <time datetime="2026-11-21T08:30:00Z">21 Nov</time>
      </article>
      <article class="row" data-href="mailto:desk@example.com">
        <a class="t" href="javascript:alert(1)">Second story</a>
        <span class="when">yesterday</span>
      </article>
      <article class="row" data-href="https://other.example.org/x">
        <span class="when">no title and no link here</span>
      </article>
      <a class="row" href="/direct">Row that is a link</a>
    </div></body>`;

  it('normalises text: collapses whitespace and trims', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', title: 'a.t' });
    expect(items.map((i) => i.title)).toEqual(['First story', 'Second story']);
  });

  it('prefers the datetime attribute of a <time> for publishedAt text extraction', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', title: 'a.t', publishedAt: 'time, .when' });
    expect(items.map((i) => i.publishedAtRaw)).toEqual(['2026-11-21T08:30:00Z', 'yesterday']);
  });

  it('prefers datetime with an explicit ::text too, and ::attr(datetime) reads it directly', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', title: 'a.t', publishedAt: 'time::text' });
    expect(items[0]!.publishedAtRaw).toBe('2026-11-21T08:30:00Z');
    const { items: attr } = extractItems(page(html), PAGE_URL, {
      listRow: 'article.row',
      title: 'a.t',
      publishedAt: 'time::attr(datetime)',
    });
    expect(attr[0]!.publishedAtRaw).toBe('2026-11-21T08:30:00Z');
  });

  it('resolves links against the page URL and keeps only http(s) ones', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', link: 'a.t::attr(href)' });
    expect(items.map((i) => i.detailUrl)).toEqual(['https://news.example.com/latest/one.html']);
  });

  it('reads attributes of the row itself with an empty or :scope CSS part', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', link: '::attr(data-href)' });
    expect(items.map((i) => i.detailUrl)).toEqual(['https://news.example.com/a/1', 'https://other.example.org/x']);
    const { items: self } = extractItems(page(html), PAGE_URL, { listRow: 'a.row', title: ':scope', link: ':scope::attr(href)' });
    expect(self).toEqual([{ title: 'Row that is a link', publishedAtRaw: null, detailUrl: 'https://news.example.com/direct' }]);
  });

  it('drops rows without a title and a link but keeps the matched rows', () => {
    const { rows, items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', publishedAt: '.when' });
    expect(rows).toHaveLength(3);
    expect(items).toEqual([]);
  });

  it('gives null for fields whose selector is missing, empty or matches nothing', () => {
    const { items } = extractItems(page(html), PAGE_URL, { listRow: 'article.row', title: 'a.t', publishedAt: '  ', link: 'a.none::attr(href)' });
    expect(items[0]).toEqual({ title: 'First story', publishedAtRaw: null, detailUrl: null });
  });
});

describe('helpers', () => {
  it('normaliseText handles null and non-breaking spaces', () => {
    expect(normaliseText(null)).toBe('');
    expect(normaliseText('\n a\u00a0\t b ')).toBe('a b');
  });

  it('resolveLink refuses non-http(s) and unparsable values', () => {
    expect(resolveLink('../up', 'https://e.com/a/b/')).toBe('https://e.com/a/up');
    expect(resolveLink('//cdn.e.com/x', 'https://e.com/')).toBe('https://cdn.e.com/x');
    expect(resolveLink('mailto:x@e.com', 'https://e.com/')).toBeNull();
    expect(resolveLink('ftp://e.com/file', 'https://e.com/')).toBeNull();
    expect(resolveLink('http://[bad', 'https://e.com/')).toBeNull();
    expect(resolveLink(null, 'https://e.com/')).toBeNull();
  });
});
