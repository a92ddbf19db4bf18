/**
 * Where an error of an entity fetch belongs in the client's answer.
 *
 * A subgraph reports a reference it could not resolve at `["_entities", i]`, `i` counting the
 * representations the gateway sent. @apollo/gateway 2.14 maps `i` onto the i-th non-null value
 * at the fetch's place in the answer (`makeLazyErrorPathGenerator` in executeQueryPlan.js), but
 * sends only the values of the fetch's types: under a union field (an action's `target`: Agent,
 * Content, CrawlJob, ExternalLever) the i-th CrawlJob is not the i-th target, and every error
 * lands on the wrong list element. The gateway's own mapping is internal, so the router keeps
 * what it needs to map them again:
 *
 * - the data source records each entity fetch that answered errors: its place in the answer
 *   (the cursor path, `@` for each list), the representations it sent, and the error objects
 *   (which the gateway keeps as each error's `originalError`);
 * - the execution's trace (execution-trace.ts) keeps the merged data before shaping, where each
 *   referenced entity is still there;
 * - after execution each such error gets the path of the value its representation was made
 *   from: the values at the fetch's place whose type is among the representations' types, in
 *   order, one per representation, checked key field by key field. When anything does not line
 *   up, the gateway's path stays.
 */
import { GraphQLError } from 'graphql';
import { currentTrace, type ExecutionTrace } from './execution-trace.js';

/** Called by the data source for an `_entities` fetch whose answer has errors. */
export function recordEntityFetchErrors(cursorPath: readonly (string | number)[] | undefined, representations: readonly unknown[], errors: readonly object[]): void {
  const trace = currentTrace();
  if (trace && cursorPath) trace.fetches.push({ cursorPath, representations, errors });
}

type Path = readonly (string | number)[];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every non-null value at `path` (lists walked at `@`, and at a name that meets a list), with its path: the gateway's own walk. */
function valuesAt(data: unknown, path: Path, at: (string | number)[] = [], into: { path: (string | number)[]; value: unknown }[] = []): { path: (string | number)[]; value: unknown }[] {
  if (data === null || data === undefined) return into;
  const [head, ...rest] = path;
  if (head === undefined) into.push({ path: [...at], value: data });
  else if (Array.isArray(data)) data.forEach((value, i) => valuesAt(value, head === '@' ? rest : path, [...at, i], into));
  else if (head !== '@' && isObject(data) && Object.hasOwn(data, head)) valuesAt(data[head], rest, [...at, head], into);
  return into;
}

/** The fields a representation carries besides its type, equal in the value it was made from. */
function sameKey(representation: unknown, value: unknown): boolean {
  if (!isObject(representation) || !isObject(value) || representation.__typename !== value.__typename) return false;
  return Object.entries(representation).every(([name, field]) => name === '__typename' || JSON.stringify(field) === JSON.stringify(value[name]));
}

/** The corrected path of each recorded error object, by the object. */
function correctedPaths(trace: ExecutionTrace): Map<object, (string | number)[]> {
  const corrected = new Map<object, (string | number)[]>();
  for (const fetch of trace.fetches) {
    const types = new Set(fetch.representations.map((r) => (isObject(r) ? r.__typename : undefined)));
    const values = valuesAt(trace.input, fetch.cursorPath).filter((v) => isObject(v.value) && types.has(v.value.__typename));
    if (values.length !== fetch.representations.length || !values.every((v, i) => sameKey(fetch.representations[i], v.value))) continue;
    for (const error of fetch.errors) {
      const path = (error as { path?: unknown }).path;
      if (!Array.isArray(path) || path[0] !== '_entities' || typeof path[1] !== 'number' || !values[path[1]]) continue;
      corrected.set(error, [...values[path[1]]!.path, ...(path.slice(2) as (string | number)[])]);
    }
  }
  return corrected;
}

/** The execution's errors with the entity fetches' errors where they belong. */
export function withEntityErrorPaths<E extends GraphQLError>(trace: ExecutionTrace, errors: readonly E[]): readonly GraphQLError[] {
  if (!trace.fetches.length || trace.input === undefined) return errors;
  const corrected = correctedPaths(trace);
  if (!corrected.size) return errors;
  return errors.map((error) => {
    const path = error.originalError && corrected.get(error.originalError);
    return path ? new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path, originalError: error.originalError, extensions: error.extensions }) : error;
  });
}
