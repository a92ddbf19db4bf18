import { getIntrospectionQuery, GraphQLError, Kind, parse, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

/**
 * Bounds introspection, which graphql-armor's depth limit skips (`__schema` counts as depth 0,
 * and `__type` is as deep as a client likes): a 30-level `ofType { ofType { ... } }` chain
 * needs no token and costs the server for nothing.
 *
 * Decisions:
 * - The depth of each `__schema` or `__type` field's selection (fragments flattened, each
 *   field one level) may be at most {@link STANDARD_INTROSPECTION_DEPTH}: the depth of the
 *   standard introspection query with every option on (graphql-js `getIntrospectionQuery`, what
 *   Apollo Studio, Apollo Sandbox and codegen tools send), so those keep working and anything
 *   deeper is refused.
 * - A fragment that spreads itself (invalid anyway) counts once.
 * - `__typename` aliases count against the alias limit like any other (the router's
 *   graphql-armor `maxAliases` runs with an empty allow list).
 */
function selectionDepth(set: SelectionSetNode | undefined, fragments: (name: string) => FragmentDefinitionNode | undefined, seen: Set<string>): number {
  if (!set) return 0;
  let depth = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) depth = Math.max(depth, 1 + selectionDepth(selection.selectionSet, fragments, seen));
    else if (selection.kind === Kind.INLINE_FRAGMENT) depth = Math.max(depth, selectionDepth(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      const fragment = fragments(selection.name.value);
      const inner = new Set(seen).add(selection.name.value);
      depth = Math.max(depth, selectionDepth(fragment?.selectionSet, fragments, inner));
    }
  }
  return depth;
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** The deepest `__schema`/`__type` field of a document, counting that field as 1. */
export function introspectionDepth(selectionSet: SelectionSetNode, fragments: (name: string) => FragmentDefinitionNode | undefined): number {
  let deepest = 0;
  const walk = (set: SelectionSetNode | undefined, seen: Set<string>): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (INTROSPECTION_FIELDS.has(selection.name.value)) deepest = Math.max(deepest, 1 + selectionDepth(selection.selectionSet, fragments, new Set()));
        else walk(selection.selectionSet, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, seen);
      else if (!seen.has(selection.name.value)) walk(fragments(selection.name.value)?.selectionSet, new Set(seen).add(selection.name.value));
    }
  };
  walk(selectionSet, new Set());
  return deepest;
}

function documentDepth(source: string): number {
  const document = parse(source);
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return operation && 'selectionSet' in operation ? introspectionDepth(operation.selectionSet, (name) => fragments.get(name)) : 0;
}

/** Depth of the standard introspection query with every option on. */
export const STANDARD_INTROSPECTION_DEPTH = documentDepth(
  getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }),
);

/** A validation rule refusing introspection deeper than `maxDepth` (default the standard query's). */
export function introspectionDepthRule(maxDepth = STANDARD_INTROSPECTION_DEPTH) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const depth = introspectionDepth(operation.selectionSet, (name) => context.getFragment(name) ?? undefined);
      if (depth > maxDepth) context.reportError(new GraphQLError(`Introspection depth limit of ${maxDepth} exceeded, found ${depth}.`, { nodes: [operation] }));
    },
  });
}
