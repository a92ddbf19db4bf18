import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { JSDOM } from 'jsdom';
import { extractItems, type ExtractedItem, type ListSelectors } from './extract-items.js';
import { fingerprintSelectors, type StoredFingerprints } from './fingerprint.js';
import { DEFAULT_HEAL_THRESHOLD, healSelectors, type HealResult } from './heal.js';

const PAGE_URL = 'https://news.example.com/latest/';

function html(name: string): string {
  return readFileSync(new URL(`../../../test/fixtures/${name}`, import.meta.url), 'utf8');
}

function page(source: string): Document {
  return new JSDOM(source, { url: PAGE_URL }).window.document;
}

/** The selectors a user configured on v1. The date is found as "the span right after the title". */
const V1_SELECTORS: ListSelectors = {
  listRow: 'ul.news-list > li.news-item',
  title: ':scope > h3.title > a',
  link: ':scope > h3.title > a::attr(href)',
  publishedAt: ':scope > h3.title + span.date',
};

/** What a good run stores: fingerprints taken on a page with the selectors, through JSON. */
function storeAfterGoodRun(doc: Document, selectors: ListSelectors): StoredFingerprints {
  const { rows } = extractItems(doc, PAGE_URL, selectors);
  return JSON.parse(JSON.stringify(fingerprintSelectors(doc, rows, selectors))) as StoredFingerprints;
}

const STORED_V1 = storeAfterGoodRun(page(html('v1.html')), V1_SELECTORS);

const item = (title: string, publishedAtRaw: string, path: string | null): ExtractedItem => ({
  title,
  publishedAtRaw,
  detailUrl: path === null ? null : `https://news.example.com${path}`,
});

const V1_ITEMS: ExtractedItem[] = [
  item('City council approves new bike lanes on Harbour Road', '21 Nov 2026', '/n/1'),
  item('Storm warning issued for the northern coast', '21 Nov 2026', '/n/2'),
  item('Local bakery wins national bread award', '20 Nov 2026', '/latest/story-3.html'),
  item('Ferry timetable changes for the winter season', '20 Nov 2026', '/n/4'),
  item('School library reopens after renovation', '19 Nov 2026', '/archive/2026/11/n5'),
  item('Live: harbour festival updates', '19 Nov 2026', null),
  item('Museum extends opening hours on weekends', '18 Nov 2026', '/n/7?ref=list#top'),
  item('New playground opens in Eastside Park', '18 Nov 2026', '/n/8'),
];

const V2_ITEMS: ExtractedItem[] = [
  item('Harbour Road bike lanes: work starts on Monday', '22 Nov 2026', '/n/10'),
  item('Storm leaves thousands without power', '22 Nov 2026', '/latest/story-9.html'),
  ...V1_ITEMS.slice(0, 5),
];

function expectConfident(result: HealResult): void {
  for (const field of ['listRow', 'title', 'publishedAt', 'link'] as const) {
    expect(result.confidence[field]).toBeGreaterThanOrEqual(DEFAULT_HEAL_THRESHOLD);
  }
}

describe('healSelectors on the unchanged site (v1)', () => {
  it('keeps every selector: no healing without a reason', () => {
    const result = healSelectors(page(html('v1.html')), PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healed).toBe(false);
    expect(result.healedFields).toEqual([]);
    expect(result.failedFields).toEqual([]);
    expect(result.selectors).toEqual(V1_SELECTORS);
    expectConfident(result);
    expect(result.confidence.title).toBeGreaterThan(0.95);
  });
});

