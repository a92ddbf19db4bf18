import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { envelopeHalves, rootFieldText, selectsOneRootField, spliced } from './splice.js';

describe('rootFieldText', () => {
  it('returns the root field of any JSON value exactly as JSON.stringify writes it', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.boolean(), (value, newline) => {
      const body = `${JSON.stringify({ data: { actionProposals: value } })}${newline ? '\n' : ''}`;
      const found = rootFieldText(body, 'actionProposals');
      expect(found).toBe(JSON.stringify(value));
    }), { numRuns: 500 });
  });

  it('keeps strings holding quotes, escaped backslashes and brackets', () => {
    const value = { title: 'a "quoted" } ] word \\', path: '\\\\"', more: ['[', '{', '\\"}}'], emoji: '😀\u2028' };
    const found = rootFieldText(JSON.stringify({ data: { x: value } }), 'x');
    expect(JSON.parse(found!)).toEqual(value);
  });

  it('refuses an answer with errors, extensions or another field, so it is parsed instead', () => {
    expect(rootFieldText('{"errors":[{"message":"no"}],"data":{"x":null}}', 'x')).toBeUndefined();
    expect(rootFieldText('{"data":{"x":[1,2]},"extensions":{"a":1}}', 'x')).toBeUndefined();
    expect(rootFieldText('{"data":{"y":{"a":1}}}', 'x')).toBeUndefined();
    expect(rootFieldText('{"data":{"x":{"a":1}}}garbage', 'x')).toBeUndefined();
    expect(rootFieldText('{"data":null}', 'x')).toBeUndefined();
    // A value with a member of that name is parsed too: slower, never wrong.
    expect(rootFieldText(JSON.stringify({ data: { x: { errors: [] } } }), 'x')).toBeUndefined();
    // In a string the quotes are escaped, so the text is no member.
    expect(rootFieldText(JSON.stringify({ data: { x: { note: 'see "errors": below' } } }), 'x')).toBe('{"note":"see \\"errors\\": below"}');
  });

  it('refuses an answer cut before its end', () => {
    const whole = JSON.stringify({ data: { x: [{ a: 'b' }, { c: [1, 2, 3] }] } });
    for (let n = 0; n < whole.length - 1; n++) expect(rootFieldText(whole.slice(0, n), 'x')).toBeUndefined();
  });

  it('passes scalar and null fields', () => {
    expect(rootFieldText('{"data":{"x":null}}\n', 'x')).toBe('null');
    expect(rootFieldText('{"data":{"x":-1.5e3}}', 'x')).toBe('-1.5e3');
    expect(rootFieldText('{"data":{"x":"a}"}}', 'x')).toBe('"a}"');
  });
});

describe('envelopeHalves', () => {
  it('puts the payload bytes where the envelope holds its payload', () => {
    const halves = envelopeHalves((payload) => ({ code: 200, message: 'OK', data: payload }))!;
    const payload = [{ id: 'a', note: 'ü "x"' }];
    expect(spliced(halves, JSON.stringify(payload))).toBe(JSON.stringify({ code: 200, message: 'OK', data: payload }));
  });

  it('is the whole body for an envelope that is the payload', () => {
    const halves = envelopeHalves((payload) => payload)!;
    expect(spliced(halves, '{"a":1}')).toBe('{"a":1}');
  });

  it('refuses an envelope that holds the payload twice or not at all', () => {
    expect(envelopeHalves((payload) => ({ a: payload, b: payload }))).toBeUndefined();
    expect(envelopeHalves(() => ({ a: 1 }))).toBeUndefined();
  });
});

describe('selectsOneRootField', () => {
  it('holds for an operation selecting the field alone', () => {
    expect(selectsOneRootField('query A($n: Int) { actions(first: $n) { id } }', 'A', 'actions')).toBe(true);
  });

  it('fails for two root fields, an alias, a directive, a fragment, another field or another operation', () => {
    expect(selectsOneRootField('query A { actions { id } jobs { id } }', 'A', 'actions')).toBe(false);
    expect(selectsOneRootField('query A { actions: jobs { id } }', 'A', 'actions')).toBe(false);
    expect(selectsOneRootField('query A($x: Boolean!) { actions @include(if: $x) { id } }', 'A', 'actions')).toBe(false);
    expect(selectsOneRootField('query A { ...F } fragment F on Query { actions { id } }', 'A', 'actions')).toBe(false);
    expect(selectsOneRootField('query A { jobs { id } }', 'A', 'actions')).toBe(false);
    expect(selectsOneRootField('query B { actions { id } }', 'A', 'actions')).toBe(false);
  });
});
