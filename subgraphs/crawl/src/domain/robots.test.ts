import { describe, expect, it } from '@jest/globals';
import {
  ROBOTS_MAX_BYTES,
  SVC_PRODUCT_TOKEN,
  SVC_USER_AGENT,
  allowAllPolicy,
  createRobotsPolicy,
  matchesPattern,
  normalizeRobotsPath,
  parseRobots,
  productToken,
  robotsPolicyFromFetch,
  selectGroups,
  truncateRobots,
} from './robots.js';

const lines = (...l: string[]) => l.join('\n');

describe('the crawler identity', () => {
  it('sends an identifying User-Agent whose product token selects groups', () => {
    expect(SVC_USER_AGENT).toBe('SvcPlatformCrawler/1.0 (+https://github.com/svc-platform)');
    expect(SVC_PRODUCT_TOKEN).toBe('SvcPlatformCrawler');
    expect(productToken(SVC_USER_AGENT)).toBe(SVC_PRODUCT_TOKEN);
  });

  it('matches its group case-insensitively, with or without a version, by default', () => {
    for (const ua of ['SvcPlatformCrawler', 'svcplatformcrawler', 'SvcPlatformCrawler/2.0']) {
      const policy = createRobotsPolicy(lines(`User-agent: ${ua}`, 'Disallow: /private'));
      expect(policy.isAllowed('https://example.com/private/x')).toBe(false);
      expect(policy.isAllowed('https://example.com/public')).toBe(true);
    }
  });

  it('does not take a longer token (SvcPlatformCrawler-Images) for its own', () => {
    const policy = createRobotsPolicy(lines('User-agent: SvcPlatformCrawler-Images', 'Disallow: /'));
    expect(policy.isAllowed('/anything')).toBe(true);
  });
});

describe('RFC 9309 section 5.1 (simple example)', () => {
  const robots = lines(
    'User-Agent: *',
    'Disallow: *.gif$',
    'Disallow: /example/',
    'Allow: /publications/',
    '',
    'User-Agent: foobot',
    'Disallow:/',
    'Allow:/example/page.html',
    'Allow:/example/allowed.gif',
    '',
    'User-Agent: barbot',
    'User-Agent: bazbot',
    'Disallow: /example/page.html',
    '',
    'User-Agent: quxbot',
    '',
    'EOF',
  );

  it('foobot: disallowed everywhere except the two allowed pages', () => {
    const policy = createRobotsPolicy(robots, 'foobot');
    expect(policy.isAllowed('/example/page.html')).toBe(true);
    expect(policy.isAllowed('/example/allowed.gif')).toBe(true);
    expect(policy.isAllowed('/example/other.html')).toBe(false);
    expect(policy.isAllowed('/')).toBe(false);
    expect(policy.isAllowed('/publications/')).toBe(false);
  });

  it.each(['barbot', 'bazbot'])('%s: the shared group disallows only /example/page.html (the * group does not apply)', (bot) => {
    const policy = createRobotsPolicy(robots, bot);
    expect(policy.isAllowed('/example/page.html')).toBe(false);
    expect(policy.isAllowed('/example/other.html')).toBe(true);
    expect(policy.isAllowed('/picture.gif')).toBe(true);
  });

  it('quxbot: an empty group allows everything', () => {
    const policy = createRobotsPolicy(robots, 'quxbot');
    expect(policy.isAllowed('/example/page.html')).toBe(true);
    expect(policy.isAllowed('/a.gif')).toBe(true);
  });

  it('any other crawler (ours) gets the * group', () => {
    const policy = createRobotsPolicy(robots);
    expect(policy.isAllowed('/picture.gif')).toBe(false);
    expect(policy.isAllowed('/images/picture.gif')).toBe(false);
    expect(policy.isAllowed('/picture.gif?size=2')).toBe(true); // $ anchors the end of path+query
    expect(policy.isAllowed('/example/')).toBe(false);
    expect(policy.isAllowed('/example/page.html')).toBe(false);
    expect(policy.isAllowed('/publications/')).toBe(true);
    expect(policy.isAllowed('/')).toBe(true);
  });
});

