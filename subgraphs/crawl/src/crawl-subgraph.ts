import { buildSubgraphSdl, closeDatabase, createJobs, createOutboundHttp, createRouterClient, type OutboundHttp, createSsrfGuard, createSubgraphServer, batchedReference, loadOperations, type Logger, openDatabase, type RunningSubgraph, type SchemaParts, type TokenVerifier } from '@svc/kit';
import { createHostLimiter } from './domain/host-politeness.js';
import { createPageFetcher } from './fetch/fetch-page.js';
import { CrawlResolver } from './schema/crawl-resolver.js';
import { executionView, itemView, jobView } from './schema/views.js';
import { createCrawlService, type CrawlQueue, type CrawlService } from './service/crawl-service.js';
import { seedDemo } from './service/seed-demo.js';
import { tenantOf } from './service/tenancy.js';
import { createChangeStore } from './store/change-store.js';
import { createItemStore, type ItemStore } from './store/item-store.js';
import { createWebhookStore, type WebhookStore } from './store/webhook-store.js';
import { createExecutionWebhooks } from './worker/execution-webhooks.js';
import { createJobStore, type JobStore } from './store/job-store.js';
import { createKnowledgeStore, type KnowledgeStore } from './store/knowledge-store.js';
import { createGatewayEmbedder, type Embedder } from './service/gateway-embedder.js';
import { CRAWL_MIGRATIONS } from './store/migrations.js';
import { createCrawlQueue } from './worker/crawl-queue.js';
import { defineRunCrawlExecution } from './worker/run-crawl-execution.js';
import { defineRunScheduledCrawl } from './worker/run-scheduled-crawl.js';

export interface CrawlOptions {
  databaseUrl: string;
  verifier: TokenVerifier;
  log: Logger;
  /** Hosts, addresses or CIDR ranges the crawler may fetch although they are private (SVC_CRAWL_ALLOW_PRIVATE_HOSTS). */
  allowPrivateHosts: readonly string[];
  /** How long a trigger waits for a worker to lock the run (SVC_CRAWL_TRIGGER_WAIT_MS). */
  triggerWaitMs: number;
  /** Job lock lifetime: a dead worker's run is taken over after it (SVC_CRAWL_LOCK_LIFETIME_MS). */
  lockLifetimeMs: number;
  maxBodyBytes: number;
  compiledExecution?: boolean;
  poolMax: number;
  workerName: string;
  /** Run crawl jobs in this process too (SVC_CRAWL_WORKER); default true. */
  inProcessWorker?: boolean;
  /** Runs this process executes at once (SVC_CRAWL_CONCURRENCY). */
  concurrency: number;
  /** First pause of a site after a block page without Retry-After, doubling per block in a row (SVC_CRAWL_BLOCK_BACKOFF_MS). */
  blockBackoffMs?: number;
  /** Non-public hosts jobs' webhook URLs may reach (SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS). */
  outboundAllow?: readonly string[];
  /** Execution webhooks: first retry delay, attempts before the dead letter, outbox sweep period (SVC_CRAWL_WEBHOOK_*). */
  webhooks?: { retryBaseMs: number; maxAttempts: number; sweepMs: number };
  /** The router's GraphQL URL (the gateway is reached through it); read when needed. */
  routerUrl: () => string;
  /** The crawl service's model gateway key (SVC_CRAWL_GATEWAY_KEY); read when needed. */
  gatewayKey: () => string | undefined;
  /** Seed the embedded demo's crawl job and its past runs (SVC_SEED_DEMO, default in embedded mode). */
  seedDemo?: boolean;
}

/** What a crawl worker needs: the database, and how to fetch. */
export type CrawlWorkerOptions = Pick<CrawlOptions, 'databaseUrl' | 'log' | 'allowPrivateHosts' | 'lockLifetimeMs' | 'poolMax' | 'workerName' | 'concurrency' | 'routerUrl' | 'gatewayKey' | 'blockBackoffMs' | 'outboundAllow' | 'webhooks'>;

const WEBHOOK_DEFAULTS = { retryBaseMs: 5_000, maxAttempts: 6, sweepMs: 30_000 };