describe.each([
  {
    version: 'v2-renamed-classes.html',
    change: 'every class renamed',
    expected: V2_ITEMS,
    healedFields: ['listRow', 'title', 'publishedAt', 'link'],
    selectors: {
      listRow: 'li.article-card',
      title: 'h3.headline > a',
      publishedAt: 'span.published',
      link: 'h3.headline > a::attr(href)',
    },
    originalItems: (items: ExtractedItem[]) => expect(items).toEqual([]),
  },
  {
    version: 'v3-wrapper.html',
    change: 'a wrapper element around the fields of each row',
    expected: V1_ITEMS,
    healedFields: ['title', 'publishedAt', 'link'],
    selectors: {
      listRow: V1_SELECTORS.listRow,
      title: 'h3.title > a',
      publishedAt: 'span.date',
      link: 'h3.title > a::attr(href)',
    },
    originalItems: (items: ExtractedItem[]) => expect(items).toEqual([]),
  },
  {
    version: 'v4-reordered.html',
    change: 'the date moved before the title in each row',
    expected: V1_ITEMS,
    healedFields: ['publishedAt'],
    selectors: { ...V1_SELECTORS, publishedAt: 'span.date' },
    originalItems: (items: ExtractedItem[]) => {
      expect(items.map((i) => i.title)).toEqual(V1_ITEMS.map((i) => i.title));
      expect(items.every((i) => i.publishedAtRaw === null)).toBe(true);
    },
  },
  {
    version: 'v6-date-class-reused.html',
    change: 'the date class reused for a category badge, the date moved to a new element',
    expected: V1_ITEMS,
    healedFields: ['publishedAt'],
    selectors: { ...V1_SELECTORS, publishedAt: 'span.meta-time' },
    originalItems: (items: ExtractedItem[]) => {
      // The original selector still matches, but extracts the wrong thing.
      expect(items.map((i) => i.publishedAtRaw)).toEqual(['Politics', 'Weather', 'Food', 'Transport', 'Education', 'Events', 'Culture', 'Community']);
    },
  },
])('healSelectors on $version ($change)', ({ version, expected, healedFields, selectors, originalItems }) => {
  const source = html(version);

  it('the original selectors fail or mismatch there', () => {
    originalItems(extractItems(page(source), PAGE_URL, V1_SELECTORS).items);
  });

  it('heals: new selectors that extract the same items, with confidence above the threshold', () => {
    const doc = page(source);
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.failedFields).toEqual([]);
    expect(result.healed).toBe(true);
    expect(result.healedFields).toEqual(healedFields);
    expect(result.selectors).toEqual(selectors);
    expectConfident(result);
    expect(extractItems(doc, PAGE_URL, result.selectors).items).toEqual(expected);
  });

  it('is idempotent: healing again with the healed selectors and fingerprints from this version changes nothing', () => {
    const first = healSelectors(page(source), PAGE_URL, V1_SELECTORS, STORED_V1);
    const doc = page(source);
    const stored = storeAfterGoodRun(doc, first.selectors);
    const again = healSelectors(doc, PAGE_URL, first.selectors, stored);
    expect(again.healed).toBe(false);
    expect(again.healedFields).toEqual([]);
    expect(again.failedFields).toEqual([]);
    expect(again.selectors).toEqual(first.selectors);
    expect(again.confidence.listRow).toBeGreaterThan(0.9);
  });
});

describe('healSelectors on an unrelated page (v5: sign-in wall)', () => {
  const doc = page(html('v5-unrelated.html'));
  const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);

  it('fails clearly with low confidence instead of extracting something', () => {
    expect(result.healed).toBe(false);
    expect(result.healedFields).toEqual([]);
    expect(result.confidence.listRow).toBeLessThan(DEFAULT_HEAL_THRESHOLD);
    expect(result.failedFields.map((f) => f.field)).toEqual(['listRow', 'title', 'publishedAt', 'link']);
    expect(result.failedFields[0]!.reason).toMatch(
      /^"ul\.news-list > li\.news-item" matches nothing, and no element on the page looks like the stored list rows \(best candidate <li> scored 0\.\d+, threshold 0\.6\)$/,
    );
    expect(result.failedFields[1]!.reason).toBe('not checked: listRow failed');
  });

  it('returns selectors that extract no items', () => {
    expect(result.selectors).toEqual({ listRow: V1_SELECTORS.listRow });
    expect(extractItems(doc, PAGE_URL, result.selectors).items).toEqual([]);
  });
});

