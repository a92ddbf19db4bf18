import { describe, expect, it } from '@jest/globals';
import { SvcError, type FieldProblem } from '@svc/kit';
import { thrown } from '@svc/kit/testing/thrown';
import { RAG_DEFAULTS, firstRunAt, parseCrawlJobInput, parseCrawlSelectors, type CrawlJobInput } from './crawl-job-input.js';
import { checkSelectorSpec } from './selector-check.js';


function problemsOf(error: SvcError): FieldProblem[] {
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.status).toBe(422);
  expect(error.extensions.status).toBe(422);
  expect(error.extensions.slug).toBe('validation-failed');
  expect(Array.isArray(error.extensions.errors)).toBe(true);
  return error.extensions.errors as FieldProblem[];
}

const NOW = new Date('2026-11-21T10:00:00Z');
const parse = (body: unknown) => parseCrawlJobInput(body, { now: NOW });
const invalid = (body: unknown) => problemsOf(thrown(() => parse(body)));
const pointersOf = (body: unknown) => invalid(body).map((p) => p.pointer);

function badRequest(body: unknown): SvcError {
  const error = thrown(() => parse(body));
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.status).toBe(400);
  expect(error.extensions.status).toBe(400);
  return error;
}

const minimal = { jobName: 'News', targetUrl: 'https://example.com/news', selectors: { listRow: 'ul.news > li' } };
const with_ = (extra: Record<string, unknown>) => ({ ...minimal, ...extra });
const withSelectors = (selectors: Record<string, unknown>) => with_({ selectors: { listRow: 'li', ...selectors } });

describe('parseCrawlJobInput: accepted requests', () => {
  it('fills in defaults for a minimal one-time job', () => {
    const expected: CrawlJobInput = {
      jobName: 'News',
      targetUrl: 'https://example.com/news',
      selectors: { listRow: 'ul.news > li' },
      enableRagSync: false,
      robotsTxt: 'respect',
      dayFirst: true,
      volatileSelectors: [],
    };
    expect(parse(minimal)).toEqual(expected);
  });

  it('accepts the full request of the spec and normalises it', () => {
    const input = parse({
      jobName: '  Daily tech news  ',
      targetUrl: ' HTTPS://Example.COM:443/tech?page=1#top ',
      cronExpression: ' 0 0 9 * * ? ',
      selectors: {
        listRow: 'div.article-list > div.item',
        title: 'h3.title',
        publishedAt: 'span.date::text',
        link: 'a.link::attr(href)',
      },
      enableRagSync: true,
      ragConfig: { targetVectorDb: 'pgvector', embeddingModel: 'text-embed-small', chunkSize: 256, chunkOverlap: 32 },
      robotsTxt: 'ignore',
      dayFirst: false,
    });
    expect(input).toEqual({
      jobName: 'Daily tech news',
      targetUrl: 'https://example.com/tech?page=1#top',
      cronExpression: '0 0 9 * * ?',
      selectors: {
        listRow: 'div.article-list > div.item',
        title: 'h3.title',
        publishedAt: 'span.date::text',
        link: 'a.link::attr(href)',
      },
      enableRagSync: true,
      ragConfig: { targetVectorDb: 'pgvector', embeddingModel: 'text-embed-small', chunkSize: 256, chunkOverlap: 32 },
      robotsTxt: 'ignore',
      dayFirst: false,
      volatileSelectors: [],
    });
  });

  it('treats null optional members as absent', () => {
    expect(
      parse(with_({ cronExpression: null, runAt: null, enableRagSync: null, ragConfig: null, robotsTxt: null, dayFirst: null })),
    ).toEqual(parse(minimal));
    expect(parse(withSelectors({ title: null, link: '  ' })).selectors).toEqual({ listRow: 'li' });
  });

  it('accepts http as well as https, and ports, paths and queries', () => {
    expect(parse(with_({ targetUrl: 'http://news.example.org:8080/a/b?x=1&y=2' })).targetUrl).toBe('http://news.example.org:8080/a/b?x=1&y=2');
    expect(parse(with_({ targetUrl: 'https://예시.kr/뉴스' })).targetUrl).toBe('https://xn--vv4b11d.kr/%EB%89%B4%EC%8A%A4');
  });

  it('counts jobName length in characters and allows exactly 200', () => {
    expect(parse(with_({ jobName: 'x'.repeat(200) })).jobName).toHaveLength(200);
    expect(parse(with_({ jobName: '😀'.repeat(200) })).jobName).toBe('😀'.repeat(200));
  });
});

