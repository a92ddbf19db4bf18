/**
 * Every error of a federated answer in `errors`, where the GraphQL specification puts it.
 *
 * Shaping the merged subgraph data finds the nulls the schema forbids (a referenced entity a
 * subgraph answered null for, a field missing from an answer) and nulls up to the nearest
 * nullable field. @apollo/gateway 2.14 then (executeQueryPlan.js) either puts those errors in
 * `extensions.valueCompletion`, when no fetch failed, answering the nulled data, up to
 * `data: null`, with no `errors` at all (a client reads that as an empty success); or drops them,
 * when a fetch failed, so a null the failed fetch does not explain has no error. Whichever walk
 * shaped the answer (the gateway's, or result-shaping.ts's compiled one, which hands every such
 * answer to the gateway's), the executor below puts them in `errors`: all of them in the first
 * case; in the second those whose path no other error already covers. And errors of entity fetches
 * get the path of the field that referenced the entity (entity-error-paths.ts).
 */
import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { withEntityErrorPaths } from './entity-error-paths.js';
import { tracedExecution, type ExecutionTrace } from './execution-trace.js';

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type Executor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;
type ExecutionResult = Awaited<ReturnType<Executor>>;

type Path = readonly (string | number)[];

const within = (path: Path | undefined, prefix: Path | undefined) => !!path && !!prefix && prefix.length <= path.length && prefix.every((key, i) => path[i] === key);

/** The result with `extensions.valueCompletion` moved into `errors` (and no `extensions` left empty). */
export function withCompletionErrors(result: ExecutionResult): ExecutionResult {
  const completion = result.extensions?.valueCompletion as readonly GraphQLError[] | undefined;
  if (!completion) return result;
  const { valueCompletion: _moved, ...extensions } = result.extensions!;
  return {
    ...result,
    errors: [...(result.errors ?? []), ...completion],
    ...(Object.keys(extensions).length ? { extensions } : { extensions: undefined }),
  };
}

/** The shaping errors the gateway dropped after a failed fetch, those at a path no error of `errors` covers. */
function droppedCompletionErrors(trace: ExecutionTrace, errors: readonly GraphQLError[]): GraphQLError[] {
  const completion = (trace.completionErrors ?? []).filter((e): e is GraphQLError => e instanceof GraphQLError);
  return completion.filter((error) => !errors.includes(error) && !errors.some((other) => within(error.path, other.path)));
}

/** The gateway, its executor answering as the specification requires. */
export function specErrorsGateway(gateway: GatewayInterface): GatewayInterface {
  return {
    onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
    stop: () => gateway.stop(),
    async load(options) {
      const loaded = await gateway.load(options);
      const executor = loaded.executor;
      if (!executor) return loaded;
      return {
        ...loaded,
        executor: async (requestContext) => {
          const { trace, result } = tracedExecution(() => executor(requestContext));
          const answer = withCompletionErrors(await result);
          if (!answer.errors?.length) return answer;
          const errors = withEntityErrorPaths(trace, answer.errors);
          return { ...answer, errors: [...errors, ...droppedCompletionErrors(trace, errors)] };
        },
      };
    },
  };
}
