import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { apolloHandler, BadTextRule, type InProcessGraphql, clientIp, forwardedClientIp, inProcessGraphql, FiniteNumberRule, plainMessage, useFiniteVariables, createAddressMatcher, createHttpServer, healthRoutes, introspectionDepthRule, listen, clientAddressSigner, type ClientAddressKey, type Logger, type RunningServer } from '@svc/kit';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { SubgraphDataSource } from './data-source.js';
import { loadGraphiqlTabs, type GraphiqlTab } from './graphiql-tabs.js';
import { landingPageRoutes } from './landing-page.js';
import { operationResolution } from './operation-resolution.js';
import { specErrorsGateway } from './answer-errors.js';
import { installExecutionTrace } from './execution-trace.js';
import { DEFAULT_SUBGRAPH_TIMEOUTS, inProcessTransport, subgraphFetcher, undiciTransport, type SubgraphTimeouts } from './subgraph-fetch.js';
import { subgraphHealth } from './subgraph-health.js';
import { installFastResultShaping } from './result-shaping.js';
import { trustedDocuments, type TrustedDocumentsMode } from './trusted-documents.js';

interface RouterContext {
  headers: IncomingHttpHeaders;
  clientIp?: string;
  /** The client address's signature, made once per request for every subgraph fetch of its plan. */
  clientIpSignature?: string;
}

export interface RouterOptions {
  supergraphSdl: string;
  /** Subgraph URL per subgraph name, overriding the URLs in the supergraph. */
  subgraphUrls: Record<string, string>;
  /** Subgraphs running in this process (`svc all`), called without a socket, by name; the others over HTTP. */
  inProcess?: Record<string, InProcessGraphql>;
  log: Logger;
  corsOrigins: readonly string[];
  trustedProxies: readonly string[];
  /** Signs the client address for the subgraphs (kit client-address.ts); unset without a shared secret. */
  clientAddressKey?: ClientAddressKey;
  maxBodyBytes: number;
  /** Query depth, alias and cost limits. Defaults: depth 12, aliases 30, cost 20000, tokens 5000. */
  limits?: { maxDepth?: number; maxAliases?: number; maxCost?: number; maxTokens?: number };
  /** GraphiQL's opening tabs. Default: schema/operations/graphiql.graphql. */
  graphiqlTabs?: GraphiqlTab[];
  /** The platform's known operations by name (loadOperations), and whether only they run (trusted-documents.ts). Default: none known, any runs. */
  operations?: ReadonlyMap<string, string>;
  trustedDocuments?: TrustedDocumentsMode;
  /** Shape federated results along compiled plans (result-shaping.ts). Default true. */
  compiledShaping?: boolean;
  /** How long a subgraph may take to answer, for queries and for mutations (subgraph-fetch.ts). Default 30 s and 120 s. */
  subgraphTimeouts?: SubgraphTimeouts;
}

export interface RunningRouter extends RunningServer {
  /**
   * The router's GraphQL endpoint for a caller in this process (the bridge in `svc all`), without
   * a socket: the same plugins, limits and validation as over HTTP. The caller is trusted like a
   * proxy: the client address is the last untrusted hop of the X-Forwarded-For it sends.
   */
  graphql: InProcessGraphql;
}

