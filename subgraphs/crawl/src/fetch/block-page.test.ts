import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { BLOCK_KINDS, RULES, SMALL_TEXT, createShellTracker, detectBlock, pageSignals } from './block-page.js';

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/${name}`, import.meta.url), 'utf8');
const URL_ = 'https://shop.example/catalogue';
const judge = (html: string, status = 200, headers: Record<string, string> = {}, url = URL_) => detectBlock({ url, status, headers, html });

/** One fixture per rule: the answer a site gives, and what it must be judged. */
const CASES: { rule: string; fixture: string; status: number; headers?: Record<string, string>; kind: string; says: RegExp }[] = [
  { rule: 'vendor-challenge', fixture: 'blocked/cloudflare-challenge.html', status: 403, headers: { server: 'cloudflare', 'cf-ray': '8a1b' }, kind: 'challenge', says: /Cloudflare/ },
  { rule: 'vendor-challenge', fixture: 'blocked/datadome-captcha.html', status: 200, kind: 'challenge', says: /DataDome/ },
  { rule: 'vendor-challenge', fixture: 'blocked/access-denied.html', status: 403, headers: { server: 'AkamaiGHost' }, kind: 'challenge', says: /Akamai/ },
  { rule: 'captcha-widget', fixture: 'blocked/recaptcha-wall.html', status: 200, kind: 'captcha', says: /g-recaptcha/ },
  { rule: 'status-429', fixture: 'blocked/rate-limited.html', status: 429, headers: { 'retry-after': '120' }, kind: 'rate-limited', says: /429.*Retry-After: 120/ },
  { rule: 'status-401', fixture: 'blocked/login-wall.html', status: 401, headers: { 'www-authenticate': 'Bearer realm="partners"' }, kind: 'login-wall', says: /401/ },
  { rule: 'status-403', fixture: 'blocked/rate-limited.html', status: 403, kind: 'access-denied', says: /403 Forbidden: "Too Many Requests"/ },
  { rule: 'challenge-words', fixture: 'blocked/checking-browser.html', status: 503, kind: 'challenge', says: /Checking your browser/i },
  { rule: 'self-refresh', fixture: 'blocked/refresh-loop.html', status: 200, kind: 'refresh-loop', says: /reloads itself after 1 s/ },
  { rule: 'login-form', fixture: 'blocked/login-wall.html', status: 200, kind: 'login-wall', says: /sign-in form \("Sign in"\)/ },
  { rule: 'javascript-required', fixture: 'blocked/javascript-shell.html', status: 200, kind: 'javascript-required', says: /enable JavaScript/ },
  { rule: 'soft-404', fixture: 'blocked/soft-404.html', status: 200, kind: 'soft-404', says: /HTTP 200.*Page not found/ },
  { rule: 'consent-interstitial', fixture: 'blocked/consent-interstitial.html', status: 200, kind: 'consent', says: /onetrust/ },
];

describe('block and challenge pages', () => {
  it.each(CASES)('$rule: $fixture with HTTP $status is $kind', ({ rule, fixture: name, status, headers, kind, says }) => {
    const verdict = judge(fixture(name), status, headers);
    expect(verdict).toMatchObject({ rule, kind });
    expect(verdict!.reason).toMatch(says);
  });

  it('has a fixture for every rule, and every kind is reachable', () => {
    expect(new Set(CASES.map((c) => c.rule))).toEqual(new Set(RULES.map((r) => r.name)));
    expect(new Set([...CASES.map((c) => c.kind), 'repeated-shell'])).toEqual(new Set(BLOCK_KINDS));
  });

  it('an article that discusses captchas, "checking your browser", login walls and 404 pages is content', () => {
    const article = fixture('blocked/article-mentions-captcha.html');
    expect(judge(article)).toBeNull();
    // The same article with a cookie banner, a sign-in box in its header and a captcha on its comment form.
    const furnished = article
      .replace('<body>', '<body><div id="onetrust-banner-sdk"><p>We use cookies.</p><button>Accept</button></div><form action="/session"><input type="password" name="p"></form>')
      .replace('</article>', '<form class="comments"><textarea></textarea><div class="g-recaptcha" data-sitekey="x"></div></form></article>');
    expect(judge(furnished)).toBeNull();
  });

  it('ordinary pages are content: a news list, a short product page, a 503 without a challenge', () => {
    expect(judge(fixture('v1.html'))).toBeNull();
    expect(judge('<html><head><title>Blue mug</title></head><body><h1>Blue mug</h1><p>Stoneware, 350 ml. 12.00 EUR.</p></body></html>')).toBeNull();
    expect(judge('<html><body><h1>Service unavailable</h1><p>We are updating the shop.</p></body></html>', 503)).toBeNull();
    // A redirect page pointing elsewhere is not a loop.
    expect(judge('<html><head><meta http-equiv="refresh" content="0; url=/new-home"></head><body>Moved.</body></html>')).toBeNull();
  });

  it('reads its signals in one pass whatever the markup: unclosed tags, entities, huge pages', () => {
    const signals = pageSignals({ url: URL_, status: 200, headers: {}, html: '<title>A &amp; B</title><body><h1>Head<p>Text <script>var x = "<h1>no</h1>";</script>more' });
    expect(signals).toMatchObject({ title: 'A & B', scripts: 1 });
    expect(signals.text).toBe('Head Text more');
    // A page longer than what is read for signals is never small: its tail is not needed to judge it.
    const huge = `<html><head><script>${'x'.repeat(600_000)}</script></head><body><p>An article.</p></body></html>`;
    expect(pageSignals({ url: URL_, status: 200, headers: {}, html: huge }).textLength).toBeGreaterThanOrEqual(SMALL_TEXT);
    expect(judge(huge)).toBeNull();
    const long = `<html><body>${'<div class="row"><p>word</p></div>'.repeat(50_000)}</body></html>`;
    expect(pageSignals({ url: URL_, status: 200, headers: {}, html: long }).text).toMatch(/^word word/);
  });

  it('a text that many URLs of one host answer alike is a shell; other hosts and other texts are not', () => {
    const shells = createShellTracker();
    const text = 'Temporarily unavailable. Try again later.';
    for (const n of [1, 2]) shells.add(`https://a.example/p/${n}`, text);
    shells.add('https://b.example/p/3', text);
    shells.add('https://a.example/p/4', 'A different short page.');
    expect(shells.verdict('https://a.example/p/1', text)).toBeNull();
    shells.add('https://a.example/p/5', ` ${text}\n`);
    expect(shells.verdict('https://a.example/p/1', text)).toMatchObject({ kind: 'repeated-shell', reason: expect.stringContaining('3 pages of a.example') });
    expect(shells.verdict('https://b.example/p/3', text)).toBeNull();
    expect(shells.verdict('https://a.example/p/4', 'A different short page.')).toBeNull();
  });
});