describe('parseCrawlJobInput: schedule', () => {
  it('makes a job without cronExpression a one-time job run at once', () => {
    const input = parse(minimal);
    expect(input.cronExpression).toBeUndefined();
    expect(input.runAt).toBeUndefined();
    expect(firstRunAt(input, NOW)).toEqual(NOW);
  });

  it('accepts a runAt in the future for a one-time job', () => {
    const input = parse(with_({ runAt: '2026-11-22T09:30:00Z' }));
    expect(input.runAt).toEqual(new Date('2026-11-22T09:30:00Z'));
    expect(firstRunAt(input, NOW)).toEqual(new Date('2026-11-22T09:30:00Z'));
  });

  it.each([
    ['2026-11-21T10:00:01Z', '2026-11-21T10:00:01.000Z'],
    ['2026-11-21T12:00+01:00', '2026-11-21T11:00:00.000Z'],
    ['2026-11-21T05:30:00.250-05:00', '2026-11-21T10:30:00.250Z'],
    ['2026-11-22t09:00:00z', '2026-11-22T09:00:00.000Z'],
  ])('reads runAt %s as %s', (runAt, expected) => {
    expect(parse(with_({ runAt })).runAt?.toISOString()).toBe(expected);
  });

  it('schedules a periodic job at the next cron firing in UTC', () => {
    const input = parse(with_({ cronExpression: '0 15 10 ? * MON-FRI' }));
    // 2026-11-21 is a Saturday.
    expect(firstRunAt(input, NOW).toISOString()).toBe('2026-11-23T10:15:00.000Z');
  });

  it.each([
    ['2026-11-21T10:00:00Z', 'runAt must be in the future; got "2026-11-21T10:00:00Z"'],
    ['2020-01-01T00:00:00Z', 'runAt must be in the future; got "2020-01-01T00:00:00Z"'],
    ['2026-11-22', 'runAt must be an ISO 8601 date-time with a time zone, such as "2026-11-21T09:00:00Z"; got "2026-11-22"'],
    ['2026-11-22T09:00:00', 'runAt must be an ISO 8601 date-time with a time zone, such as "2026-11-21T09:00:00Z"; got "2026-11-22T09:00:00"'],
    ['tomorrow', 'runAt must be an ISO 8601 date-time with a time zone, such as "2026-11-21T09:00:00Z"; got "tomorrow"'],
    ['Sun, 22 Nov 2026 09:00:00 GMT', 'runAt must be an ISO 8601 date-time with a time zone, such as "2026-11-21T09:00:00Z"; got "Sun, 22 Nov 2026 09:00:00 GMT"'],
    ['2027-02-30T09:00:00Z', 'runAt is not a real date-time: "2027-02-30T09:00:00Z"'],
    ['2027-01-01T24:00:00Z', 'runAt is not a real date-time: "2027-01-01T24:00:00Z"'],
    ['2027-01-01T09:60:00Z', 'runAt is not a real date-time: "2027-01-01T09:60:00Z"'],
    ['2027-01-01T09:00:00+24:00', 'runAt is not a real date-time: "2027-01-01T09:00:00+24:00"'],
  ])('refuses runAt %s', (runAt, detail) => {
    expect(invalid(with_({ runAt }))).toEqual([{ pointer: '/runAt', detail }]);
  });

  it('refuses cronExpression and runAt together (422)', () => {
    expect(invalid(with_({ cronExpression: '0 0 9 * * ?', runAt: '2026-12-01T00:00:00Z' }))).toEqual([
      {
        pointer: '/runAt',
        detail: 'runAt is only for one-time jobs; send either cronExpression (periodic) or runAt (one-time), not both',
      },
    ]);
  });

  it('answers a bad cronExpression with a 400 naming it', () => {
    const error = badRequest(with_({ cronExpression: '*/5 * * * *' }));
    expect(error.message).toBe(
      'cronExpression must have six fields (seconds minutes hours day-of-month month day-of-week); got 5: "*/5 * * * *"',
    );
    expect(error.extensions.errors).toEqual([{ pointer: '/cronExpression', detail: error.message }]);
    expect(badRequest(with_({ cronExpression: '61 * * * * *' })).message).toContain('seconds field "61"');
  });

  it('gives the cronExpression 400 before the 422s', () => {
    expect(badRequest({ cronExpression: 'abc', selectors: {} }).message).toContain('"abc"');
  });
});