describe('healSelectors: mismatches and partial failures', () => {
  it('abandons a row selector taken over by look-alikes (navigation now carries the old classes)', () => {
    const source = html('v2-renamed-classes.html')
      .replace('<ul class="menu">', '<ul class="news-list">')
      .replaceAll('menu-link', 'news-item');
    const doc = page(source);
    expect(extractItems(doc, PAGE_URL, V1_SELECTORS).rows.map((r) => r.textContent!.trim())).toEqual([
      'Home',
      'Latest',
      'Sport',
      'About us',
    ]);
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healedFields).toContain('listRow');
    expect(result.selectors.listRow).toBe('li.article-card');
    expect(extractItems(doc, PAGE_URL, result.selectors).items).toEqual(V2_ITEMS);
  });

  it('fails a field whose content is gone instead of relocating it to a look-alike (dates removed)', () => {
    const doc = page(html('v1.html').replace(/<span class="date">[^<]*<\/span>/g, ''));
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healed).toBe(false);
    expect(result.failedFields).toHaveLength(1);
    expect(result.failedFields[0]!.field).toBe('publishedAt');
    expect(result.failedFields[0]!.reason).toMatch(/^":scope > h3\.title \+ span\.date" matches nothing, and an element looking like the stored publishedAt \(score ≥ 0\.6\) was found in only 0 of 9 rows, 4 needed \(the best candidate in the rows scored 0\.\d+\)$/);
    expect(result.selectors).toEqual({ listRow: V1_SELECTORS.listRow, title: V1_SELECTORS.title, link: V1_SELECTORS.link });
    const { items } = extractItems(doc, PAGE_URL, result.selectors);
    expect(items.map((i) => i.title)).toEqual(V1_ITEMS.map((i) => i.title));
    expect(items.every((i) => i.publishedAtRaw === null)).toBe(true);
  });

  it('fails a field whose selector now yields the wrong kind of value when nothing else looks right', () => {
    // v6 without the moved date: `span.date` holds only category names now.
    const doc = page(html('v6-date-class-reused.html').replace(/<span class="meta-time">[^<]*<\/span>/g, ''));
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.failedFields).toEqual([
      {
        field: 'publishedAt',
        reason: expect.stringMatching(
          /^":scope > h3\.title \+ span\.date" matches elements whose values are not acceptable \(empty or without a digit \(all stored values had one\)\), and an element looking like the stored publishedAt/,
        ),
      },
    ]);
    expect(result.selectors.publishedAt).toBeUndefined();
    const { items } = extractItems(doc, PAGE_URL, result.selectors);
    expect(items).toHaveLength(8);
    expect(items.every((i) => i.publishedAtRaw === null)).toBe(true);
  });

  it('heals one field while failing others (titles removed, dates moved)', () => {
    const source = html('v4-reordered.html').replace(/<h3 class="title">.*<\/h3>/g, '');
    const result = healSelectors(page(source), PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healed).toBe(true);
    expect(result.healedFields).toEqual(['publishedAt']);
    expect(result.failedFields.map((f) => f.field)).toEqual(['title', 'link']);
    expect(result.selectors).toEqual({ listRow: V1_SELECTORS.listRow, publishedAt: 'span.date' });
    expect(result.confidence.title).toBeLessThan(DEFAULT_HEAL_THRESHOLD);
  });

  it('treats an invalid stored selector as not matching and relocates', () => {
    const result = healSelectors(page(html('v1.html')), PAGE_URL, { ...V1_SELECTORS, title: ':scope > h3.title >' }, STORED_V1);
    expect(result.healedFields).toEqual(['title']);
    expect(result.selectors.title).toBe('h3.title > a');
  });

  it('honours a stricter threshold by failing rather than guessing', () => {
    const result = healSelectors(page(html('v2-renamed-classes.html')), PAGE_URL, V1_SELECTORS, STORED_V1, { threshold: 0.9 });
    expect(result.healed).toBe(false);
    expect(result.failedFields[0]!.field).toBe('listRow');
    expect(result.failedFields[0]!.reason).toMatch(/threshold 0\.9/);
  });

  it('keeps a field it has no fingerprint for, and fails when there is nothing to relocate rows by', () => {
    const withoutDates: StoredFingerprints = { ...STORED_V1, fields: { title: STORED_V1.fields.title!, link: STORED_V1.fields.link! } };
    const kept = healSelectors(page(html('v4-reordered.html')), PAGE_URL, V1_SELECTORS, withoutDates);
    expect(kept.selectors.publishedAt).toBe(V1_SELECTORS.publishedAt);
    expect(kept.confidence.publishedAt).toBeUndefined();
    expect(kept.healed).toBe(false);

    const empty: StoredFingerprints = { ...STORED_V1, listRow: { ...STORED_V1.listRow, samples: [] } };
    const failed = healSelectors(page(html('v2-renamed-classes.html')), PAGE_URL, V1_SELECTORS, empty);
    expect(failed.failedFields[0]).toEqual({
      field: 'listRow',
      reason: '"ul.news-list > li.news-item" matches nothing and no fingerprint of the rows was stored to relocate them',
    });
  });
});

