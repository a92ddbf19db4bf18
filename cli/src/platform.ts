import { startInsight } from '@svc/insight';
import { startCms } from '@svc/cms';
import { startCrawl, startCrawlWorker } from '@svc/crawl';
import { startLlm } from '@svc/llm';
import {
  ConfigError, createLogger, createTokenVerifier, databaseUrlOf, isEmbedded, routerUrl, startEmbeddedDatabase, subgraphUrl,
  type Config, type Logger, type RunningServer, type ServiceName,
} from '@svc/kit';
import { startRouter } from '@svc/router';
import { loadOperations, ROUTES, startBridge } from '@svc/rest-bridge';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS_DIR, SUPERGRAPH_FILE } from './paths.js';

/** Processes `svc` can run. `all` is every service in one process. */
export const SERVICES = ['all', 'router', 'bridge', 'insight', 'llm', 'crawl', 'cms', 'worker', 'dashboard', 'insight-mcp', 'crawl-mcp'] as const;
export type Service = (typeof SERVICES)[number];
const AVAILABLE: readonly Service[] = ['all', 'router', 'bridge', 'insight', 'llm', 'crawl', 'cms', 'worker'];

export interface Platform {
  urls: Partial<Record<'bridge' | 'router' | ServiceName, string>>;
  log: Logger;
  close(): Promise<void>;
}

/** A secret from the environment, or (embedded mode only) one generated once and kept under SVC_DATA_DIR. */
async function embeddedSecret(config: Config, file: string, log: Logger, what: string): Promise<string> {
  const path = join(config.SVC_DATA_DIR, file);
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    const secret = file === 'svcllm-master-key' ? `sk-svc-master-${randomBytes(24).toString('base64url')}` : randomBytes(48).toString('base64url');
    await mkdir(config.SVC_DATA_DIR, { recursive: true });
    await writeFile(path, `${secret}\n`, { mode: 0o600 });
    log.info({ file: path }, `generated ${what} for embedded mode`);
    return secret;
  }
}

async function jwtSecretFor(config: Config, embedded: boolean, log: Logger): Promise<string | undefined> {
  if (config.SVC_JWT_SECRET) return config.SVC_JWT_SECRET;
  if (config.SVC_JWKS_URL) return undefined;
  if (!embedded) throw new ConfigError('SVC_JWT_SECRET is required (at least 32 characters) unless SVC_JWKS_URL is set; only the embedded mode generates one');
  return embeddedSecret(config, 'jwt-secret', log, 'a JWT signing secret');
}