describe('parseCrawlJobInput: ragConfig', () => {
  it('fills in every default when enableRagSync is true and ragConfig is missing', () => {
    expect(parse(with_({ enableRagSync: true })).ragConfig).toEqual(RAG_DEFAULTS);
    expect(RAG_DEFAULTS).toEqual({ targetVectorDb: 'pgvector', embeddingModel: 'svc-local-embedding', chunkSize: 512, chunkOverlap: 64 });
  });

  it('fills in missing members of a partial ragConfig', () => {
    expect(parse(with_({ enableRagSync: true, ragConfig: { embeddingModel: 'bge-m3' } })).ragConfig).toEqual({
      ...RAG_DEFAULTS,
      embeddingModel: 'bge-m3',
    });
  });

  it('defaults chunkOverlap to an eighth of a small given chunkSize, at most 64', () => {
    expect(parse(with_({ enableRagSync: true, ragConfig: { chunkSize: 128 } })).ragConfig?.chunkOverlap).toBe(16);
    expect(parse(with_({ enableRagSync: true, ragConfig: { chunkSize: 32 } })).ragConfig?.chunkOverlap).toBe(4);
    expect(parse(with_({ enableRagSync: true, ragConfig: { chunkSize: 4096 } })).ragConfig?.chunkOverlap).toBe(64);
  });

  it('leaves ragConfig out when sync is off and none was given, and validates one given anyway', () => {
    expect(parse(with_({ enableRagSync: false })).ragConfig).toBeUndefined();
    expect(parse(with_({ ragConfig: { chunkSize: 256 } })).ragConfig).toEqual({ ...RAG_DEFAULTS, chunkSize: 256, chunkOverlap: 32 });
    expect(pointersOf(with_({ enableRagSync: false, ragConfig: { chunkSize: 10 } }))).toEqual(['/ragConfig/chunkSize']);
  });

  it.each([
    [{ chunkSize: 31 }, [{ pointer: '/ragConfig/chunkSize', detail: 'chunkSize must be between 32 and 8192 tokens; got 31' }]],
    [{ chunkSize: 9000, chunkOverlap: 10 }, [{ pointer: '/ragConfig/chunkSize', detail: 'chunkSize must be between 32 and 8192 tokens; got 9000' }]],
    [{ chunkSize: 256.5 }, [{ pointer: '/ragConfig/chunkSize', detail: 'chunkSize must be an integer number of tokens; got 256.5' }]],
    [{ chunkSize: 256, chunkOverlap: 256 }, [{ pointer: '/ragConfig/chunkOverlap', detail: 'chunkOverlap must be less than chunkSize (256); got 256' }]],
    [{ chunkOverlap: 600 }, [{ pointer: '/ragConfig/chunkOverlap', detail: 'chunkOverlap must be less than chunkSize (512); got 600' }]],
    [{ chunkOverlap: -1 }, [{ pointer: '/ragConfig/chunkOverlap', detail: 'chunkOverlap must not be negative; got -1' }]],
    [{ embeddingModel: '  ' }, [{ pointer: '/ragConfig/embeddingModel', detail: 'embeddingModel must not be empty' }]],
    [{ embeddingModel: 'm'.repeat(201) }, [{ pointer: '/ragConfig/embeddingModel', detail: 'embeddingModel must be at most 200 characters; got 201' }]],
  ])('refuses ragConfig %j (422)', (ragConfig, problems) => {
    expect(invalid(with_({ enableRagSync: true, ragConfig }))).toEqual(problems);
  });

  it('answers a targetVectorDb other than pgvector with a 400 naming the value and the allowed ones', () => {
    const error = badRequest(with_({ enableRagSync: true, ragConfig: { targetVectorDb: 'pinecone' } }));
    expect(error.message).toBe('targetVectorDb "pinecone" is not supported; allowed: pgvector');
    expect(error.extensions.errors).toEqual([{ pointer: '/ragConfig/targetVectorDb', detail: error.message }]);
    expect(badRequest(with_({ ragConfig: { targetVectorDb: 'PGVECTOR' } })).message).toContain('"PGVECTOR"');
    expect(badRequest(with_({ ragConfig: { targetVectorDb: '' } })).message).toContain('allowed: pgvector');
  });

  it('reports a bad cronExpression and a bad targetVectorDb in one 400', () => {
    const error = badRequest(with_({ cronExpression: 'nope', ragConfig: { targetVectorDb: 'milvus' } }));
    expect((error.extensions.errors as FieldProblem[]).map((p) => p.pointer)).toEqual(['/cronExpression', '/ragConfig/targetVectorDb']);
    expect(error.message).toContain('"nope"');
    expect(error.message).toContain('"milvus"');
  });
});