describe('healSelectors: the old selectors match different elements (issue #11)', () => {
  const sidebarTitles = ['Local bakery wins national bread award', 'City council approves new bike lanes on Harbour Road', 'New playground opens in Eastside Park', 'Ferry timetable changes for the winter season'];

  it('v7: the old classes moved to the sidebar, whose rows lack the dates every earlier run had: relocates to the real list', () => {
    const doc = page(html('v7-old-classes-in-sidebar.html'));
    // What the run used to store: the sidebar's items, silently.
    expect(extractItems(doc, PAGE_URL, V1_SELECTORS).items.map((i) => i.title)).toEqual(sidebarTitles);
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healedFields).toContain('listRow');
    expect(result.selectors.listRow).toBe('li.article-card');
    expect(result.failedFields).toEqual([]);
    expect(extractItems(doc, PAGE_URL, result.selectors).items).toEqual(V2_ITEMS);
  });

  it('v8: the old classes reused by a topics block in <main> (no links, no dated spans): relocates to the real list', () => {
    const doc = page(html('v8-old-classes-on-topics.html'));
    expect(extractItems(doc, PAGE_URL, V1_SELECTORS).rows).toHaveLength(5);
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.selectors.listRow).toBe('li.article-card');
    expect(extractItems(doc, PAGE_URL, result.selectors).items).toEqual(V2_ITEMS);
  });

  it('v9: the list is gone and only look-alike rows without dates remain: fails the rows, so no item is extracted', () => {
    const doc = page(html('v9-list-gone-old-classes-in-sidebar.html'));
    expect(extractItems(doc, PAGE_URL, V1_SELECTORS).items.map((i) => i.title)).toEqual(sidebarTitles);
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.healed).toBe(false);
    expect(result.failedFields[0]).toEqual({
      field: 'listRow',
      reason:
        'the 4 rows that "ul.news-list > li.news-item" matches lack fields every earlier run filled (publishedAt in 0 % of them, earlier runs at least 89 %) ' +
        'and sit elsewhere on the page (<html > body > aside > ul>, the stored rows under <html > body > main > ul>), ' +
        "and no other list on the page looks like the stored rows with those fields: not storing items that are probably not the list's",
    });
    expect(extractItems(doc, PAGE_URL, result.selectors).items.filter((i) => i.detailUrl !== null)).toEqual([]);
  });

  it('v1 with the dates removed from the list itself: keeps the rows (same place) and leaves only the dates empty', () => {
    const doc = page(html('v1.html').replace(/<span class="date">[^<]*<\/span>/g, ''));
    const result = healSelectors(doc, PAGE_URL, V1_SELECTORS, STORED_V1);
    expect(result.failedFields.map((f) => f.field)).toEqual(['publishedAt']);
    expect(extractItems(doc, PAGE_URL, result.selectors).items.map((i) => i.title)).toEqual(V1_ITEMS.map((i) => i.title));
  });

  it('judges by the fill rate of every earlier run: a field some run left mostly empty does not make rows suspect', () => {
    const sometimesDated: StoredFingerprints = {
      ...STORED_V1,
      fields: { ...STORED_V1.fields, publishedAt: { ...STORED_V1.fields.publishedAt!, fillHistory: [0.89, 0.1, 0.89] } },
    };
    const result = healSelectors(page(html('v7-old-classes-in-sidebar.html')), PAGE_URL, V1_SELECTORS, sometimesDated);
    expect(result.selectors.listRow).toBe(V1_SELECTORS.listRow);
  });
});

