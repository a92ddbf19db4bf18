import { describe, expect, it } from '@jest/globals';
import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { introspectionDepthRule, STANDARD_INTROSPECTION_DEPTH } from './introspection-limit.js';

const schema = buildSchema('type Query { hello: String }');
const errorsOf = (query: string, max?: number) => validate(schema, parse(query), [introspectionDepthRule(max)]).map((e) => e.message);
const chain = (levels: number) => `${'ofType { '.repeat(levels)}name${' }'.repeat(levels)}`;

describe('introspectionDepthRule', () => {
  it('accepts the standard introspection query with every option, which sets the limit', () => {
    expect(STANDARD_INTROSPECTION_DEPTH).toBeGreaterThanOrEqual(10);
    expect(errorsOf(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }))).toEqual([]);
    expect(errorsOf(getIntrospectionQuery())).toEqual([]);
  });

  it('refuses deeper __schema and __type selections, counting through fragments', () => {
    expect(errorsOf(`{ __schema { types { ${chain(30)} } } }`)).toEqual([`Introspection depth limit of ${STANDARD_INTROSPECTION_DEPTH} exceeded, found 33.`]);
    expect(errorsOf(`{ __type(name: "Query") { ${chain(30)} } }`)).toEqual([`Introspection depth limit of ${STANDARD_INTROSPECTION_DEPTH} exceeded, found 32.`]);
    expect(errorsOf(`query { ...A } fragment A on Query { __type(name: "Query") { ...B } } fragment B on __Type { ${chain(20)} }`)).toEqual([
      `Introspection depth limit of ${STANDARD_INTROSPECTION_DEPTH} exceeded, found 22.`,
    ]);
  });

  it('leaves ordinary fields to the other limits, takes a custom maximum, and survives a fragment cycle', () => {
    expect(errorsOf('{ hello __typename }')).toEqual([]);
    expect(errorsOf(`{ __type(name: "Query") { ${chain(3)} } }`, 4)).toEqual(['Introspection depth limit of 4 exceeded, found 5.']);
    expect(() => validate(schema, parse('{ __type(name: "Query") { ...F } } fragment F on __Type { ofType { ...F } }'), [introspectionDepthRule()])).not.toThrow();
  });
});
