import { describe, expect, it } from '@jest/globals';
import { loadOperations } from '@svc/kit';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { compiledComputeResponse, memoisedOperationFromDocument } from './result-shaping.js';

const require = createRequire(import.meta.url);
// The gateway's own walk and federation-internals, exactly as the router patches them.
const internals = require('@apollo/federation-internals');
const gatewayShaping = require('@apollo/gateway/dist/resultShaping.js');
const original = gatewayShaping.computeResponse as (args: any) => { data: unknown; errors: { message: string; path?: unknown }[] };

const SUPERGRAPH = readFileSync(fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url)), 'utf8');
const OPERATIONS_DIR = fileURLToPath(new URL('../../../schema/operations/', import.meta.url));
const api = internals.Supergraph.build(SUPERGRAPH).apiSchema();

/** Operations beyond the platform's: fragments on abstract types, conditions, aliases, repeated fields, typenames. */
const EXTRA: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  ActionTargets: {
    query: `query ActionTargets($first: Int, $withTitle: Boolean!, $noKind: Boolean = false) {
      actionProposals(first: $first) {
        actionId kind @skip(if: $noKind) title @include(if: $withTitle) targetType targetId status
        id2: actionId
        target {
          __typename
          ... on Content { id slug contentStatus: status }
          ... on CrawlJob { jobId jobName jobStatus: status }
          ... on Agent { code budget { agentCode allocatedUsd currentUsageUsd remainingUsd status hardLimitEnabled } }
          ...Named
        }
        ... on ActionProposal { title kind }
      }
    }
    fragment Named on Content { slug t: __typename }`,
    variables: { first: 5, withTitle: true },
  },
  Skipped: { query: 'query Skipped($s: Boolean!) { actionProposals { actionId @skip(if: $s) title @include(if: false) status @skip(if: false) } }', variables: { s: true } },
};

interface Case { name: string; operation: any; variables: Record<string, unknown> }

const cases: Case[] = [];
const operations = await loadOperations(OPERATIONS_DIR);
for (const [name, text] of operations) {
  const document = parse(text);
  if (!document.definitions.some((d: any) => d.kind === 'OperationDefinition' && d.operation !== 'subscription' && d.name?.value === name)) continue;
  cases.push({ name, operation: internals.operationFromDocument(api, document, { operationName: name }), variables: {} });
}
for (const [name, { query, variables }] of Object.entries(EXTRA)) {
  cases.push({ name, operation: internals.operationFromDocument(api, parse(query), { operationName: name }), variables: variables ?? {} });
}

