import { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { IncomingMessage } from 'node:http';
import { createContext, type ContextOptions, type SvcContext } from '../context.js';
import { introspectionDepthRule } from '../graph/introspection-limit.js';
import { apolloHandler, inProcessGraphql, type InProcessGraphql } from '../http/apollo-handler.js';
import { healthRoutes } from '../http/health.js';
import { createHttpServer, listen, type Route, type RunningServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import { compiledExecution } from './compiled-execution.js';
import { FiniteNumberRule, plainMessage, useFiniteVariables } from './finite-numbers.js';
import { BadTextRule, maskError, useAuthGuard, useOperationLog, type GuardOptions } from './plugins.js';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';

export interface SubgraphServerOptions extends GuardOptions, Omit<ContextOptions, 'log'> {
  name: string;
  schema: GraphQLSchema;
  log: Logger;
  maxBodyBytes: number;
  /** Operations sent more than once run compiled by graphql-jit (compiled-execution.ts); default true. */
  compiledExecution?: boolean;
  /** Resolves when the subgraph can serve (database reachable, ...); rejects with the reason otherwise. */
  ready?: () => Promise<void | Record<string, string>>;
  /** Extra HTTP routes (metrics, internal streams). */
  routes?: Route[];
}

/** A listening subgraph, and its GraphQL endpoint for a router in the same process. */
export interface RunningSubgraph extends RunningServer {
  graphql: InProcessGraphql;
}

export interface SubgraphServer {
  apollo: ApolloServer<SvcContext>;
  /** Starts Apollo and listens; `port` 0 picks a free port. */
  listen(port: number, host: string): Promise<RunningSubgraph>;
}

/** One subgraph: Apollo Server over a federated schema, with auth guard, masking, health and readiness. */
export function createSubgraphServer(options: SubgraphServerOptions): SubgraphServer {
  const { log } = options;
  const apollo = new ApolloServer<SvcContext>({
    // Apollo Server takes another executor only as a gateway (compiled-execution.ts).
    ...(options.compiledExecution === false ? { schema: options.schema } : { gateway: compiledExecution(options.schema, log) }),
    introspection: true,
    // svc owns shutdown (drain HTTP, stop jobs, close pools); Apollo must not race it.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    formatError: (formatted, error) => plainMessage(maskError(formatted, error)),
    // The router bounds introspection too; a subgraph reached directly must not be deeper.
    validationRules: [introspectionDepthRule(), BadTextRule, FiniteNumberRule],
    // No per-field hooks on the hot path: inline traces are for Apollo's usage reporting, which the
    // router does not ask for, and no resolver sets cache hints (the delivery's caching is its own).
    // Either would wrap every resolver of every request.
    plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControlDisabled(), useFiniteVariables<SvcContext>(), useAuthGuard(options), useOperationLog(log)],
    logger: log,
  });
  const context = (req: IncomingMessage) => createContext(req.headers, { ...options, log }, req.socket.remoteAddress);
  const routes: Route[] = [
    // A subgraph always answers /ready: without a check it is ready once it listens.
    ...healthRoutes({ service: options.name, log, ready: options.ready ?? (async () => undefined) }),
    ...(options.routes ?? []),
    { method: '*', path: '/graphql', handle: apolloHandler(apollo, context, options.maxBodyBytes) },
  ];
  return {
    apollo,
    async listen(port, host) {
      await apollo.start();
      const running = await listen(createHttpServer({ name: options.name, log, routes }), port, host);
      log.info({ url: `${running.url}/graphql` }, `${options.name} subgraph listening`);
      return {
        ...running,
        // No socket: the caller's address is the router's signed one, or none.
        graphql: inProcessGraphql(apollo, (headers) => createContext(headers, { ...options, log })),
        close: async (graceMs) => {
          await running.close(graceMs);
          await apollo.stop();
        },
      };
    },
  };
}
