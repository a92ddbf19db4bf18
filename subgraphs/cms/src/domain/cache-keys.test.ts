import { describe, expect, it } from '@jest/globals';
import { contentSurrogateKey, deliveryKey, etagOf, localeSurrogateKey, surrogateKeys } from './cache-keys.js';

describe('etagOf', () => {
  const body = { slug: 'welcome', title: 'Welcome', version: 3, fields: { headline: 'Hi' } };

  it('is a quoted strong ETag of 27 base64url characters', () => {
    expect(etagOf(body)).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('is stable for equal bodies (same value, different objects)', () => {
    const copy = JSON.parse(JSON.stringify(body)) as typeof body;
    expect(copy).not.toBe(body);
    expect(etagOf(copy)).toBe(etagOf(body));
    expect(etagOf(body)).toBe(etagOf(body));
  });

  it('differs when any part of the body differs', () => {
    const tags = new Set([
      etagOf(body),
      etagOf({ ...body, version: 4 }),
      etagOf({ ...body, title: 'Welcome!' }),
      etagOf({ ...body, fields: { headline: 'Hi!' } }),
      etagOf({ ...body, extra: null }),
      etagOf('welcome'),
      etagOf([body]),
    ]);
    expect(tags.size).toBe(7);
  });
});

describe('surrogate and cache keys', () => {
  it('tags a delivered content per slug asked for, per site, and per locale it read', () => {
    expect(surrogateKeys('demo', 'welcome')).toEqual(['svc-content-demo-welcome', 'svc-site-demo']);
    expect(surrogateKeys('demo', 'welcome')[0]).toBe(contentSurrogateKey('demo', 'welcome'));
    const group = '0b9c3c52-9a55-4d6e-8f0e-1d2c3b4a5f60';
    expect(surrogateKeys('demo', 'preise', group, ['de-AT', 'de', 'en'])).toEqual([
      'svc-content-demo-preise', 'svc-site-demo', `svc-locale-demo-${group}-de-AT`, `svc-locale-demo-${group}-de`, `svc-locale-demo-${group}-en`,
    ]);
    expect(localeSurrogateKey('demo', group, 'de')).not.toBe(localeSurrogateKey('demo', group, 'de-AT'));
  });

  it('keeps keys of different contents and sites apart', () => {
    expect(contentSurrogateKey('demo', 'a')).not.toBe(contentSurrogateKey('demo', 'b'));
    expect(contentSurrogateKey('one', 'a')).not.toBe(contentSurrogateKey('two', 'a'));
    expect(surrogateKeys('one', 'a')[1]).not.toBe(surrogateKeys('two', 'a')[1]);
  });

  it('surrogate keys contain no whitespace or commas (xkey and Cache-Tag separators)', () => {
    for (const key of surrogateKeys('my-site', 'summer-sale-2024', '0b9c3c52-9a55-4d6e-8f0e-1d2c3b4a5f60', ['zh-Hant-TW'])) expect(key).toMatch(/^[A-Za-z0-9-]+$/);
  });

  it('names the Redis delivery key by site, slug and the locale asked for', () => {
    expect(deliveryKey('demo', 'welcome', 'en')).toBe('cms:delivery:demo:welcome:en');
    expect(deliveryKey('demo', 'a', 'en')).not.toBe(deliveryKey('other', 'a', 'en'));
    expect(deliveryKey('demo', 'a', 'en')).not.toBe(deliveryKey('demo', 'a', 'de'));
  });
});
