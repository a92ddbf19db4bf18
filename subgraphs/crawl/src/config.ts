import { defineConfigSlice, envVar, isEmbedded, serviceOptions, type ServiceStart } from '@svc/kit';
import { z } from 'zod';
import type { CrawlOptions } from './crawl-subgraph.js';

/** What the start hands the crawl service (and `svc worker`) beside the configuration. */
export interface CrawlStart extends ServiceStart {
  /** The router's GraphQL URL (the gateway is reached through it); in one process known only once the router listens. */
  routerUrl: () => string;
  /** A gateway key `svc all` issued for agent `crawl`, used when SVC_CRAWL_GATEWAY_KEY is unset. */
  issuedGatewayKey: () => string | undefined;
}

/** The crawl service's variables: what it may fetch, its workers and its gateway key. */
export const crawlConfig = defineConfigSlice({
  variables: z.object({
    /** Hosts (exact or *.suffix), addresses or CIDR ranges the crawler may fetch although private. Default none. */
    SVC_CRAWL_ALLOW_PRIVATE_HOSTS: envVar.list(),
    /** How long a trigger waits for a worker to lock the run before answering 503, ms. Default 10000. */
    SVC_CRAWL_TRIGGER_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** Whether the crawl service also runs crawl jobs in its own process. Default true (`svc worker` processes add more). */
    SVC_CRAWL_WORKER: envVar.flag(true),
    /** The crawl service's model gateway key (agent `crawl`) for knowledge sync. `svc all` issues one itself when unset. */
    SVC_CRAWL_GATEWAY_KEY: z.string().min(16).optional(),
    /** Crawl runs one worker process executes at the same time. Default 4. */
    SVC_CRAWL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** First pause of a site after a block page without Retry-After, ms, doubling per block in a row (at most 5 min). Default 5000. */
    SVC_CRAWL_BLOCK_BACKOFF_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
    /** First retry delay of a failed execution webhook, ms; each further one doubles. Default 5000. */
    SVC_CRAWL_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    /** Attempts of an execution webhook before it is dead-lettered (FAILED). Default 6. */
    SVC_CRAWL_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
    /** How often each crawl worker sweeps the webhook outbox for due deliveries, ms. Default 30000. */
    SVC_CRAWL_WEBHOOK_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** Crawl job lock lifetime, ms: a dead worker's run is taken over after it. Default 30000. */
    SVC_CRAWL_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  }),
  rules: [
    {
      services: ['worker'],
      variable: 'DATABASE_URL',
      message: 'is required by svc worker (or DB_HOST): a PostgreSQL shared with the crawl service; embedded PGlite belongs to one process',
      broken: (config) => isEmbedded(config),
    },
  ],
  /** Options of the crawl service; `svc worker` takes the same (it reads the ones it needs). */
  fromConfig: (config, start: CrawlStart): CrawlOptions => ({
    ...serviceOptions(config, start),
    allowPrivateHosts: config.SVC_CRAWL_ALLOW_PRIVATE_HOSTS,
    triggerWaitMs: config.SVC_CRAWL_TRIGGER_WAIT_MS,
    lockLifetimeMs: config.SVC_CRAWL_LOCK_LIFETIME_MS,
    inProcessWorker: config.SVC_CRAWL_WORKER,
    concurrency: config.SVC_CRAWL_CONCURRENCY,
    blockBackoffMs: config.SVC_CRAWL_BLOCK_BACKOFF_MS,
    outboundAllow: config.SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS,
    webhooks: { retryBaseMs: config.SVC_CRAWL_WEBHOOK_RETRY_MS, maxAttempts: config.SVC_CRAWL_WEBHOOK_ATTEMPTS, sweepMs: config.SVC_CRAWL_WEBHOOK_SWEEP_MS },
    routerUrl: start.routerUrl,
    gatewayKey: () => config.SVC_CRAWL_GATEWAY_KEY ?? start.issuedGatewayKey(),
    seedDemo: config.SVC_SEED_DEMO ?? isEmbedded(config),
  }),
});
