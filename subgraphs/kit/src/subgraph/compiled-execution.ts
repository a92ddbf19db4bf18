import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { execute, GraphQLError, printSchema, type DocumentNode, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Logger } from '../logger.js';

/** An operation's state: run once on graphql-js, then its compiled function (null: graphql-jit could not compile it). */
type Compiled = 'ran once' | CompiledQuery | null;

/**
 * graphql-jit's errors only look like graphql-js's: one without an original error (a null in a
 * non-null field) has no `extensions`, on which Apollo's error formatting fails. The same error as
 * graphql-js builds it: message, path, original error and its extensions, and the locations as
 * positions in the document's source.
 */
function asGraphQLError(error: GraphQLError, document: DocumentNode): GraphQLError {
  const source = document.loc?.source;
  let positions: number[] | undefined;
  if (source && error.locations?.length) {
    const lineStarts = [0];
    for (let i = source.body.indexOf('\n'); i >= 0; i = source.body.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    positions = error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1);
  }
  return new GraphQLError(error.message, {
    ...(positions ? { source, positions } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(error.originalError ? { originalError: error.originalError } : {}),
    ...(error.extensions ? { extensions: error.extensions } : {}),
  });
}

/**
 * Executes a subgraph's operations with graphql-jit (a maintained compiler from GraphQL documents
 * to JavaScript functions): each operation a caller sends again is compiled once and then runs
 * without graphql-js's per-field argument maps, type lookups and promise checks. The first run of
 * a document goes through graphql-js, so a stream of one-off documents costs no compilation; an
 * operation graphql-jit cannot compile keeps running on graphql-js, and so does every request
 * whose variables do not coerce (graphql-js's errors are the ones callers get).
 *
 * Apollo Server takes a custom executor only through its gateway interface, so this is one that
 * serves the subgraph's own schema. Parsing, validation and the plugins stay Apollo's. Documents
 * come from Apollo's document store (one DocumentNode per query text while it stays cached), so
 * compiled operations are held weakly by their document and go when it is evicted.
 */
export function compiledExecution(schema: GraphQLSchema, log: Logger): GatewayInterface {
  const byDocument = new WeakMap<DocumentNode, Map<string, Compiled>>();
  const compiledFor = (document: DocumentNode, operationName: string | null): CompiledQuery | null => {
    let operations = byDocument.get(document);
    if (!operations) byDocument.set(document, (operations = new Map()));
    const key = operationName ?? '';
    const state = operations.get(key);
    if (state === undefined) {
      operations.set(key, 'ran once');
      return null;
    }
    if (state !== 'ran once') return state;
    const started = performance.now();
    const operation = operationName ?? null;
    let entry: CompiledQuery | null = null;
    let reason: string | undefined;
    try {
      const result = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
      if (isCompiledQuery(result)) entry = result;
      else reason = result.errors?.map((e) => e.message).join('; ');
    } catch (error) {
      reason = (error as Error).message;
    }
    if (entry) log.debug({ operation, compileMs: Math.round((performance.now() - started) * 10) / 10 }, 'graphql operation compiled');
    else log.warn({ operation, reason }, 'graphql operation not compiled: it runs on graphql-js');
    operations.set(key, entry);
    return entry;
  };
  const executor: GatewayExecutor = async (request) => {
    const variables = request.request.variables ?? {};
    const compiled = compiledFor(request.document, request.operationName);
    if (compiled) {
      const result = await compiled.query(undefined, request.context, variables);
      // No data: the variables did not coerce, and no resolver ran. graphql-js answers that with
      // its own errors, which name the variable's definition: Apollo reads them as the caller's
      // mistake (400 BAD_USER_INPUT) and graphql-jit's, without that node, as an internal one.
      if (result.data !== undefined) return result.errors ? { ...result, errors: result.errors.map((error) => asGraphQLError(error, request.document)) } : result;
    }
    return execute({ schema, document: request.document, operationName: request.operationName, variableValues: variables, contextValue: request.context });
  };
  return {
    async load() {
      return { executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async stop() {},
  };
}
