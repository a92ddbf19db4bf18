/**
 * Result shaping for @apollo/gateway, compiled once per operation.
 *
 * After a query plan ran, the gateway walks the merged subgraph data along the client's operation
 * (`computeResponse` in `@apollo/gateway/dist/resultShaping.js`): it drops the key fields and
 * `__typename`s the plan fetched for itself, applies `@skip`/`@include`, checks every leaf and
 * nulls what breaks a non-null type. It reads the operation through federation-internals' objects
 * at every field of every value (directive look-ups, getters, a result object per value), and for
 * 50 actions with their targets that was a fifth of the router's CPU.
 *
 * `installFastResultShaping` puts a compiled walk in its place: the operation's selections are read
 * once into plain plans (response name, conditions, type, sub-selections), and values are copied
 * along them in the same order and with the same merging, into the same kind of objects. Whenever
 * the gateway's walk would report an error or take a rare branch (introspection fields, a
 * `__typename` naming no object type, a null where the type forbids it, an invalid leaf or
 * `__typename`, a value of the wrong kind), the compiled walk gives up and the gateway's own
 * `computeResponse` shapes the answer from the start, so errors are the gateway's, word for word.
 *
 * Plans are kept per federation-internals `Operation`; the gateway builds one from the document
 * for every request (`operationFromDocument(..., {validate: false})` in executeQueryPlan.js), so
 * that call is memoised too, per operation definition node: Apollo Server keeps one parsed
 * document per query text, whose nodes are the key. The memoised `Operation` is only read by
 * execution (its variable definitions and selections).
 *
 * Both patches replace a module export that the gateway reads at every call. They are installed
 * only on the versions they were written and tested against (result-shaping.test.ts compares the
 * two walks on random answers); on any other version the gateway keeps its own, and the router's
 * log says so.
 */
import { createRequire } from 'node:module';
import type { Logger } from '@svc/kit';

const require = createRequire(import.meta.url);

/** The @apollo/gateway and federation-internals versions whose internals these patches match. */
const SHAPING_VERSIONS = /^2\.14\./;

// federation-internals types, as far as this module reads them.
interface NamedType { name: string; kind: string }
interface WrapperType { kind: 'NonNullType' | 'ListType'; ofType: FedType }
type FedType = NamedType | WrapperType;
interface Directive { arguments(): { if?: unknown } }
interface Element { appliedDirectivesOf(definition: unknown): Directive[] }
interface FieldElement extends Element { name: string; responseName(): string; definition: { type: FedType; isSchemaIntrospectionField(): boolean } }
interface FragmentElement extends Element { typeCondition?: NamedType }
interface Selection { kind: 'FieldSelection' | 'FragmentSelection'; element: FieldElement | FragmentElement; selectionSet?: SelectionSet }
interface SelectionSet { selections(): readonly Selection[] }
interface Schema {
  type(name: string): NamedType | undefined;
  skipDirective(): unknown;
  includeDirective(): unknown;
  schemaDefinition: { rootType(kind: string): NamedType };
}
interface Operation { schema(): Schema; selectionSet: SelectionSet; rootKind: string; collectDefaultedVariableValues(): Record<string, unknown> }
interface ComputeArgs { operation: Operation; variables?: Record<string, unknown>; input: Record<string, unknown> | null | undefined; introspectionHandling: unknown }
type ComputeResponse = (args: ComputeArgs) => { data: unknown; errors: unknown[] };

interface Internals {
  isNonNullType(type: unknown): boolean;
  isListType(type: unknown): boolean;
  isCompositeType(type: unknown): boolean;
  isObjectType(type: unknown): boolean;
  isSubtype(maybeSuper: unknown, maybeSub: unknown): boolean;
  isValidLeafValue(schema: Schema, value: unknown, type: unknown): boolean;
  Variable: new (...args: never[]) => { name: string };
}

/** A `@skip`/`@include` argument: a variable's name, or a literal. */
type Condition = { variable: string } | { value: boolean };

type TypePlan =
  | { kind: 'nonNull'; of: TypePlan }
  | { kind: 'list'; of: TypePlan }
  | { kind: 'composite'; type: NamedType }
  | { kind: 'leaf'; type: NamedType };

interface Conditional { skip?: Condition; include?: Condition }

interface FieldPlan extends Conditional {
  kind: 'field';
  responseName: string;
  isTypename: boolean;
  isIntrospection: boolean;
  type: TypePlan;
  selections?: SelectionPlan[];
}

interface FragmentPlan extends Conditional {
  kind: 'fragment';
  typeCondition?: NamedType;
  /** Whether the type condition holds, by `__typename` (or, without one, by the parent type's name after a NUL). */
  applies: Map<string, boolean>;
  selections: SelectionPlan[];
}

type SelectionPlan = FieldPlan | FragmentPlan;

