import { describe, expect, it } from '@jest/globals';
import { checkDate, findBadText, jsonTooDeep, parseClientJson, textProblem } from './input-guard.js';

describe('the text rule', () => {
  it('accepts text, including astral characters written as surrogate pairs', () => {
    expect(textProblem('Grüße 👋 日本')).toBeUndefined();
  });

  it('refuses NUL characters and unpaired surrogates, high or low', () => {
    expect(textProblem('a\u0000b')).toBe('contains a NUL character');
    expect(textProblem('a\ud800b')).toBe('contains an unpaired UTF-16 surrogate');
    expect(textProblem('\udc00')).toBe('contains an unpaired UTF-16 surrogate');
  });

  it('names the first bad string or key as a JSON pointer', () => {
    expect(findBadText({ a: ['ok', { 'b/c': 'x\u0000' }] })).toEqual({ pointer: '/a/1/b~1c', detail: 'contains a NUL character' });
    expect(findBadText({ ['k\ud800']: 1 })).toEqual({ pointer: '/k\ud800', detail: 'its name contains an unpaired UTF-16 surrogate' });
    expect(findBadText({ a: [1, true, null, 'fine'] })).toBeUndefined();
  });
});

describe('client JSON', () => {
  it('measures nesting outside strings only', () => {
    expect(jsonTooDeep(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false);
    expect(jsonTooDeep(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true);
    expect(jsonTooDeep(JSON.stringify({ s: '[[[[['.repeat(100) }))).toBe(false);
    expect(jsonTooDeep(JSON.stringify({ s: 'quote \\" then [[[[' }))).toBe(false);
  });

  it('refuses deep, malformed and badly encoded bodies with a 400 saying which', () => {
    expect(() => parseClientJson(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)).toThrow(/nests deeper than 64 levels/);
    expect(() => parseClientJson('{"a":')).toThrow(/not valid JSON/);
    expect(() => parseClientJson('{"a":"\\u0000"}')).toThrow(/at \/a: it contains a NUL character/);
    expect(parseClientJson('{"a":[1,"b"]}')).toEqual({ a: [1, 'b'] });
  });

  it('finds a bad string however it was written: escaped, raw, in a value or in a name', () => {
    // The walk over the parsed value is skipped for text without \\u escapes that is well formed;
    // every way of writing a bad string still reaches it.
    expect(() => parseClientJson('{"a":["ok","\\u0000"]}')).toThrow(/at \/a\/1: it contains a NUL character/);
    expect(() => parseClientJson('{"a":"\\ud800"}')).toThrow(/at \/a: it contains an unpaired UTF-16 surrogate/);
    expect(() => parseClientJson('{"a":"\ud800"}')).toThrow(/at \/a: it contains an unpaired UTF-16 surrogate/);
    expect(() => parseClientJson('{"\\udc00x":1}')).toThrow(/at \/\udc00x: it its name contains an unpaired UTF-16 surrogate/);
    expect(() => parseClientJson('{"a":"raw \u0000 NUL"}')).toThrow(/not valid JSON/);
    // Escapes that are fine, and an escaped backslash before a u, pass.
    expect(parseClientJson('{"a":"\\u00e9\\ud83d\\udc4b","b":"\\\\u0000"}')).toEqual({ a: 'é👋', b: '\\u0000' });
    expect(parseClientJson('{"a":"Grüße 👋"}')).toEqual({ a: 'Grüße 👋' });
  });

  it('keeps dates within the years 1 to 9999', () => {
    expect(checkDate(new Date('2026-01-01'), 'from').getUTCFullYear()).toBe(2026);
    expect(() => checkDate(new Date(8.64e15), 'from')).toThrow(/from must be a date between the years 1 and 9999/);
    expect(() => checkDate(new Date('nope'), 'to')).toThrow(/to must be/);
  });
});