describe('parseCrawlJobInput: targetUrl', () => {
  it.each([
    ['ftp://example.com/file', 'targetUrl must use http or https; got "ftp"'],
    ['javascript:alert(1)', 'targetUrl must use http or https; got "javascript"'],
    ['file:///etc/passwd', 'targetUrl must use http or https; got "file"'],
    ['example.com/news', 'targetUrl must be an absolute http or https URL; got "example.com/news"'],
    ['/news', 'targetUrl must be an absolute http or https URL; got "/news"'],
    ['https://', 'targetUrl must be an absolute http or https URL; got "https://"'],
    ['https://user:secret@example.com/', 'targetUrl must not contain credentials (user:password@)'],
    [`https://example.com/${'a'.repeat(2048)}`, 'targetUrl must be at most 2048 characters; got 2068'],
    ['', 'targetUrl is required'],
    ['   ', 'targetUrl is required'],
  ])('refuses %s', (targetUrl, detail) => {
    expect(invalid(with_({ targetUrl }))).toEqual([{ pointer: '/targetUrl', detail }]);
  });

  it('requires targetUrl', () => {
    expect(invalid({ jobName: 'x', selectors: { listRow: 'li' } })).toEqual([{ pointer: '/targetUrl', detail: 'targetUrl is required' }]);
  });
});

describe('parseCrawlJobInput: jobName, robotsTxt, unknown members', () => {
  it.each([
    [undefined, 'jobName is required'],
    ['', 'jobName is required'],
    ['  \t ', 'jobName is required'],
    ['x'.repeat(201), 'jobName must be at most 200 characters; got 201'],
    ['bad\u0000name', 'jobName must not contain control characters'],
    ['two\nlines', 'jobName must not contain control characters'],
  ])('refuses jobName %j', (jobName, detail) => {
    expect(invalid(with_({ jobName }))).toEqual([{ pointer: '/jobName', detail }]);
  });

  it('refuses a robotsTxt other than respect or ignore', () => {
    expect(invalid(with_({ robotsTxt: 'obey' }))).toEqual([
      { pointer: '/robotsTxt', detail: 'robotsTxt must be one of respect, ignore; got "obey"' },
    ]);
  });

  it('refuses unknown members anywhere, so a misspelt cronExpression is not a silent one-time job', () => {
    expect(
      invalid({
        ...minimal,
        cronExpresion: '0 0 9 * * ?',
        'a/b~c': 1,
        selectors: { listRow: 'li', titel: 'h3' },
        ragConfig: { chunkSize: 256, vectorDb: 'pgvector' },
      }),
    ).toEqual([
      { pointer: '/cronExpresion', detail: 'cronExpresion is not a known field' },
      { pointer: '/a~1b~0c', detail: 'a/b~c is not a known field' },
      { pointer: '/selectors/titel', detail: 'titel is not a known selector' },
      { pointer: '/ragConfig/vectorDb', detail: 'vectorDb is not a known ragConfig field' },
    ]);
  });
});