describe('RFC 9309 section 5.2 (longest match)', () => {
  const policy = createRobotsPolicy(lines('User-Agent: foobot', 'Allow: /example/page/', 'Disallow: /example/page/disallowed.gif'), 'foobot');

  it('the most specific rule wins, whichever comes first', () => {
    expect(policy.isAllowed('/example/page/')).toBe(true);
    expect(policy.isAllowed('/example/page/other.gif')).toBe(true);
    expect(policy.isAllowed('/example/page/disallowed.gif')).toBe(false);
  });

  it('order in the file does not matter', () => {
    const reversed = createRobotsPolicy(lines('User-Agent: foobot', 'Disallow: /example/page/disallowed.gif', 'Allow: /example/page/'), 'foobot');
    expect(reversed.isAllowed('/example/page/disallowed.gif')).toBe(false);
    expect(reversed.isAllowed('/example/page/x')).toBe(true);
  });

  it('allow wins over an equally long disallow (RFC 9309 2.2.2)', () => {
    const tie = createRobotsPolicy(lines('User-agent: *', 'Disallow: /page', 'Allow: /page'));
    expect(tie.isAllowed('/page')).toBe(true);
    const tieWildcards = createRobotsPolicy(lines('User-agent: *', 'Allow: /a*', 'Disallow: /*b'));
    expect(tieWildcards.isAllowed('/ab')).toBe(true);
  });

  it('a longer wildcard disallow beats a shorter allow', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Allow: /shop', 'Disallow: /shop/*/cart'));
    expect(p.isAllowed('/shop/eu/cart')).toBe(false);
    expect(p.isAllowed('/shop/eu/items')).toBe(true);
  });
});

describe('RFC 9309 section 2.2.1 (user-agent groups)', () => {
  it('merges every group naming the crawler', () => {
    const p = createRobotsPolicy(
      lines('user-agent: ExampleBot', 'disallow: /foo', 'disallow: /bar', '', 'user-agent: OtherBot', 'disallow: /other', '', 'user-agent: ExampleBot', 'disallow: /baz'),
      'ExampleBot',
    );
    expect(['/foo', '/bar', '/baz'].map((path) => p.isAllowed(path))).toEqual([false, false, false]);
    expect(p.isAllowed('/other')).toBe(true);
  });

  it('merges several * groups when none names the crawler', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /a', 'User-agent: somebot', 'Disallow: /b', 'User-agent: *', 'Disallow: /c'));
    expect([p.isAllowed('/a'), p.isAllowed('/b'), p.isAllowed('/c')]).toEqual([false, true, false]);
  });

  it('ignores rules before the first user-agent line', () => {
    const p = createRobotsPolicy(lines('Disallow: /', 'User-agent: *', 'Disallow: /private'));
    expect(p.isAllowed('/public')).toBe(true);
  });

  it('allows everything when no group applies', () => {
    expect(createRobotsPolicy(lines('User-agent: otherbot', 'Disallow: /')).isAllowed('/x')).toBe(true);
    expect(createRobotsPolicy('').isAllowed('/x')).toBe(true);
  });

  it('keeps a group open across sitemap and unknown lines, and starts a new one after rules', () => {
    const parsed = parseRobots(
      lines('User-agent: a', 'Sitemap: https://example.com/sitemap.xml', 'Foo: bar', 'User-agent: b', 'Disallow: /x', 'User-agent: c', 'Allow: /y'),
    );
    expect(parsed.groups.map((g) => g.userAgents)).toEqual([['a', 'b'], ['c']]);
    expect(parsed.sitemaps).toEqual(['https://example.com/sitemap.xml']);
  });

  it('selects groups by product token', () => {
    const parsed = parseRobots(lines('User-agent: *', 'Disallow: /', 'User-agent: SvcPlatformCrawler/1.0', 'Allow: /'));
    expect(selectGroups(parsed, SVC_USER_AGENT).map((g) => g.userAgents)).toEqual([['SvcPlatformCrawler/1.0']]);
    expect(selectGroups(parsed, 'other').map((g) => g.userAgents)).toEqual([['*']]);
  });
});

describe('RFC 9309 section 2.2.3 (special characters) and syntax', () => {
  it('"#" starts a comment', () => {
    const p = createRobotsPolicy(lines('# robots for example.com', 'User-agent: * # everyone', 'Disallow: /private # keep out', 'Disallow: # nothing'));
    expect(p.isAllowed('/private')).toBe(false);
    expect(p.isAllowed('/public#/private')).toBe(true); // the fragment is not part of the path
    expect(p.isAllowed('/public')).toBe(true);
  });

  it('"$" at the end matches the end of the path; elsewhere it is literal', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /', 'Allow: /this/path/exactly$', 'Allow: /a$b'));
    expect(p.isAllowed('/this/path/exactly')).toBe(true);
    expect(p.isAllowed('/this/path/exactly/')).toBe(false);
    expect(p.isAllowed('/this/path/exactly?x')).toBe(false);
    expect(p.isAllowed('/a$b/c')).toBe(true);
  });

  it('"*" matches any run of characters, including none', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /', 'Allow: /this/*/exactly'));
    expect(p.isAllowed('/this/path/exactly')).toBe(true);
    expect(p.isAllowed('/this/path/to/exactly')).toBe(true);
    expect(p.isAllowed('/this//exactly')).toBe(true);
    expect(p.isAllowed('/this/exactly')).toBe(false);
  });

  it('an empty Disallow matches nothing', () => {
    expect(createRobotsPolicy(lines('User-agent: *', 'Disallow:')).isAllowed('/anything')).toBe(true);
  });

  it('reads keys case-insensitively, tolerates spacing, CRLF, CR and a BOM', () => {
    const p = createRobotsPolicy('\uFEFFUSER-AGENT :   *  \r\nDISALLOW:/a\rdisallow :  /b  \n');
    expect([p.isAllowed('/a'), p.isAllowed('/b'), p.isAllowed('/c')]).toEqual([false, false, true]);
  });

  it('accepts the common "useragent" spelling', () => {
    expect(createRobotsPolicy(lines('useragent: *', 'disallow: /x')).isAllowed('/x')).toBe(false);
  });

  it('matches the query string too', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /*?sessionid=', 'Disallow: /search?'));
    expect(p.isAllowed('/page?sessionid=1')).toBe(false);
    expect(p.isAllowed('/page?x=1')).toBe(true);
    expect(p.isAllowed('/search?q=a')).toBe(false);
    expect(p.isAllowed('/search')).toBe(true);
  });

  it('always allows /robots.txt', () => {
    expect(createRobotsPolicy(lines('User-agent: *', 'Disallow: /')).isAllowed('https://example.com/robots.txt')).toBe(true);
  });

  it('takes absolute URLs and paths, and refuses what does not parse', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /x'));
    expect(p.isAllowed('https://example.com/x/y')).toBe(false);
    expect(p.isAllowed('/x/y')).toBe(false);
    expect(p.isAllowed('https://exa mple.com/')).toBe(false);
  });
});

describe('RFC 9309 section 2.2.2 (percent-encoding)', () => {
  it.each([
    ['/foo/bar?baz=quz', '/foo/bar?baz=quz'],
    ['/foo/bar?baz=https%3a%2f%2ffoo.bar', '/foo/bar?baz=https%3A%2F%2Ffoo.bar'], // reserved: stay encoded, hex upper-cased
    ['/foo/jalapeño', '/foo/jalape%C3%B1o'],
    ['/foo/%E3%83%84', '/foo/%E3%83%84'],
    ['/foo/\u30C4', '/foo/%E3%83%84'],
    ['/foo/%62%61%7A', '/foo/baz'], // unreserved: decoded
    ['/a b', '/a%20b'],
    ['/100%', '/100%25'],
  ])('normalises %j to %j', (input, output) => {
    expect(normalizeRobotsPath(input)).toBe(output);
  });

  it('matches UTF-8 patterns against percent-encoded URLs and vice versa', () => {
    const p = createRobotsPolicy(lines('User-agent: *', 'Disallow: /foo/jalapeño', 'Disallow: /bar/%E3%83%84', 'Disallow: /%7Euser'));
    expect(p.isAllowed('https://example.com/foo/jalape%C3%B1o')).toBe(false);
    expect(p.isAllowed('https://example.com/foo/jalapeño')).toBe(false);
    expect(p.isAllowed('https://example.com/bar/\u30C4')).toBe(false);
    expect(p.isAllowed('https://example.com/~user/')).toBe(false);
    expect(p.isAllowed('https://example.com/foo/jalapeno')).toBe(true);
  });
});

describe('matchesPattern', () => {
  it.each([
    ['/fish', '/fish', true],
    ['/fish.html', '/fish', true],
    ['/Fish', '/fish', false], // paths are case-sensitive
    ['/catfish', '/fish', false],
    ['/fish/salmon.php', '/*.php', true],
    ['/fish.php?x', '/*.php$', false],
    ['/fish.php', '/*.php$', true],
    ['/', '*', true],
    ['/x', '/x$', true],
    ['/xy', '/x$', false],
    ['/a/b/c', '/*/*/c$', true],
  ])('%s against %s → %s', (path, pattern, expected) => {
    expect(matchesPattern(path, pattern)).toBe(expected);
  });

  it('stays fast on hostile patterns that would make a backtracking regex explode', () => {
    const path = `/${'a'.repeat(5_000)}`;
    const pattern = `/${'*a'.repeat(200)}b`;
    const started = Date.now();
    expect(matchesPattern(path, pattern)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('crawl-delay', () => {
  it('is read from the chosen group, in milliseconds', () => {
    const text = lines('User-agent: *', 'Crawl-delay: 10', '', 'User-agent: SvcPlatformCrawler', 'Crawl-delay: 2.5', 'Disallow: /tmp');
    expect(createRobotsPolicy(text).crawlDelayMs()).toBe(2500);
    expect(createRobotsPolicy(text, 'otherbot').crawlDelayMs()).toBe(10_000);
  });

  it('takes the largest of several, ignores malformed values, and is undefined when absent', () => {
    expect(createRobotsPolicy(lines('User-agent: *', 'Crawl-delay: 1', 'Crawl-delay: 3', 'User-agent: *', 'Crawl-delay: 2')).crawlDelayMs()).toBe(3000);
    expect(createRobotsPolicy(lines('User-agent: *', 'Crawl-delay: soon', 'Crawl-delay: -1')).crawlDelayMs()).toBeUndefined();
    expect(createRobotsPolicy(lines('User-agent: *', 'Disallow: /x')).crawlDelayMs()).toBeUndefined();
  });

  it('does not borrow the * group delay when a named group applies', () => {
    const text = lines('User-agent: *', 'Crawl-delay: 10', 'User-agent: SvcPlatformCrawler', 'Disallow: /x');
    expect(createRobotsPolicy(text).crawlDelayMs()).toBeUndefined();
  });
});

describe('size cap (RFC 9309 2.5)', () => {
  it('parses only the first 500 KiB, dropping the line the cut splits', () => {
    expect(ROBOTS_MAX_BYTES).toBe(512_000);
    const head = lines('User-agent: *', 'Disallow: /early', '');
    // One long comment line that ends 10 bytes before the limit, so the next rule straddles it.
    const padding = `#${'x'.repeat(ROBOTS_MAX_BYTES - 10 - head.length - 2)}\n`;
    const text = `${head}${padding}Disallow: /late-but-cut\nDisallow: /after-the-limit\n`;
    expect(new TextEncoder().encode(`${head}${padding}`).length).toBe(ROBOTS_MAX_BYTES - 10);
    const policy = createRobotsPolicy(text);
    expect(policy.isAllowed('/early')).toBe(false);
    expect(policy.isAllowed('/late-but-cut')).toBe(true);
    expect(policy.isAllowed('/after-the-limit')).toBe(true);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const line = `# ${'é'.repeat(50)}\n`; // 103 bytes, 53 characters
    const text = line.repeat(6000);
    const cut = truncateRobots(text);
    expect(new TextEncoder().encode(cut).length).toBeLessThanOrEqual(ROBOTS_MAX_BYTES);
    expect(cut.endsWith('\n')).toBe(true);
    expect(cut.length).toBe(line.length * Math.floor(ROBOTS_MAX_BYTES / 103));
    expect(truncateRobots('short\nfile')).toBe('short\nfile');
  });
});

describe('how the fetch went (RFC 9309 2.3.1)', () => {
  const body = lines('User-agent: *', 'Disallow: /private');

  it('2xx: the body is parsed', () => {
    const p = robotsPolicyFromFetch({ status: 200, body });
    expect(p.source).toBe('parsed');
    expect(p.isAllowed('/private')).toBe(false);
    expect(p.isAllowed('/public')).toBe(true);
  });

  it.each([404, 410, 401, 403, 400, 301])('%s: treated as no robots.txt, everything allowed', (status) => {
    const p = robotsPolicyFromFetch({ status, body });
    expect(p.source).toBe('missing');
    expect(p.isAllowed('/private')).toBe(true);
  });

  it.each([500, 502, 503, 429, 199])('%s: everything disallowed but /robots.txt', (status) => {
    const p = robotsPolicyFromFetch({ status, body: '' });
    expect(p.source).toBe('unreachable');
    expect(p.isAllowed('/')).toBe(false);
    expect(p.isAllowed('/public')).toBe(false);
    expect(p.isAllowed('/robots.txt')).toBe(true);
    expect(p.crawlDelayMs()).toBeUndefined();
  });

  it('a network failure disallows everything', () => {
    const p = robotsPolicyFromFetch({ unreachable: true, error: new Error('ECONNREFUSED') });
    expect(p.source).toBe('unreachable');
    expect(p.isAllowed('/')).toBe(false);
  });

  it('createRobotsPolicy(null) means there is no robots.txt', () => {
    const p = createRobotsPolicy(null);
    expect(p.source).toBe('missing');
    expect(p.isAllowed('/anything')).toBe(true);
  });

  it('a job that ignores robots.txt allows everything', () => {
    const p = allowAllPolicy();
    expect(p.source).toBe('ignored');
    expect(p.isAllowed('/private')).toBe(true);
  });

  it('lists sitemaps from a parsed body', () => {
    const p = createRobotsPolicy(lines('Sitemap: https://example.com/a.xml', 'User-agent: *', 'Disallow:', 'Sitemap: https://example.com/b.xml'));
    expect(p.sitemaps).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml']);
  });
});
