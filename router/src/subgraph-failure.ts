/**
 * What the router makes of a subgraph that did not answer: down (no connection), slow past its
 * timeout, or answering 5xx (or something that is no GraphQL result). @apollo/gateway would turn
 * such a fetch into one error without a path and leave the fields it was to fill as they are, so
 * a non-null field deep inside them nulled everything up to the root, often the whole answer.
 * Instead the data source answers for the subgraph: every field the fetch was to fill is null,
 * each with a SUBGRAPH_UNAVAILABLE error at its path naming the subgraph; the gateway then merges
 * what the other subgraphs answered and puts each error where the field is in the client's
 * answer (an `_entities` fetch: at each reference; a root fetch: at each root field).
 */
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

export const SUBGRAPH_UNAVAILABLE = 'SUBGRAPH_UNAVAILABLE';

/** Why a subgraph did not answer, in words for a client (never an address or a stack). */
export type FailureKind = { kind: 'timeout'; timeoutMs: number } | { kind: 'unreachable' } | { kind: 'status'; status: number } | { kind: 'invalid' };

export function failureMessage(service: string, failure: FailureKind): string {
  switch (failure.kind) {
    case 'timeout':
      return `The ${service} subgraph did not answer within ${failure.timeoutMs / 1000} s; its part of the answer is missing`;
    case 'unreachable':
      return `The ${service} subgraph is unreachable; its part of the answer is missing`;
    case 'status':
      return `The ${service} subgraph answered HTTP ${failure.status}; its part of the answer is missing`;
    case 'invalid':
      return `The ${service} subgraph answered something that is not a GraphQL result; its part of the answer is missing`;
  }
}

/** Response names of an operation's root fields (fragments spread at the root expanded); one parse per operation text. */
const rootNames = new Map<string, string[]>();
const ROOT_NAMES_KEPT = 1000;

function namesOf(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, into: Set<string>): void {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) into.add((selection as FieldNode).alias?.value ?? selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) namesOf(selection.selectionSet, fragments, into);
    else {
      const fragment = fragments.get(selection.name.value);
      if (fragment) namesOf(fragment.selectionSet, fragments, into);
    }
  }
}

export function rootResponseNames(query: string): string[] {
  let names = rootNames.get(query);
  if (!names) {
    const document = parse(query);
    const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    const found = new Set<string>();
    if (operation && operation.kind === Kind.OPERATION_DEFINITION) namesOf(operation.selectionSet, fragments, found);
    names = [...found].filter((name) => name !== '__typename');
    if (rootNames.size >= ROOT_NAMES_KEPT) rootNames.clear();
    rootNames.set(query, names);
  }
  return names;
}

interface FailedError {
  message: string;
  path: (string | number)[];
  extensions: { code: string; serviceName: string };
}

/**
 * The answer the gateway gets in place of a subgraph's: `_entities` of nulls with an error at each
 * index for an entity fetch (`representations` among the variables), else no data and an error
 * at each root field.
 */
export function unavailableAnswer(service: string, failure: FailureKind, request: { query: string; variables?: Record<string, unknown> | undefined }): { data: Record<string, unknown> | null; errors: FailedError[] } {
  const message = failureMessage(service, failure);
  const error = (path: (string | number)[]): FailedError => ({ message, path, extensions: { code: SUBGRAPH_UNAVAILABLE, serviceName: service } });
  const representations = request.variables?.representations;
  if (Array.isArray(representations)) {
    return { data: { _entities: representations.map(() => null) }, errors: representations.map((_, i) => error(['_entities', i])) };
  }
  return { data: null, errors: rootResponseNames(request.query).map((name) => error([name])) };
}
