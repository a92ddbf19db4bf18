import { buildSubgraphSdl, createJobs, createSubgraphServer, openDatabase, type Logger, type RunningServer, type SchemaParts, type SvcContext, type TokenVerifier } from '@svc/kit';
import { createHostLimiter } from './domain/host-politeness.js';
import { createPageFetcher } from './fetch/fetch-page.js';
import { createSsrfGuard } from './fetch/ssrf-guard.js';
import { CrawlResolver } from './schema/crawl-resolver.js';
import { executionView, jobView } from './schema/views.js';
import { createCrawlScheduler } from './service/crawl-scheduler.js';
import { createCrawlService, type CrawlService } from './service/crawl-service.js';
import { tenantOf } from './service/tenancy.js';
import { createItemStore } from './store/item-store.js';
import { createJobStore, type JobStore } from './store/job-store.js';
import { CRAWL_MIGRATIONS } from './store/migrations.js';

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
  poolMax: number;
  workerName: string;
}

function parts(crawl?: CrawlService, jobs?: JobStore): SchemaParts {
  return {
    resolvers: [CrawlResolver],
    instances: crawl ? [new CrawlResolver(crawl)] : [],
    referenceResolvers: {
      CrawlJob: {
        async __resolveReference(reference: { jobId: string }, ctx: SvcContext) {
          const job = await jobs!.job(tenantOf(ctx), reference.jobId);
          return job ? jobView(job) : null;
        },
      },
      CrawlExecution: {
        async __resolveReference(reference: { executionId: string }, ctx: SvcContext) {
          const execution = await jobs!.execution(tenantOf(ctx), reference.executionId);
          return execution ? executionView(execution) : null;
        },
      },
    },
  };
}

export async function crawlSdl(): Promise<string> {
  return (await buildSubgraphSdl(parts())).sdl;
}

/** The crawl subgraph with one in-process worker. */
export async function startCrawl(options: CrawlOptions, port: number, host: string): Promise<{ server: RunningServer; close(): Promise<void> }> {
  const { log } = options;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'crawl', entities: [], migrations: CRAWL_MIGRATIONS, poolMax: options.poolMax, log });
  const jobs = createJobStore(orm);
  const items = createItemStore(orm);
  const guard = createSsrfGuard({ allow: options.allowPrivateHosts });
  const limiter = createHostLimiter({ concurrencyPerHost: 2, delayMs: 250 });
  const fetchers = {
    respect: createPageFetcher({ guard, limiter, robots: 'respect' }),
    ignore: createPageFetcher({ guard, limiter, robots: 'ignore' }),
  };
  const agendaJobs = await createJobs({ url: options.databaseUrl, name: options.workerName, log, lockLifetimeMs: options.lockLifetimeMs });
  const scheduler = createCrawlScheduler(agendaJobs.agenda, jobs, { jobs, items, fetchers, log }, options.workerName, options.lockLifetimeMs, log);
  scheduler.define();
  await agendaJobs.agenda.start();
  const crawl = createCrawlService({ jobs, items, scheduler, triggerWaitMs: options.triggerWaitMs, log });
  const { schema } = await buildSubgraphSdl(parts(crawl, jobs));
  const server = await createSubgraphServer({
    name: 'crawl',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    ready: async () => {
      await orm.em.fork().execute('select 1');
    },
  }).listen(port, host);
  return {
    server,
    async close() {
      await server.close();
      await agendaJobs.close();
      fetchers.respect.close();
      fetchers.ignore.close();
      await orm.close();
    },
  };
}
