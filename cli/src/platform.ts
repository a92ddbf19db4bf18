import { cmsConfig } from '@svc/cms/config';
import { crawlConfig, type CrawlStart } from '@svc/crawl/config';
import { insightConfig, type InsightStart } from '@svc/insight/config';
import {
  bridgeUrl, clientAddressKey, ConfigError, createCache, createLogger, createPurgeChannel, createSessionRevocations, loadOperations, createTokenVerifier, databaseUrlOf, EMBEDDED_JWT_SECRET, embeddedSecret, isEmbedded, routerUrl, startEmbeddedDatabase, subgraphUrl,
  type InProcessGraphql, type Logger, type RunningSubgraph, type ServiceName, type ServiceStart,
} from '@svc/kit';
import { EMBEDDED_MASTER_KEY, llmConfig } from '@svc/llm/config';
import type { RunningRouter } from '@svc/router';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.js';
import { OPERATIONS_DIR, SUPERGRAPH_FILE } from './paths.js';
import { servicesRunBy, type Service } from './services.js';

const AVAILABLE: readonly Service[] = ['all', 'graph', 'edge', 'router', 'bridge', 'insight', 'llm', 'crawl', 'cms', 'worker', 'dashboard'];

export interface Platform {
  urls: Partial<Record<'bridge' | 'router' | 'dashboard' | ServiceName, string>>;
  log: Logger;
  close(): Promise<void>;
}

/**
 * Starts the chosen services in this process, in dependency order; `close` stops them in reverse.
 * `config` is what `loadPlatformConfig(env, service)` validated; each service's options come
 * from its slice's `fromConfig`. A service's code is loaded only by a process that runs it (its
 * config slice is light): `svc cms` holds cms and kit, not crawl's browser and DOM libraries,
 * and its heap is a third of the whole platform's (bench/RESULTS.md).
 */