interface CrawlRuntime {
  jobs: JobStore;
  items: ItemStore;
  knowledge: KnowledgeStore;
  embedder: Embedder;
  queue: CrawlQueue;
  webhooks: WebhookStore;
  outbound: OutboundHttp;
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Stores, fetchers and the crawl queue on agenda. With `work` set this process runs crawl jobs
 * (a worker: the jobs in worker/); without, it only enqueues them for the workers.
 */
async function openCrawlRuntime(options: CrawlWorkerOptions, work: boolean): Promise<CrawlRuntime> {
  const { log } = options;
  // Read first: a missing schema/operations/ stops the start before anything is opened.
  const operations = await loadOperations();
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'crawl', entities: [], migrations: CRAWL_MIGRATIONS, poolMax: options.poolMax, log });
  const jobs = createJobStore(orm);
  const items = createItemStore(orm);
  const guard = createSsrfGuard({ allow: options.allowPrivateHosts });
  const limiter = createHostLimiter({ concurrencyPerHost: 2, delayMs: 250 });
  const fetchers = {
    respect: createPageFetcher({ guard, limiter, robots: 'respect', ...(options.blockBackoffMs !== undefined ? { blockBackoffMs: options.blockBackoffMs } : {}) }),
    ignore: createPageFetcher({ guard, limiter, robots: 'ignore', ...(options.blockBackoffMs !== undefined ? { blockBackoffMs: options.blockBackoffMs } : {}) }),
  };
  const agendaJobs = await createJobs({ url: options.databaseUrl, name: options.workerName, log, lockLifetimeMs: options.lockLifetimeMs });
  const knowledge = createKnowledgeStore(orm);
  const router = createRouterClient({ url: options.routerUrl, operations });
  const embedder = createGatewayEmbedder({ router, apiKey: options.gatewayKey });
  const queue = createCrawlQueue(agendaJobs.agenda, log);
  const webhooks = createWebhookStore(orm);
  const outbound = createOutboundHttp({ allow: options.outboundAllow ?? [] });
  let sweeper: NodeJS.Timeout | undefined;
  if (work) {
    const changes = createChangeStore(orm);
    const hookSettings = options.webhooks ?? WEBHOOK_DEFAULTS;
    const delivery = createExecutionWebhooks(agendaJobs.agenda, webhooks, outbound, hookSettings, log);
    const runner = { jobs, items, changes, fetchers, rag: { items, changes, knowledge, embedder, log }, webhooks: delivery, log };
    const settings = { workerName: options.workerName, lockLifetimeMs: options.lockLifetimeMs, concurrency: options.concurrency };
    defineRunCrawlExecution(agendaJobs.agenda, runner, settings);
    defineRunScheduledCrawl(agendaJobs.agenda, jobs, runner, settings, log);
    delivery.define();
    await agendaJobs.agenda.start();
    const sweep = () => delivery.sweep().catch((error: unknown) => log.error({ err: error }, 'crawl webhook outbox sweep failed'));
    void sweep();
    sweeper = setInterval(sweep, hookSettings.sweepMs);
    sweeper.unref();
  }
  return {
    jobs,
    items,
    knowledge,
    embedder,
    queue,
    webhooks,
    outbound,
    ready: async () => void (await orm.em.fork().execute('select 1')),
    async close() {
      if (sweeper) clearInterval(sweeper);
      await agendaJobs.close();
      fetchers.respect.close();
      fetchers.ignore.close();
      await router.close();
      await closeDatabase(orm, log);
    },
  };
}

function parts(crawl?: CrawlService, jobs?: JobStore, items?: ItemStore): SchemaParts {
  return {
    resolvers: [CrawlResolver],
    instances: crawl ? [new CrawlResolver(crawl)] : [],
    // One query per entity type for all the references of a request (kit reference-loader.ts).
    referenceResolvers: {
      CrawlJob: {
        __resolveReference: batchedReference('CrawlJob', (r: { jobId: string }) => r.jobId, async (ctx, ids) => {
          const found = await jobs!.jobsByIds(tenantOf(ctx), ids);
          return new Map([...found].map(([id, job]) => [id, jobView(job)]));
        }),
      },
      CrawlItem: {
        __resolveReference: batchedReference('CrawlItem', (r: { id: string }) => r.id, async (ctx, ids) => {
          const found = await items!.itemsByIds(tenantOf(ctx), ids);
          return new Map([...found].map(([id, item]) => [id, itemView(item)]));
        }),
      },
      CrawlExecution: {
        __resolveReference: batchedReference('CrawlExecution', (r: { executionId: string }) => r.executionId, async (ctx, ids) => {
          const found = await jobs!.executionsByIds(tenantOf(ctx), ids);
          return new Map([...found].map(([id, execution]) => [id, executionView(execution)]));
        }),
      },
    },
  };
}

export async function crawlSdl(): Promise<string> {
  return (await buildSubgraphSdl(parts())).sdl;
}

/** `svc worker`: runs crawl jobs and serves nothing. Stopping releases its locks. */
export async function startCrawlWorker(options: CrawlWorkerOptions): Promise<{ close(): Promise<void> }> {
  const runtime = await openCrawlRuntime(options, true);
  options.log.info({ worker: options.workerName, lockLifetimeMs: options.lockLifetimeMs }, 'crawl worker started');
  return { close: runtime.close };
}

/** The crawl subgraph, by default with one in-process worker. */
export async function startCrawl(options: CrawlOptions, port: number, host: string): Promise<{ server: RunningSubgraph; close(): Promise<void> }> {
  const { log } = options;
  const runtime = await openCrawlRuntime(options, options.inProcessWorker ?? true);
  if (options.seedDemo) await seedDemo(runtime.jobs, log);
  const crawl = createCrawlService({
    jobs: runtime.jobs, items: runtime.items, knowledge: runtime.knowledge, embedder: runtime.embedder, queue: runtime.queue,
    webhooks: runtime.webhooks, outbound: runtime.outbound, triggerWaitMs: options.triggerWaitMs, log,
  });
  const { schema } = await buildSubgraphSdl(parts(crawl, runtime.jobs, runtime.items));
  const server = await createSubgraphServer({
    name: 'crawl',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    compiledExecution: options.compiledExecution,
    ready: runtime.ready,
  }).listen(port, host);
  return {
    server,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}