describe('parseCrawlJobInput: selectors', () => {
  it('requires selectors and selectors.listRow', () => {
    expect(invalid({ jobName: 'x', targetUrl: 'https://example.com' })).toEqual([
      { pointer: '/selectors', detail: 'selectors is required (at least selectors.listRow)' },
    ]);
    expect(invalid(with_({ selectors: {} }))).toEqual([{ pointer: '/selectors/listRow', detail: 'selectors.listRow is required' }]);
    expect(invalid(with_({ selectors: { listRow: '  ', title: 'h3' } }))).toEqual([
      { pointer: '/selectors/listRow', detail: 'selectors.listRow is required' },
    ]);
  });

  it('accepts rich CSS and the row-itself forms for fields', () => {
    const selectors = {
      listRow: 'main article:not(.ad), ul > li:nth-of-type(2n+1)',
      title: ':scope > h2 a[href^="/n/"]',
      publishedAt: 'time::attr(datetime)',
      link: '::attr(href)',
    };
    expect(parse(with_({ selectors })).selectors).toEqual(selectors);
    expect(parse(withSelectors({ title: ':scope::text', link: 'a.md\\:flex::attr(href)' })).selectors).toEqual({
      listRow: 'li',
      title: ':scope::text',
      link: 'a.md\\:flex::attr(href)',
    });
  });

  it.each([
    ['listRow', 'ul >', 'selectors.listRow "ul >": "ul >" is not a valid CSS selector'],
    ['listRow', 'li::text', 'selectors.listRow "li::text": listRow selects the row elements, so it takes no ::text or ::attr() suffix'],
    ['listRow', 'a::attr(href)', 'listRow selects the row elements'],
    ['listRow', ':scope', 'selectors.listRow ":scope": listRow needs a CSS selector for the row elements'],
    ['title', 'h3[', 'selectors.title "h3[": "h3[" is not a valid CSS selector'],
    ['title', 'a:contains(News)', 'is not a valid CSS selector'],
    ['title', '> h3', 'selectors.title "> h3": a selector cannot start with a combinator; write ":scope > h3" for children of the row'],
    ['title', 'p::before', 'selectors.title "p::before": ::before is not supported; only a final ::text or ::attr(name) may follow the CSS selector'],
    ['link', 'a::attr(href', 'selectors.link "a::attr(href": ::attr(name) or ::text may only appear once, at the end (e.g. "a::attr(href)")'],
    ['link', 'a::attr()', '::attr(name) or ::text may only appear once, at the end'],
    ['link', 'a::attr(href)::text', '::attr(name) or ::text may only appear once, at the end'],
    ['link', 'a::attr(href) b', '::attr(name) or ::text may only appear once, at the end'],
    ['link', 'a::attribute(href)', '::attribute is not supported'],
    ['publishedAt', 'x'.repeat(1001), 'must be at most 1000 characters; got 1001'],
  ])('refuses selectors.%s %j, naming it', (field, spec, detail) => {
    const body = { ...minimal, selectors: field === 'listRow' ? { listRow: spec } : { listRow: 'li', [field]: spec } };
    const problems = invalid(body);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.pointer).toBe(`/selectors/${field}`);
    expect(problems[0]!.detail).toContain(detail);
  });
});