export async function startPlatform(config: Config, service: Service, log = createLogger({ level: config.LOG_LEVEL, name: service })): Promise<Platform> {
  if (!AVAILABLE.includes(service)) throw new ConfigError(`Service "${service}" is not part of this build yet; available: ${AVAILABLE.join(', ')}`);
  const closers: { name: string; close: () => Promise<void> }[] = [];
  const urls: Platform['urls'] = {};
  const close = async () => {
    for (const { name, close } of closers.reverse()) {
      const started = Date.now();
      await close().catch((error: unknown) => log.error({ err: error, name }, 'error while stopping'));
      log.info({ name, durationMs: Date.now() - started }, 'stopped');
    }
  };
  const running = servicesRunBy(service);
  const runs = (s: Service) => running.includes(s);
  try {
    let databaseUrl = databaseUrlOf(config);
    if (isEmbedded(config) && (['insight', 'llm', 'crawl', 'cms', 'worker'] as const).some(runs)) {
      const db = await startEmbeddedDatabase(config.SVC_DATA_DIR, log.child({ svc: 'db' }));
      closers.push({ name: 'embedded-db', close: db.close });
      databaseUrl = db.url;
    }
    const jwtSecret = config.SVC_JWT_SECRET ?? (config.SVC_JWKS_URL ? undefined : await embeddedSecret(config, EMBEDDED_JWT_SECRET, log));
    // Ended sessions and login throttles are shared through Redis, or this process's cache (every service of `svc all`).
    const verifies = (['insight', 'llm', 'crawl', 'cms', 'worker'] as const).some(runs);
    // The dashboard keeps its sessions there too (every instance, and a restart, keep them with Redis).
    const sharedCache = createCache({ redisUrl: verifies || runs('dashboard') ? config.REDIS_URL : undefined, prefix: config.SVC_REDIS_PREFIX, log: log.child({ svc: 'shared-cache' }) });
    closers.push({ name: 'shared-cache', close: () => sharedCache.close() });
    if (verifies && !config.REDIS_URL && !isEmbedded(config) && service !== 'all') {
      log.warn('REDIS_URL is not set: a password change or disable ends sessions only at the services of this process; set REDIS_URL when services run in several processes');
    }
    const sessions = createSessionRevocations({ cache: sharedCache, maxLifetimeSeconds: config.SVC_JWT_MAX_LIFETIME_SECONDS, checkSeconds: config.SVC_SESSION_CHECK_SECONDS });
    const verifier = createTokenVerifier({ secret: jwtSecret, jwksUrl: config.SVC_JWKS_URL, maxLifetimeSeconds: config.SVC_JWT_MAX_LIFETIME_SECONDS, sessions });
    const start = (svc: string): ServiceStart => ({ databaseUrl: databaseUrl!, verifier, log: log.child({ svc }) });
    const host = config.SVC_HOST;
    const subgraphUrls: Record<string, string> = { insight: subgraphUrl(config, 'insight'), llm: subgraphUrl(config, 'llm'), crawl: subgraphUrl(config, 'crawl'), cms: subgraphUrl(config, 'cms') };
    /** Subgraphs of this process: the router calls them without a socket. */
    const inProcessGraphql: Record<string, InProcessGraphql> = {};
    const serve = (name: ServiceName, runtime: { server: RunningSubgraph; close(): Promise<void> }) => {
      closers.push({ name, close: runtime.close });
      urls[name] = subgraphUrls[name] = `${runtime.server.url}/graphql`;
      inProcessGraphql[name] = runtime.server.graphql;
    };
    // Services call each other through the router; in one process its port is known only once it listens.
    let routerGraphql = routerUrl(config);
    let issuedGatewayKey: string | undefined;
    /** Services whose native HTTP paths the bridge hands over without a socket when they run here. */
    const inProcess: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<boolean>> = {};
    let issuedInsightKey: string | undefined;
    const crawlStart = (svc: string): CrawlStart => ({ ...start(svc), routerUrl: () => routerGraphql, issuedGatewayKey: () => issuedGatewayKey });
    const insightStart = (svc: string): InsightStart => ({ ...start(svc), jwtSecret, sharedCache, sessions, routerUrl: () => routerGraphql, issuedGatewayKey: () => issuedInsightKey });

    if (runs('insight')) {
      if (config.SVC_ADMIN_PASSWORD === 'admin') {
        log.warn('DEFAULT CREDENTIALS IN USE: the local account is admin/admin. Set SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD before exposing this platform.');
      }
      const { startInsight } = await import('@svc/insight');
      serve('insight', await startInsight(insightConfig.fromConfig(config, insightStart('insight')), config.SVC_INSIGHT_PORT, host));
    }
    if (runs('llm')) {
      const masterKey = config.SVCLLM_MASTER_KEY ?? (await embeddedSecret(config, EMBEDDED_MASTER_KEY, log));
      const { startLlm } = await import('@svc/llm');
      const llm = await startLlm(llmConfig.fromConfig(config, { ...start('llm'), masterKey, env: process.env }), config.SVC_LLM_PORT, host);
      serve('llm', llm);
      inProcess.llm = llm.openAi;
      if (runs('crawl') && !config.SVC_CRAWL_GATEWAY_KEY) issuedGatewayKey = await llm.issueServiceKey('crawl', 'svc-crawl-service');
      if (runs('insight') && !config.SVC_INSIGHT_GATEWAY_KEY) issuedInsightKey = await llm.issueServiceKey('insight', 'svc-insight-service');
    }
    if (runs('crawl')) {
      const { startCrawl } = await import('@svc/crawl');
      serve('crawl', await startCrawl(crawlConfig.fromConfig(config, crawlStart('crawl')), config.SVC_CRAWL_PORT, host));
    }
    if (runs('worker')) {
      const [{ startCrawlWorker }, { startAnalysisWorker }] = await Promise.all([import('@svc/crawl'), import('@svc/insight')]);
      const worker = await startCrawlWorker(crawlConfig.fromConfig(config, crawlStart('worker')));
      closers.push({ name: 'worker', close: worker.close });
      const analysis = await startAnalysisWorker(insightConfig.fromConfig(config, insightStart('worker')));
      closers.push({ name: 'analysis-worker', close: analysis.close });
    }
    if (runs('cms')) {
      const { startCms } = await import('@svc/cms');
      serve('cms', await startCms(cmsConfig.fromConfig(config, start('cms')), config.SVC_CMS_PORT, host));
    }
    let router: RunningRouter | undefined;
    if (runs('router')) {
      const { startRouter } = await import('@svc/router');
      router = await startRouter(
        {
          supergraphSdl: await readFile(SUPERGRAPH_FILE, 'utf8'),
          subgraphUrls,
          inProcess: inProcessGraphql,
          log: log.child({ svc: 'router' }),
          corsOrigins: config.SVC_CORS_ORIGINS,
          trustedProxies: config.SVC_TRUSTED_PROXIES,
          clientAddressKey: jwtSecret ? clientAddressKey(jwtSecret) : undefined,
          maxBodyBytes: config.SVC_MAX_BODY_BYTES,
          operations: await loadOperations(OPERATIONS_DIR),
          trustedDocuments: config.SVC_TRUSTED_DOCUMENTS,
          compiledShaping: config.SVC_ROUTER_COMPILED_SHAPING,
          subgraphTimeouts: { queryMs: config.SVC_ROUTER_SUBGRAPH_TIMEOUT_MS, mutationMs: config.SVC_ROUTER_MUTATION_TIMEOUT_MS },
        },
        config.SVC_ROUTER_PORT,
        host,
      );
      closers.push({ name: 'router', close: () => router!.close() });
      urls.router = routerGraphql = `${router.url}/graphql`;
    }
    if (runs('bridge')) {
      const { ROUTES, startBridge } = await import('@svc/rest-bridge');
      const bridge = await startBridge(
        {
          routes: ROUTES,
          operations: await loadOperations(OPERATIONS_DIR),
          routerUrl: router ? `${router.url}/graphql` : routerUrl(config),
          // The router of this process runs the bridge's operations without a socket.
          router: router?.graphql,
          log: log.child({ svc: 'bridge' }),
          maxBodyBytes: config.SVC_MAX_BODY_BYTES,
          corsOrigins: config.SVC_CORS_ORIGINS,
          trustedProxies: config.SVC_TRUSTED_PROXIES,
          publicBaseUrl: config.SVC_PUBLIC_BASE_URL,
          streamTargets: { llm: subgraphUrls.llm!.replace(/\/graphql$/, ''), insight: subgraphUrls.insight!.replace(/\/graphql$/, '') },
          inProcess,
          // Deliveries are kept in the bridge's memory only where it hears every purge: over Redis, or from the content service in this process.
          purgeChannel: config.REDIS_URL || runs('cms') ? createPurgeChannel({ redisUrl: config.REDIS_URL, prefix: config.SVC_REDIS_PREFIX, log: log.child({ svc: 'bridge' }) }) : undefined,
        },
        config.SERVER_PORT,
        host,
      );
      closers.push({ name: 'bridge', close: () => bridge.close() });
      urls.bridge = bridge.url;
    }
    if (runs('dashboard')) {
      const { createDashboardSessions, startDashboard } = await import('@svc/dashboard');
      const dashboard = await startDashboard(
        {
          bridgeUrl: urls.bridge ?? bridgeUrl(config),
          routerUrl: urls.router ?? routerUrl(config),
          log: log.child({ svc: 'dashboard' }),
          defaultCredentials: config.SVC_ADMIN_USERNAME === 'admin' && config.SVC_ADMIN_PASSWORD === 'admin',
          sessions: createDashboardSessions(sharedCache),
          secureCookie: config.SVC_DASHBOARD_SECURE_COOKIE,
          trustedProxies: config.SVC_TRUSTED_PROXIES,
        },
        config.SVC_DASHBOARD_PORT,
        host,
      );
      closers.push({ name: 'dashboard', close: () => dashboard.close() });
      urls.dashboard = `${dashboard.url}/`;
    }
    return { urls, log, close };
  } catch (error) {
    await close();
    throw error;
  }
}