/** A deterministic random source from a seed (mulberry32). */
function randomOf(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

type Random = ReturnType<typeof randomOf>;

/**
 * Subgraph data for `selectionSet`: what a plan would have merged (every selected field, plus key
 * fields and typenames the client did not ask for), and with `faults` > 0 now and then something
 * the gateway must repair or report: nulls, wrong leaves, unknown or missing typenames, short lists.
 */
function dataFor(selectionSet: any, type: any, random: Random, faults: number, depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const runtimeTypes = internals.isObjectType(type) ? [type] : [...internals.possibleRuntimeTypes(type)];
  const runtime = runtimeTypes.length ? random.pick(runtimeTypes) : type;
  if (random.next() < 0.8 || !internals.isObjectType(type)) object.__typename = random.next() < faults ? random.pick(['Nope', 'Query', '', 42]) : runtime.name;
  if (random.next() < 0.5) object.extraKeyField = 'planner-added';
  const fill = (set: any) => {
    for (const selection of set.selections()) {
      if (selection.kind === 'FragmentSelection') {
        fill(selection.selectionSet);
        continue;
      }
      const field = selection.element;
      if (field.name === '__typename') continue;
      if (random.next() < faults / 3) continue; // missing: the gateway reads null
      object[field.responseName()] = valueFor(field.definition.type, selection.selectionSet, random, faults, depth + 1);
    }
  };
  fill(selectionSet);
  return object;
}

function valueFor(type: any, selectionSet: any, random: Random, faults: number, depth: number, nonNull = false): unknown {
  if (random.next() < faults) return random.pick([null, 'x', 7, [], {}]);
  if (internals.isNonNullType(type)) return valueFor(type.ofType, selectionSet, random, faults, depth, true);
  if (!nonNull && random.next() < 0.1) return null;
  if (internals.isListType(type)) return Array.from({ length: Math.floor(random.next() * (depth > 3 ? 2 : 4)) }, () => valueFor(type.ofType, selectionSet, random, faults, depth));
  if (internals.isCompositeType(type)) return dataFor(selectionSet, type, random, faults, depth);
  if (internals.isEnumType(type)) return (random.pick(type.values) as { name: string }).name;
  switch (type.name) {
    case 'Int': return Math.floor(random.next() * 1000) - 500;
    case 'Float': return random.next() * 100;
    case 'Boolean': return random.next() < 0.5;
    case 'String': case 'ID': return random.pick(['a', 'ü "quoted"', '', '123']);
    default: return random.pick([{ any: ['json'] }, 'text', 3.5]);
  }
}

/** The compiled walk, with a count of the answers it handed to the gateway's walk. */
function compiledWithCount() {
  let handedOver = 0;
  const compute = compiledComputeResponse(internals, (args) => {
    handedOver++;
    return original(args);
  });
  return { compute, handedOver: () => handedOver };
}

const view = (result: { data: unknown; errors: unknown[] }) => JSON.stringify({ data: result.data, errors: (result.errors as { message: string; path?: unknown }[]).map((e) => ({ message: e.message, path: e.path })) });

describe('compiled result shaping', () => {
  it(`covers ${cases.length} operations: the platform's documents and fragment, condition and alias cases`, () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  it('shapes well-formed answers itself, exactly as the gateway does (same members, same order)', () => {
    const { compute, handedOver } = compiledWithCount();
    fc.assert(fc.property(fc.nat(), fc.constantFrom(...cases), (seed, { operation, variables }) => {
      const input = dataFor(operation.selectionSet, api.schemaDefinition.rootType(operation.rootKind), randomOf(seed), 0);
      const args = { operation, variables, input, introspectionHandling: () => null };
      expect(view(compute(args))).toBe(view(original(args)));
    }), { numRuns: 3000 });
    expect(handedOver()).toBe(0);
  });

  it('answers faulty answers as the gateway does, errors and nulls included', () => {
    const { compute, handedOver } = compiledWithCount();
    fc.assert(fc.property(fc.nat(), fc.constantFrom(...cases), fc.constantFrom(0.02, 0.1, 0.3), (seed, { operation, variables }, faults) => {
      const input = dataFor(operation.selectionSet, api.schemaDefinition.rootType(operation.rootKind), randomOf(seed), faults);
      const args = { operation, variables, input, introspectionHandling: () => null };
      let expected: string;
      try {
        expected = view(original(args));
      } catch (error) {
        expect(() => compute(args)).toThrow((error as Error).message);
        return;
      }
      expect(view(compute(args))).toBe(expected);
    }), { numRuns: 3000 });
    expect(handedOver()).toBeGreaterThan(100);
  });

  it('shapes the federated list of actions with targets without handing over, and drops what the plan added', () => {
    const { compute, handedOver } = compiledWithCount();
    const operation = cases.find((c) => c.name === 'ActionTargets')!.operation;
    const input = {
      actionProposals: [
        { actionId: 'a1', kind: 'RESTORE_CONTENT', title: 'Restore', targetType: 'CONTENT', targetId: 'c1', status: 'PENDING', id2: 'a1', __typename: 'ActionProposal', jobId: 'j1',
          target: { __typename: 'Content', id: 'c1', slug: 'plans', contentStatus: 'PUBLISHED', siteKey: 'demo' } },
        { actionId: 'a2', kind: 'PAUSE_CRAWL', title: 'Pause', targetType: 'CRAWL_JOB', targetId: 'k1', status: 'PENDING', id2: 'a2',
          target: { __typename: 'CrawlJob', jobId: 'k1', jobName: 'docs', jobStatus: 'ACTIVE' } },
      ],
    };
    const args = { operation, variables: { first: 2, withTitle: false }, input, introspectionHandling: () => null };
    const result = compute(args);
    expect(JSON.stringify(result.data)).toBe(JSON.stringify({
      actionProposals: [
        { actionId: 'a1', kind: 'RESTORE_CONTENT', targetType: 'CONTENT', targetId: 'c1', status: 'PENDING', id2: 'a1', target: { __typename: 'Content', id: 'c1', slug: 'plans', contentStatus: 'PUBLISHED', t: 'Content' }, title: 'Restore' },
        { actionId: 'a2', kind: 'PAUSE_CRAWL', targetType: 'CRAWL_JOB', targetId: 'k1', status: 'PENDING', id2: 'a2', target: { __typename: 'CrawlJob', jobId: 'k1', jobName: 'docs', jobStatus: 'ACTIVE' }, title: 'Pause' },
      ],
    }));
    expect(view(result)).toBe(view(original(args)));
    expect(handedOver()).toBe(0);
  });
});

describe('memoisedOperationFromDocument', () => {
  const document = parse('query A { actionProposals { actionId } }');
  const memo = memoisedOperationFromDocument(internals.operationFromDocument);

  it('builds once per operation node and schema for validate: false, as the gateway calls it at every request', () => {
    const first = memo(api, { kind: 'Document', definitions: [document.definitions[0]!] }, { validate: false });
    expect(memo(api, { kind: 'Document', definitions: [document.definitions[0]!] }, { validate: false })).toBe(first);
    // Another schema (a new supergraph) builds again.
    const other = internals.Supergraph.build(SUPERGRAPH).apiSchema();
    expect(memo(other, { kind: 'Document', definitions: [document.definitions[0]!] }, { validate: false })).not.toBe(first);
  });

  it('builds again for other fragment nodes, and every time when validating', () => {
    const withFragment = parse('query B { actionProposals { ...F } } fragment F on ActionProposal { actionId }');
    const again = parse('fragment F on ActionProposal { actionId title }');
    const first = memo(api, withFragment, { validate: false });
    expect(memo(api, { kind: 'Document', definitions: [withFragment.definitions[0]!, again.definitions[0]!] }, { validate: false })).not.toBe(first);
    expect(memo(api, document, {})).not.toBe(memo(api, document, {}));
  });
});