/** The federated router: @apollo/gateway over a static supergraph, with header propagation and limits. */
export async function startRouter(options: RouterOptions, port: number, host: string): Promise<RunningRouter> {
  const { log } = options;
  // @apollo/gateway reports usage metrics to Apollo over the internet unless told not to: a
  // platform's router must not call out on its own (and on a machine without internet each
  // attempt is a failed TLS connection). An operator who wants it sets the variable to false.
  process.env.APOLLO_TELEMETRY_DISABLED ??= 'true';
  if (options.compiledShaping ?? true) installFastResultShaping(log);
  // After the compiled shaping, so that it wraps whichever walk shapes the answers.
  installExecutionTrace(log);
  const timeouts = options.subgraphTimeouts ?? DEFAULT_SUBGRAPH_TIMEOUTS;
  // One fetcher for the subgraphs over HTTP (keep-alive pools), one per subgraph in this process;
  // each sends identical queries in flight once and waits at most `timeouts` (subgraph-fetch.ts).
  const pools = undiciTransport();
  const subgraphFetch = subgraphFetcher(pools.send, timeouts);
  const fetcherOf = (name: string) => {
    const graphql = options.inProcess?.[name];
    return graphql ? subgraphFetcher(inProcessTransport(graphql), timeouts) : subgraphFetch;
  };
  const urlOf = (name: string, url?: string) => options.subgraphUrls[name] ?? url ?? '';
  const health = subgraphHealth({ urls: options.subgraphUrls, log, probeTimeoutMs: Math.min(1000, timeouts.queryMs) });
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    experimental_approximateQueryPlanStoreMiB: 50,
    logger: log,
    buildService: ({ name, url }) => new SubgraphDataSource<RouterContext>(urlOf(name, url), fetcherOf(name), name, health.onFailure),
  });
  const limits = options.limits ?? {};
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth ?? 12 },
    // No allow list: aliased __typename fields count like any other (armor exempts them by default).
    maxAliases: { n: limits.maxAliases ?? 30, allowList: [] },
    costLimit: { maxCost: limits.maxCost ?? 20_000 },
    maxTokens: { n: limits.maxTokens ?? 5000 },
    blockFieldSuggestion: { enabled: false },
  });
  const protection = armor.protect();
  const documents = trustedDocuments<RouterContext>(options.operations ?? new Map(), options.trustedDocuments ?? 'any');
  // graphql-armor is typed against Apollo's CommonJS build; the plugins are the same objects.
  const armorPlugins = protection.plugins as unknown as ApolloServerPlugin<RouterContext>[];
  const apollo = new ApolloServer<RouterContext>({
    // A subgraph's failure stays at the fields it was to fill, and every error is in `errors` (answer-errors.ts).
    gateway: specErrorsGateway(gateway),
    introspection: true,
    // svc owns shutdown (drain HTTP, stop jobs, close pools); Apollo must not race it.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    logger: log,
    persistedQueries: { cache: documents.cache, ttl: null },
    plugins: [documents.plugin, ...armorPlugins, useFiniteVariables<RouterContext>(), operationResolution<RouterContext>()],
    // Messages from the gateway's own libraries can carry terminal colour codes.
    formatError: plainMessage,
    // armor's depth limit skips __schema; introspection gets its own bound (kit graph/introspection-limit.ts).
    validationRules: [...protection.validationRules, introspectionDepthRule(), BadTextRule, FiniteNumberRule],
  });
  await apollo.start();
  const isTrusted = createAddressMatcher(options.trustedProxies);
  const sign = options.clientAddressKey ? clientAddressSigner(options.clientAddressKey) : undefined;
  const contextOf = (headers: IncomingHttpHeaders, address: string | undefined): RouterContext => ({
    headers,
    clientIp: address,
    clientIpSignature: address && sign ? sign(address) : undefined,
  });
  const context = async (req: IncomingMessage): Promise<RouterContext> => contextOf(req.headers, clientIp(req, isTrusted));
  const server = createHttpServer({
    name: 'router',
    log,
    corsOrigins: options.corsOrigins,
    routes: [
      ...healthRoutes({ service: 'router', log, ready: health.dependencies }),
      ...landingPageRoutes('/graphql', options.graphiqlTabs ?? (await loadGraphiqlTabs())),
      { method: '*', path: '/graphql', handle: apolloHandler(apollo, context, options.maxBodyBytes) },
    ],
  });
  const running = await listen(server, port, host);
  log.info({ url: `${running.url}/graphql` }, 'router listening');
  return {
    ...running,
    graphql: inProcessGraphql(apollo, async (headers) => contextOf(headers, forwardedClientIp(headers['x-forwarded-for'], isTrusted))),
    close: async (graceMs) => {
      await running.close(graceMs);
      await apollo.stop();
      await pools.close();
    },
  };
}