/** Starts the chosen services in this process, in dependency order; `close` stops them in reverse. */
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
  const runs = (s: Service) => service === 'all' || service === s;
  try {
    const needsDb = runs('insight') || runs('cms') || runs('llm') || runs('crawl') || service === 'worker';
    const embedded = isEmbedded(config);
    if (service === 'worker' && embedded) {
      throw new ConfigError('svc worker needs a PostgreSQL shared with the crawl service (DATABASE_URL or DB_HOST); embedded PGlite belongs to one process');
    }
    let databaseUrl = databaseUrlOf(config);
    if (needsDb && embedded) {
      const db = await startEmbeddedDatabase(config.SVC_DATA_DIR, log.child({ svc: 'db' }));
      closers.push({ name: 'embedded-db', close: db.close });
      databaseUrl = db.url;
    }
    const jwtSecret = await jwtSecretFor(config, embedded, log);
    const verifier = createTokenVerifier({ secret: jwtSecret, jwksUrl: config.SVC_JWKS_URL });
    const host = config.SVC_HOST;
    const common = { verifier, maxBodyBytes: config.SVC_MAX_BODY_BYTES, poolMax: config.DB_POOL_MAX, databaseUrl: databaseUrl! };
    const subgraphUrls: Record<string, string> = { insight: subgraphUrl(config, 'insight'), llm: subgraphUrl(config, 'llm'), crawl: subgraphUrl(config, 'crawl'), cms: subgraphUrl(config, 'cms') };
    const workerName = config.SVC_WORKER_NAME ?? `${hostname()}:${process.pid}`;
    // Services call each other through the router; in one process its port is known only once it listens.
    let routerGraphql = routerUrl(config);
    let crawlGatewayKey = config.SVC_CRAWL_GATEWAY_KEY;
    const crawlGateway = { routerUrl: () => routerGraphql, gatewayKey: () => crawlGatewayKey };
    let insightGatewayKey: string | undefined;

    if (runs('insight')) {
      if (config.SVC_ADMIN_PASSWORD === 'admin') {
        log.warn('DEFAULT CREDENTIALS IN USE: the local account is admin/admin. Set SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD before exposing this platform.');
      }
      const insight = await startInsight(
        {
          ...common,
          log: log.child({ svc: 'insight' }),
          jwtSecret,
          tokenTtlSeconds: config.SVC_JWT_TTL_SECONDS,
          adminUsername: config.SVC_ADMIN_USERNAME,
          adminPassword: config.SVC_ADMIN_PASSWORD,
          analysis: {
            workerName,
            inProcessWorker: true,
            concurrency: 2,
            lockLifetimeMs: 30_000,
            maxSteps: 40,
            timeoutMs: 300_000,
            actionTtlHours: 72,
            modelName: config.LLM_MODEL_NAME ?? 'auto-route',
            piiStrict: false,
            seedDemo: config.SVC_SEED_DEMO ?? embedded,
            routerUrl: () => routerGraphql,
            gatewayKey: () => insightGatewayKey,
          },
        },
        config.SVC_INSIGHT_PORT,
        host,
      );
      closers.push({ name: 'insight', close: insight.close });
      urls.insight = subgraphUrls.insight = `${insight.server.url}/graphql`;
    }
    if (runs('llm')) {
      let masterKey = config.SVCLLM_MASTER_KEY;
      if (!masterKey) {
        if (!embedded) throw new ConfigError('SVCLLM_MASTER_KEY is required (at least 16 characters) outside embedded mode');
        masterKey = await embeddedSecret(config, 'svcllm-master-key', log, 'the model gateway master key (SVCLLM_MASTER_KEY)');
      }
      const llm = await startLlm(
        {
          ...common,
          log: log.child({ svc: 'llm' }),
          redisUrl: config.REDIS_URL,
          redisPrefix: config.SVC_REDIS_PREFIX,
          masterKey,
          webhookSecret: config.SVCLLM_WEBHOOK_SECRET ?? masterKey,
          configFile: config.SVCLLM_CONFIG,
          llmBaseUrl: config.LLM_BASE_URL,
          llmApiKey: config.LLM_API_KEY,
          llmModelName: config.LLM_MODEL_NAME,
          defaultPrice: { inputPerMTok: config.SVCLLM_DEFAULT_INPUT_USD_PER_MTOK, outputPerMTok: config.SVCLLM_DEFAULT_OUTPUT_USD_PER_MTOK },
          cacheTtlSeconds: config.SVCLLM_CACHE_TTL_SECONDS,
          alertRetryBaseMs: config.SVCLLM_ALERT_RETRY_BASE_MS,
          workerName,
          env: process.env,
        },
        config.SVC_LLM_PORT,
        host,
      );
      closers.push({ name: 'llm', close: llm.close });
      if (runs('crawl') && !crawlGatewayKey) crawlGatewayKey = await llm.issueServiceKey('crawl', 'svc-crawl-service');
      if (runs('insight')) insightGatewayKey = await llm.issueServiceKey('insight', 'svc-insight-service');
      urls.llm = subgraphUrls.llm = `${llm.server.url}/graphql`;
    }
    if (runs('crawl')) {
      const crawl = await startCrawl(
        {
          ...common,
          log: log.child({ svc: 'crawl' }),
          allowPrivateHosts: config.SVC_CRAWL_ALLOW_PRIVATE_HOSTS,
          triggerWaitMs: config.SVC_CRAWL_TRIGGER_WAIT_MS,
          lockLifetimeMs: config.SVC_CRAWL_LOCK_LIFETIME_MS,
          workerName,
          inProcessWorker: config.SVC_CRAWL_WORKER,
          concurrency: config.SVC_CRAWL_CONCURRENCY,
          ...crawlGateway,
        },
        config.SVC_CRAWL_PORT,
        host,
      );
      closers.push({ name: 'crawl', close: crawl.close });
      urls.crawl = subgraphUrls.crawl = `${crawl.server.url}/graphql`;
    }
    if (service === 'worker') {
      const worker = await startCrawlWorker({
        ...crawlGateway,
        concurrency: config.SVC_CRAWL_CONCURRENCY,
        databaseUrl: databaseUrl!,
        log: log.child({ svc: 'worker' }),
        allowPrivateHosts: config.SVC_CRAWL_ALLOW_PRIVATE_HOSTS,
        lockLifetimeMs: config.SVC_CRAWL_LOCK_LIFETIME_MS,
        poolMax: config.DB_POOL_MAX,
        workerName,
      });
      closers.push({ name: 'worker', close: worker.close });
    }
    if (runs('cms')) {
      const cms = await startCms(
        {
          ...common,
          log: log.child({ svc: 'cms' }),
          redisUrl: config.REDIS_URL,
          redisPrefix: config.SVC_REDIS_PREFIX,
          edgePurgeUrls: config.SVC_EDGE_PURGE_URLS,
          cacheTtlSeconds: config.SVC_CMS_CACHE_TTL_SECONDS,
          formRateLimitPerMinute: config.SVC_FORM_RATE_LIMIT_PER_MINUTE,
          webhookRetryBaseMs: config.SVC_WEBHOOK_RETRY_BASE_MS,
          seedDemo: config.SVC_SEED_DEMO ?? embedded,
          workerName,
        },
        config.SVC_CMS_PORT,
        host,
      );
      closers.push({ name: 'cms', close: cms.close });
      urls.cms = subgraphUrls.cms = `${cms.server.url}/graphql`;
    }
    let router: RunningServer | undefined;
    if (runs('router')) {
      router = await startRouter(
        {
          supergraphSdl: await readFile(SUPERGRAPH_FILE, 'utf8'),
          subgraphUrls,
          log: log.child({ svc: 'router' }),
          corsOrigins: config.SVC_CORS_ORIGINS,
          trustedProxies: config.SVC_TRUSTED_PROXIES,
          maxBodyBytes: config.SVC_MAX_BODY_BYTES,
        },
        config.SVC_ROUTER_PORT,
        host,
      );
      closers.push({ name: 'router', close: () => router!.close() });
      urls.router = routerGraphql = `${router.url}/graphql`;
    }
    if (runs('bridge')) {
      const bridge = await startBridge(
        {
          routes: ROUTES,
          operations: await loadOperations(OPERATIONS_DIR),
          routerUrl: router ? `${router.url}/graphql` : routerUrl(config),
          log: log.child({ svc: 'bridge' }),
          maxBodyBytes: config.SVC_MAX_BODY_BYTES,
          corsOrigins: config.SVC_CORS_ORIGINS,
          trustedProxies: config.SVC_TRUSTED_PROXIES,
          publicBaseUrl: config.SVC_PUBLIC_BASE_URL,
          streamTargets: { llm: subgraphUrls.llm!.replace(/\/graphql$/, ''), insight: subgraphUrls.insight!.replace(/\/graphql$/, '') },
        },
        config.SERVER_PORT,
        host,
      );
      closers.push({ name: 'bridge', close: () => bridge.close() });
      urls.bridge = bridge.url;
    }
    return { urls, log, close };
  } catch (error) {
    await close();
    throw error;
  }
}