interface OperationPlan {
  rootType: NamedType;
  selections: SelectionPlan[];
}

/** Thrown inside the compiled walk where the gateway's own walk would do more than copy: it then shapes the answer. */
const GIVE_UP = Symbol('give-up');

interface Walk {
  internals: Internals;
  schema: Schema;
  variables: Record<string, unknown>;
}

function compile(internals: Internals, operation: Operation): OperationPlan {
  const schema = operation.schema();
  const skip = schema.skipDirective();
  const include = schema.includeDirective();
  const condition = (element: Element, definition: unknown): Condition | undefined => {
    const directive = element.appliedDirectivesOf(definition)[0];
    if (!directive) return undefined;
    const argument = directive.arguments().if;
    return argument instanceof internals.Variable ? { variable: argument.name } : { value: argument as boolean };
  };
  const typePlan = (type: FedType): TypePlan => {
    if (internals.isNonNullType(type)) return { kind: 'nonNull', of: typePlan((type as WrapperType).ofType) };
    if (internals.isListType(type)) return { kind: 'list', of: typePlan((type as WrapperType).ofType) };
    return internals.isCompositeType(type) ? { kind: 'composite', type: type as NamedType } : { kind: 'leaf', type: type as NamedType };
  };
  const selectionsOf = (set: SelectionSet): SelectionPlan[] => set.selections().map((selection): SelectionPlan => {
    const conditions: Conditional = { skip: condition(selection.element, skip), include: condition(selection.element, include) };
    if (selection.kind === 'FieldSelection') {
      const field = selection.element as FieldElement;
      return {
        kind: 'field',
        ...conditions,
        responseName: field.responseName(),
        isTypename: field.name === '__typename',
        isIntrospection: field.definition.isSchemaIntrospectionField(),
        type: typePlan(field.definition.type),
        selections: selection.selectionSet ? selectionsOf(selection.selectionSet) : undefined,
      };
    }
    return { kind: 'fragment', ...conditions, typeCondition: (selection.element as FragmentElement).typeCondition, applies: new Map(), selections: selectionsOf(selection.selectionSet!) };
  });
  return { rootType: schema.schemaDefinition.rootType(operation.rootKind), selections: selectionsOf(operation.selectionSet) };
}

function holds(condition: Condition, variables: Record<string, unknown>): boolean {
  if ('value' in condition) return condition.value;
  const value = variables[condition.variable];
  if (typeof value !== 'boolean') throw GIVE_UP;
  return value;
}

