import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { Writable } from 'node:stream';
import { createTokenVerifier, issueToken } from '../auth.js';
import { SvcError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createSubgraphServer, type RunningSubgraph } from './create-subgraph.js';

const SECRET = 'compiled-execution-test-secret-0123456789';

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Query {
    items(first: Int!, prefix: String = "item"): [Item!]!
    pets: [Pet!]!
    failing(kind: String!): Item
    broken: Item!
    later: Item
  }
  type Item @key(fields: "id") { id: ID! name: String! rank: Float tags: [String!]! owner: Owner }
  type Owner { name: String! }
  type Cat { meow: String! }
  type Dog { woof: String! }
  union Pet = Cat | Dog
`);

const item = (id: string, prefix = 'item') => ({ id, name: `${prefix} ${id}`, rank: Number(id) / 3, tags: [`t${id}`], owner: Number(id) % 2 ? { name: `owner ${id}` } : null });

const resolvers = {
  Query: {
    items: (_: unknown, { first, prefix }: { first: number; prefix: string }) => Array.from({ length: first }, (_, i) => item(String(i + 1), prefix)),
    pets: () => [{ meow: 'a' }, { woof: 'b' }, { meow: 'c' }],
    failing: (_: unknown, { kind }: { kind: string }) => {
      if (kind === 'typed') throw new SvcError('NOT_FOUND', 'Item "x" not found');
      throw new Error('connection reset by a private host 10.0.0.7');
    },
    broken: () => ({ id: '9', name: null, tags: [] }),
    later: async () => item('4'),
  },
  Item: {
    __resolveReference: (ref: { id: string }) => (ref.id === 'missing' ? null : item(ref.id, 'ref')),
  },
  Pet: { __resolveType: (value: object) => ('meow' in value ? 'Cat' : 'Dog') },
};

/** Every operation a caller might send, each with what graphql-js answers it. */
const OPERATIONS: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  { name: 'variables, arguments and a default', query: 'query Items($n: Int!) { items(first: $n) { id name rank tags owner { name } } }', variables: { n: 3 } },
  { name: 'an argument given inline', query: '{ items(first: 2, prefix: "x") { id name } }' },
  { name: 'a union by fragments', query: '{ pets { __typename ... on Cat { meow } ... on Dog { woof } } }' },
  { name: 'entity references, one missing', query: 'query Refs($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Item { id name tags } } }', variables: { r: [{ __typename: 'Item', id: '7' }, { __typename: 'Item', id: 'missing' }, { __typename: 'Item', id: '8' }] } },
  { name: 'a typed error', query: '{ failing(kind: "typed") { id } }' },
  { name: 'an error of unknown kind', query: '{ failing(kind: "plain") { id } }' },
  { name: 'null in a non-null field', query: '{ broken { id name } items(first: 1) { id } }' },
  { name: 'skip and include by variables', query: 'query Some($yes: Boolean!) { items(first: 2) { id name @include(if: $yes) rank @skip(if: $yes) } }', variables: { yes: true } },
  { name: 'a variable of the wrong type', query: 'query Items($n: Int!) { items(first: $n) { id } }', variables: { n: 'three' } },
  { name: 'a missing variable', query: 'query Items($n: Int!) { items(first: $n) { id } }', variables: {} },
  { name: 'an async resolver and aliases', query: '{ a: later { id } b: later { name } }' },
  { name: 'introspection', query: '{ __schema { queryType { name } } __type(name: "Pet") { possibleTypes { name } } }' },
];

describe('compiled execution of subgraph operations (graphql-jit)', () => {
  const logged: { msg: string; operation?: string | null }[] = [];
  let compiled: RunningSubgraph;
  let plain: RunningSubgraph;
  let authorization: string;

  beforeAll(async () => {
    const schema = buildSubgraphSchema([{ typeDefs, resolvers: resolvers as never }]);
    const verifier = createTokenVerifier({ secret: SECRET });
    const sink = new Writable({ write(chunk, _encoding, done) { for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line)); done(); } });
    const start = (compiledExecution: boolean) => createSubgraphServer({
      name: compiledExecution ? 'compiled' : 'plain', schema, verifier, maxBodyBytes: 1 << 20, compiledExecution,
      log: createLogger({ level: compiledExecution ? 'debug' : 'silent', destination: sink }),
    }).listen(0, '127.0.0.1');
    [compiled, plain] = await Promise.all([start(true), start(false)]);
    authorization = `Bearer ${(await issueToken(SECRET, { subject: 'tester', roles: ['admin'], tenants: '*', sites: '*' }, 600)).accessToken}`;
  });
  afterAll(async () => {
    await Promise.all([compiled?.close(), plain?.close()]);
  });

  const send = async (server: RunningSubgraph, operation: (typeof OPERATIONS)[number]) => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query: operation.query, variables: operation.variables }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several shapes, asserted below
    return { status: res.status, body: (await res.json()) as any };
  };

  it.each(OPERATIONS)('answers $name as graphql-js does, before and after it is compiled', async (operation) => {
    const expected = await send(plain, operation);
    // The first run goes through graphql-js, the next ones through the compiled function.
    for (let run = 0; run < 3; run++) expect(await send(compiled, operation)).toEqual(expected);
  });

  it('answers what graphql-js answers for each case, and compiles what it was sent twice', async () => {
    const items = await send(compiled, OPERATIONS[0]!);
    expect(items).toEqual({ status: 200, body: { data: { items: [item('1'), item('2'), item('3')] } } });
    const refs = await send(compiled, OPERATIONS[3]!);
    expect(refs.body.data._entities).toEqual([{ __typename: 'Item', id: '7', name: 'ref 7', tags: ['t7'] }, null, { __typename: 'Item', id: '8', name: 'ref 8', tags: ['t8'] }]);
    const typed = await send(compiled, OPERATIONS[4]!);
    expect(typed.body.errors).toMatchObject([{ message: 'Item "x" not found', path: ['failing'], extensions: { code: 'NOT_FOUND' } }]);
    const masked = await send(compiled, OPERATIONS[5]!);
    expect(masked.body.errors).toMatchObject([{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(JSON.stringify(masked.body)).not.toContain('10.0.0.7');
    const broken = await send(compiled, OPERATIONS[6]!);
    expect(broken.body.data).toBeNull();
    expect(broken.body.errors).toHaveLength(1);
    const wrongType = await send(compiled, OPERATIONS[8]!);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0].message).toContain('$n');
    expect(logged.filter((l) => l.msg === 'graphql operation compiled').map((l) => l.operation)).toEqual(expect.arrayContaining(['Items', 'Refs', 'Some']));
    expect(logged.some((l) => l.msg.startsWith('graphql operation not compiled'))).toBe(false);
  });
});