describe('parseCrawlJobInput: volatileSelectors', () => {
  it('keeps plain CSS selectors, trimmed, duplicates dropped', () => {
    expect(parse(with_({ volatileSelectors: [' .most-read ', 'aside[data-widget="ticker"]', '.most-read'] })).volatileSelectors).toEqual(['.most-read', 'aside[data-widget="ticker"]']);
    expect(parse(with_({ volatileSelectors: null })).volatileSelectors).toEqual([]);
  });

  it('names each bad one by its index (422), with the other rule failures', () => {
    expect(invalid(with_({ jobName: '', volatileSelectors: ['.ok', 'div[', '.count::text', '', '::before'] }))).toEqual([
      { pointer: '/jobName', detail: expect.stringContaining('jobName') },
      { pointer: '/volatileSelectors/1', detail: expect.stringMatching(/^volatileSelectors\[1\] "div\[": "div\[" is not a valid CSS selector/) },
      { pointer: '/volatileSelectors/2', detail: 'volatileSelectors[2] ".count::text": a volatile selector names whole elements, so it takes no ::text or ::attr() suffix' },
      { pointer: '/volatileSelectors/3', detail: 'volatileSelectors[3] "": a volatile selector needs a CSS selector for the elements' },
      { pointer: '/volatileSelectors/4', detail: 'volatileSelectors[4] "::before": ::before is not supported; only a final ::text or ::attr(name) may follow the CSS selector' },
    ]);
    expect(invalid(with_({ volatileSelectors: Array.from({ length: 51 }, (_, i) => `.w${i}`) }))).toEqual([{ pointer: '/volatileSelectors', detail: 'volatileSelectors must list at most 50 selectors' }]);
  });

  it('answers a volatileSelectors that is not a list of strings with a 400 naming it', () => {
    expect(badRequest(with_({ volatileSelectors: '.most-read' })).extensions.errors).toEqual([{ pointer: '/volatileSelectors', detail: 'volatileSelectors must be an array; got ".most-read"' }]);
    expect(badRequest(with_({ volatileSelectors: ['.ok', 7] })).extensions.errors).toEqual([{ pointer: '/volatileSelectors/1', detail: 'volatileSelectors[1] must be a string; got 7' }]);
  });
});

describe('parseCrawlJobInput: malformed requests (400)', () => {
  it.each([null, 'text', 42, [minimal], true])('refuses a body that is not an object: %j', (body) => {
    expect(badRequest(body).message).toMatch(/^The crawl job request must be a JSON object; got /);
  });

  it('names every member of the wrong type', () => {
    const error = badRequest({
      jobName: 42,
      targetUrl: { href: 'https://example.com' },
      cronExpression: 5,
      runAt: 1764000000000,
      selectors: { listRow: ['li'], link: false },
      enableRagSync: 'yes',
      ragConfig: { targetVectorDb: 1, embeddingModel: [], chunkSize: '512', chunkOverlap: '64' },
      robotsTxt: false,
      dayFirst: 'true',
    });
    expect(error.extensions.errors).toEqual([
      { pointer: '/jobName', detail: 'jobName must be a string; got 42' },
      { pointer: '/targetUrl', detail: 'targetUrl must be a string; got {"href":"https://example.com"}' },
      { pointer: '/cronExpression', detail: 'cronExpression must be a string; got 5' },
      { pointer: '/runAt', detail: 'runAt must be a string; got 1764000000000' },
      { pointer: '/selectors/listRow', detail: 'listRow must be a string; got ["li"]' },
      { pointer: '/selectors/link', detail: 'link must be a string; got false' },
      { pointer: '/enableRagSync', detail: 'enableRagSync must be a boolean; got "yes"' },
      { pointer: '/ragConfig/targetVectorDb', detail: 'targetVectorDb must be a string; got 1' },
      { pointer: '/ragConfig/embeddingModel', detail: 'embeddingModel must be a string; got []' },
      { pointer: '/ragConfig/chunkSize', detail: 'chunkSize must be a number; got "512"' },
      { pointer: '/ragConfig/chunkOverlap', detail: 'chunkOverlap must be a number; got "64"' },
      { pointer: '/robotsTxt', detail: 'robotsTxt must be a string; got false' },
      { pointer: '/dayFirst', detail: 'dayFirst must be a boolean; got "true"' },
    ]);
    expect(error.message).toMatch(/^Malformed crawl job request: jobName must be a string; got 42; /);
  });

  it('refuses selectors and ragConfig that are not objects', () => {
    expect(badRequest(with_({ selectors: 'li' })).extensions.errors).toEqual([
      { pointer: '/selectors', detail: 'selectors must be an object; got "li"' },
    ]);
    expect(badRequest(with_({ ragConfig: [] })).extensions.errors).toEqual([
      { pointer: '/ragConfig', detail: 'ragConfig must be an object; got []' },
    ]);
  });

  it('gives type errors before the other 400s and the 422s', () => {
    const error = badRequest({ jobName: 1, cronExpression: 'bad', targetUrl: 'ftp://x' });
    expect((error.extensions.errors as FieldProblem[]).map((p) => p.pointer)).toEqual(['/jobName']);
  });
});