function skipped(plan: Conditional, variables: Record<string, unknown>): boolean {
  return (plan.skip !== undefined && holds(plan.skip, variables)) || (plan.include !== undefined && !holds(plan.include, variables));
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

function applySelections(walk: Walk, input: Record<string, unknown>, selections: SelectionPlan[], output: Record<string, unknown>, parentType: NamedType): void {
  for (const selection of selections) {
    if (skipped(selection, walk.variables)) continue;
    if (selection.kind === 'field') {
      const name = selection.responseName;
      if (selection.isIntrospection) throw GIVE_UP;
      const outputValue = output[name];
      let inputValue = (hasOwn(input, name) ? input[name] : undefined) ?? null;
      if (selection.isTypename) {
        if (outputValue === undefined) {
          if (inputValue === null && name !== '__typename') inputValue = input.__typename ?? null;
          const type = typeof inputValue === 'string' ? walk.schema.type(inputValue) ?? parentType : parentType;
          if (!walk.internals.isObjectType(type)) throw GIVE_UP;
          output[name] = type.name;
        }
        continue;
      }
      output[name] = updateValue(walk, outputValue, selection.type, inputValue, selection.selections);
    } else {
      const typename = input.__typename;
      if (typename !== undefined && typename !== null && typeof typename !== 'string') throw GIVE_UP;
      if (appliesTo(walk, selection, typename || undefined, parentType)) {
        applySelections(walk, input, selection.selections, output, selection.typeCondition ?? parentType);
      }
    }
  }
}

function appliesTo(walk: Walk, fragment: FragmentPlan, typename: string | undefined, parentType: NamedType): boolean {
  if (!fragment.typeCondition) return true;
  const key = typename ?? `\u0000${parentType.name}`;
  let applies = fragment.applies.get(key);
  if (applies === undefined) {
    const type = typename ? walk.schema.type(typename) : parentType;
    applies = !!type && walk.internals.isSubtype(fragment.typeCondition, type);
    fragment.applies.set(key, applies);
  }
  return applies;
}

function updateValue(walk: Walk, outputValue: unknown, type: TypePlan, inputValue: unknown, selections: SelectionPlan[] | undefined): unknown {
  if (outputValue === null || (outputValue !== undefined && !selections)) return outputValue;
  if (type.kind === 'nonNull') {
    const updated = updateValue(walk, outputValue, type.of, inputValue, selections);
    if (updated === null) throw GIVE_UP;
    return updated;
  }
  if (inputValue === null) return null;
  if (type.kind === 'list') {
    if (!Array.isArray(inputValue) || (outputValue !== undefined && (!Array.isArray(outputValue) || outputValue.length !== inputValue.length))) throw GIVE_UP;
    const updated = new Array<unknown>(inputValue.length);
    for (let i = 0; i < inputValue.length; i++) updated[i] = updateValue(walk, outputValue === undefined ? undefined : (outputValue as unknown[])[i], type.of, inputValue[i], selections);
    return updated;
  }
  if (type.kind === 'composite') {
    if (!selections || typeof inputValue !== 'object' || (outputValue !== undefined && typeof outputValue !== 'object')) throw GIVE_UP;
    const object = inputValue as Record<string, unknown>;
    const typename = object.__typename;
    let objectType = type.type;
    if (typename !== undefined) {
      if (typeof typename !== 'string') throw GIVE_UP;
      if (typename) {
        const named = walk.schema.type(typename);
        if (!named || !walk.internals.isCompositeType(named)) throw GIVE_UP;
        objectType = named;
      }
    }
    const output = (outputValue ?? Object.create(null)) as Record<string, unknown>;
    applySelections(walk, object, selections, output, objectType);
    return output;
  }
  if (outputValue !== undefined || !walk.internals.isValidLeafValue(walk.schema, inputValue, type.type)) throw GIVE_UP;
  return inputValue;
}

/** A `computeResponse` that walks compiled plans and hands every unusual answer to `original`. */
export function compiledComputeResponse(internals: Internals, original: ComputeResponse): ComputeResponse {
  const plans = new WeakMap<Operation, OperationPlan>();
  return (args) => {
    const { operation, input } = args;
    if (!input) return original(args);
    let plan = plans.get(operation);
    if (!plan) plans.set(operation, (plan = compile(internals, operation)));
    const walk: Walk = {
      internals,
      schema: operation.schema(),
      variables: { __proto__: null, ...operation.collectDefaultedVariableValues(), ...args.variables } as Record<string, unknown>,
    };
    const data = Object.create(null) as Record<string, unknown>;
    try {
      applySelections(walk, input, plan.selections, data, plan.rootType);
    } catch (error) {
      if (error === GIVE_UP) return original(args);
      throw error;
    }
    return { data, errors: [] };
  };
}

interface DocumentLike { kind: string; definitions: readonly { kind: string }[] }
type OperationFromDocument = (schema: unknown, document: DocumentLike, options?: { validate?: boolean; operationName?: string }) => unknown;

/** `operationFromDocument` remembering, per operation definition node, what it built for a document of the same nodes and schema (validate: false calls only). */
export function memoisedOperationFromDocument(original: OperationFromDocument): OperationFromDocument {
  const built = new WeakMap<object, { schema: unknown; rest: readonly object[]; operationName?: string; operation: unknown }>();
  return (schema, document, options) => {
    const [first, ...rest] = document.definitions;
    if (options?.validate !== false || !first || first.kind !== 'OperationDefinition') return original(schema, document, options);
    const hit = built.get(first);
    if (hit && hit.schema === schema && hit.operationName === options.operationName && hit.rest.length === rest.length && hit.rest.every((node, i) => node === rest[i])) return hit.operation;
    const operation = original(schema, document, options);
    built.set(first, { schema, rest, operationName: options.operationName, operation });
    return operation;
  };
}

let installed: boolean | undefined;

/** Installs both patches once per process (see the module's comment); says in the log what it did. */
export function installFastResultShaping(log: Logger): boolean {
  if (installed !== undefined) return installed;
  const gatewayVersion = (require('@apollo/gateway/package.json') as { version: string }).version;
  const internalsVersion = (require('@apollo/federation-internals/package.json') as { version: string }).version;
  const shaping = require('@apollo/gateway/dist/resultShaping.js') as { computeResponse?: ComputeResponse };
  const operations = require('@apollo/federation-internals/dist/operations.js') as { operationFromDocument?: OperationFromDocument };
  if (!SHAPING_VERSIONS.test(gatewayVersion) || !SHAPING_VERSIONS.test(internalsVersion) || typeof shaping.computeResponse !== 'function' || typeof operations.operationFromDocument !== 'function') {
    log.warn({ gatewayVersion, internalsVersion }, 'compiled result shaping not installed: written for @apollo/gateway 2.14; the gateway shapes results itself');
    return (installed = false);
  }
  const internals = require('@apollo/federation-internals') as Internals;
  shaping.computeResponse = compiledComputeResponse(internals, shaping.computeResponse);
  operations.operationFromDocument = memoisedOperationFromDocument(operations.operationFromDocument);
  return (installed = true);
}
