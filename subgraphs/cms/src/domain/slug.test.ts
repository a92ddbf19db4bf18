import { describe, expect, it } from '@jest/globals';
import { SvcError, type FieldProblem } from '@svc/kit';
import { thrown as thrownSvcError } from '@svc/kit/testing/thrown';
import { checkSiteKey, checkSlug } from './slug.js';

function thrown(fn: () => unknown): SvcError {
  const error = thrownSvcError(fn);
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.extensions.status).toBe(422);
  return error;
}

describe('checkSlug', () => {
  it.each(['welcome', 'a', '2024', 'summer-sale-2024', 'a-b-c', 'x'.repeat(200)])('accepts %j and returns it', (slug) => {
    expect(checkSlug(slug)).toBe(slug);
  });

  it.each(['', 'Welcome', 'summer sale', 'summer_sale', '-lead', 'trail-', 'dou--ble', 'café', 'a/b', 'x'.repeat(201), ' welcome'])(
    'refuses %j with a 422 naming the slug',
    (slug) => {
      const error = thrown(() => checkSlug(slug));
      const errors = error.extensions.errors as FieldProblem[];
      expect(errors).toHaveLength(1);
      expect(errors[0]!.pointer).toBe('/slug');
      expect(errors[0]!.detail).toContain(JSON.stringify(slug));
      expect(errors[0]!.detail).toMatch(/^slug must be lower-case words joined by dashes/);
    },
  );

  it('uses the given JSON pointer', () => {
    const error = thrown(() => checkSlug('Bad Slug', '/input/slug'));
    expect((error.extensions.errors as FieldProblem[])[0]!.pointer).toBe('/input/slug');
  });
});

describe('checkSiteKey', () => {
  it.each(['demo', 'ab', '0site', 'my-site', 'a'.repeat(63)])('accepts %j', (key) => {
    expect(checkSiteKey(key)).toBe(key);
  });

  it.each(['', 'a', '-demo', 'Demo', 'my_site', 'my site', 'a'.repeat(64), 'dé'])('refuses %j', (key) => {
    const error = thrown(() => checkSiteKey(key));
    expect(error.extensions.errors).toEqual([
      { pointer: '/siteKey', detail: `siteKey must be 2-63 lower-case letters, digits or dashes; got ${JSON.stringify(key)}` },
    ]);
  });

  it('uses the given JSON pointer', () => {
    const error = thrown(() => checkSiteKey('X', '/site'));
    expect((error.extensions.errors as FieldProblem[])[0]!.pointer).toBe('/site');
  });
});