describe('parseCrawlJobInput: every rule failure in one 422', () => {
  it('lists all bad fields with JSON pointers', () => {
    expect(
      pointersOf({
        jobName: '',
        targetUrl: 'ftp://example.com',
        runAt: 'soon',
        selectors: { listRow: 'li::text', title: 'h3[', link: 'a::attr(' },
        enableRagSync: true,
        ragConfig: { embeddingModel: '', chunkSize: 16, chunkOverlap: 20 },
        robotsTxt: 'sometimes',
      }),
    ).toEqual([
      '/jobName',
      '/targetUrl',
      '/runAt',
      '/selectors/listRow',
      '/selectors/title',
      '/selectors/link',
      '/ragConfig/embeddingModel',
      '/ragConfig/chunkSize',
      '/ragConfig/chunkOverlap',
      '/robotsTxt',
    ]);
  });
});

describe('checkSelectorSpec', () => {
  it.each([
    ['h3.title > a', { css: 'h3.title > a', extract: { kind: 'text' } }],
    ['span.date::text', { css: 'span.date', extract: { kind: 'text' } }],
    ['  span.date ::text  ', { css: 'span.date', extract: { kind: 'text' } }],
    ['h3 > a::attr(href)', { css: 'h3 > a', extract: { kind: 'attr', name: 'href' } }],
    ['time::attr( DateTime )', { css: 'time', extract: { kind: 'attr', name: 'datetime' } }],
    ['a::attr(data-id)', { css: 'a', extract: { kind: 'attr', name: 'data-id' } }],
    ['svg a::attr(xlink:href)', { css: 'svg a', extract: { kind: 'attr', name: 'xlink:href' } }],
    ['::attr(href)', { css: '', extract: { kind: 'attr', name: 'href' } }],
    [':scope::text', { css: ':scope', extract: { kind: 'text' } }],
    ['li:nth-of-type(2) a[href^="/n/"]::attr(href)', { css: 'li:nth-of-type(2) a[href^="/n/"]', extract: { kind: 'attr', name: 'href' } }],
    ['a[title="a::b"]', { css: 'a[title="a::b"]', extract: { kind: 'text' } }],
    ['a:not(:hover)', { css: 'a:not(:hover)', extract: { kind: 'text' } }],
  ])('parses %j', (spec, expected) => {
    expect(checkSelectorSpec(spec)).toEqual(expected);
  });

  it('throws a 422 naming the spec for an invalid one', () => {
    const error = thrown(() => checkSelectorSpec('h3 > a::attr(href'));
    expect(error.status).toBe(422);
    expect(error.message).toBe('Invalid selector "h3 > a::attr(href": ::attr(name) or ::text may only appear once, at the end (e.g. "a::attr(href)")');
    expect(thrown(() => checkSelectorSpec('div##x')).message).toContain('"div##x" is not a valid CSS selector');
  });

  it('refuses a non-string with a 400', () => {
    expect(thrown(() => checkSelectorSpec(7 as unknown as string)).status).toBe(400);
  });
});

describe('parseCrawlSelectors (changeCrawlSelectors)', () => {
  it('trims and keeps valid selectors, empty ones mean absent', () => {
    expect(parseCrawlSelectors({ listRow: ' li.item ', title: 'h3 > a', link: '' })).toEqual({ listRow: 'li.item', title: 'h3 > a' });
  });

  it('names every rule failure as createCrawlJob does (422)', () => {
    expect(problemsOf(thrown(() => parseCrawlSelectors({ title: 'h3', tilte: 'a' }))).map((p) => p.pointer)).toEqual(['/selectors/tilte', '/selectors/listRow']);
    expect(problemsOf(thrown(() => parseCrawlSelectors({ listRow: 'li::text' }))).map((p) => p.pointer)).toEqual(['/selectors/listRow']);
  });

  it('answers members of the wrong JSON type with 400', () => {
    const error = thrown(() => parseCrawlSelectors({ listRow: 7 }));
    expect(error.status).toBe(400);
    expect(error.extensions.errors).toEqual([{ pointer: '/selectors/listRow', detail: 'listRow must be a string; got 7' }]);
  });
});
