import { defineConfigSlice, envVar, isEmbedded, serviceOptions, type Cache, type ServiceStart, type SessionRevocations } from '@svc/kit';
import { z } from 'zod';
import { DEFAULT_ACTION_TTL_HOURS } from './domain/action.js';
import type { InsightOptions } from './insight-subgraph.js';

/** What the start hands the analysis service (and `svc worker`) beside the configuration. */
export interface InsightStart extends ServiceStart {
  jwtSecret: string | undefined;
  /** The process's shared cache (Redis with REDIS_URL): login throttles live there on Redis, else in PostgreSQL. */
  sharedCache: Cache;
  /** Where a password change or disable ends sessions for every verifier. */
  sessions: SessionRevocations;
  /** The router's GraphQL URL; in one process known only once the router listens. */
  routerUrl: () => string;
  /** A gateway key `svc all` issued for agent `insight`, used when SVC_INSIGHT_GATEWAY_KEY is unset. */
  issuedGatewayKey: () => string | undefined;
}

/** The analysis service's variables: the local account, its tokens, and the analysis jobs. */
export const insightConfig = defineConfigSlice({
  variables: z.object({
    /** Lifetime of issued access tokens in seconds. Default 3600. */
    SVC_JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400 * 7).default(3600),
    /** The local admin account (every role, tenant and site). Default admin. */
    SVC_ADMIN_USERNAME: z.string().min(1).default('admin'),
    /** Its password, re-hashed when it changes. Default admin (the start warns). */
    SVC_ADMIN_PASSWORD: z.string().min(1).default('admin'),
    /** Login attempts per username before the growing delays start. Default 5. */
    SVC_LOGIN_USERNAME_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
    /** Login attempts per client address (any usernames) before the growing delays start. Default 30. */
    SVC_LOGIN_ADDRESS_ATTEMPTS: z.coerce.number().int().min(1).max(100_000).default(30),
    /** The first login delay in seconds; each further attempt doubles it. Default 1. */
    SVC_LOGIN_FIRST_DELAY_SECONDS: z.coerce.number().min(0.1).max(3600).default(1),
    /** The longest login delay in seconds (a username is never closed longer at a time). Default 900. */
    SVC_LOGIN_MAX_DELAY_SECONDS: z.coerce.number().min(1).max(86_400).default(900),
    /** Seconds without a login attempt after which a username or address starts afresh. Default 3600. */
    SVC_LOGIN_IDLE_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(3600),
    /** Whether the analysis service also runs analysis jobs in its own process. Default true (`svc worker` processes add more). */
    SVC_INSIGHT_WORKER: envVar.flag(true),
    /** Analysis jobs one worker process runs at once. Default 2. */
    SVC_INSIGHT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /** Analysis job lock lifetime, ms: a dead worker's job is resumed by another after it. Default 30000. */
    SVC_INSIGHT_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    /** Steps one job may write before it fails. Default 40. */
    SVC_INSIGHT_MAX_STEPS: z.coerce.number().int().min(5).max(500).default(40),
    /** Labelled series of one metric an analysis drills into; past it the answer says so and skips the drill-down. Default 250000. */
    SVC_INSIGHT_MAX_LEAVES: z.coerce.number().int().min(100).max(10_000_000).default(250_000),
    /** How long one job may run before it fails, ms. Default 300000 (5 minutes). */
    SVC_INSIGHT_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
    /** Hours a proposed action waits for a decision before it expires. Default 72. */
    SVC_INSIGHT_ACTION_TTL_HOURS: z.coerce.number().min(0.001).max(24 * 365).default(DEFAULT_ACTION_TTL_HOURS),
    /** How often expired proposals are expired and lost queue entries re-queued, ms; work waits at least this long before a re-queue. Default 60000. */
    SVC_INSIGHT_SWEEP_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
    /** Send every analysis prompt to the gateway with piiStrict (personal data masked). Default false. */
    SVC_INSIGHT_PII_STRICT: envVar.flag(false),
    /** The analysis service's model gateway key (agent `insight`). `svc all` issues one itself when unset. */
    SVC_INSIGHT_GATEWAY_KEY: z.string().min(16).optional(),
    /** Prometheus base URL; with it, metric lookups also read series through its HTTP API. Default none. */
    SVC_PROMETHEUS_URL: envVar.httpUrl().optional(),
    /** Tenants whose analyses may read the Prometheus series (comma-separated, or `*`); required with SVC_PROMETHEUS_URL. */
    SVC_PROMETHEUS_TENANTS: z
      .string()
      .regex(/^\s*(\*|[A-Za-z0-9._-]+(\s*,\s*[A-Za-z0-9._-]+)*)\s*$/, 'must be * or a comma-separated list of tenant ids')
      .transform((v) => (v.trim() === '*' ? ('*' as const) : v.split(',').map((t) => t.trim())))
      .optional(),
    /** Reviewers' webhook: each job's new proposals are posted there (signed, retried). Default none. */
    SVC_INSIGHT_REVIEW_WEBHOOK_URL: envVar.httpUrl().optional(),
    /** HMAC-SHA256 secret of the reviewers' webhook (`X-Svc-Signature`); required with the URL. */
    SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: z.string().min(16).optional(),
    /** First retry delay of a failed reviewer webhook, ms; each further one doubles (6 attempts). Default 2000. */
    SVC_INSIGHT_REVIEW_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(2000),
    /** First retry delay of a failed operator webhook delivery (EXTERNAL actions), ms; each further one doubles. Default 2000. */
    SVC_INSIGHT_OPERATOR_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(2000),
    /** Attempts of an operator webhook delivery before it is dead-lettered and its action EXECUTION_FAILED. Default 6. */
    SVC_INSIGHT_OPERATOR_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  }),
  rules: [
    {
      variable: 'SVC_PROMETHEUS_TENANTS',
      message: 'is required when SVC_PROMETHEUS_URL is set: name the tenants whose analyses may read its series (or *)',
      services: ['insight', 'worker'],
      broken: (config) => !!config.SVC_PROMETHEUS_URL && !config.SVC_PROMETHEUS_TENANTS,
    },
    {
      variable: 'SVC_LOGIN_MAX_DELAY_SECONDS',
      message: 'must not be below SVC_LOGIN_FIRST_DELAY_SECONDS',
      services: ['insight'],
      broken: (config) => config.SVC_LOGIN_MAX_DELAY_SECONDS < config.SVC_LOGIN_FIRST_DELAY_SECONDS,
    },
    {
      variable: 'SVC_INSIGHT_REVIEW_WEBHOOK_SECRET',
      message: 'is required when SVC_INSIGHT_REVIEW_WEBHOOK_URL is set (receivers verify the signature with it)',
      services: ['insight', 'worker'],
      broken: (config) => !!config.SVC_INSIGHT_REVIEW_WEBHOOK_URL && !config.SVC_INSIGHT_REVIEW_WEBHOOK_SECRET,
    },
    {
      services: ['insight'],
      variable: 'SVC_JWT_TTL_SECONDS',
      message: 'must not exceed SVC_JWT_MAX_LIFETIME_SECONDS (default 86400): the platform would refuse the tokens it issues',
      broken: (config) => config.SVC_JWT_TTL_SECONDS > config.SVC_JWT_MAX_LIFETIME_SECONDS,
    },
  ],
  fromConfig: (config, start: InsightStart): InsightOptions => ({
    ...serviceOptions(config, start),
    jwtSecret: start.jwtSecret,
    tokenTtlSeconds: config.SVC_JWT_TTL_SECONDS,
    adminUsername: config.SVC_ADMIN_USERNAME,
    adminPassword: config.SVC_ADMIN_PASSWORD,
    sharedCache: start.sharedCache,
    sessions: start.sessions,
    maxTokenLifetimeSeconds: config.SVC_JWT_MAX_LIFETIME_SECONDS,
    loginThrottle: {
      usernameAttempts: config.SVC_LOGIN_USERNAME_ATTEMPTS,
      addressAttempts: config.SVC_LOGIN_ADDRESS_ATTEMPTS,
      firstDelaySeconds: config.SVC_LOGIN_FIRST_DELAY_SECONDS,
      maxDelaySeconds: config.SVC_LOGIN_MAX_DELAY_SECONDS,
      idleSeconds: config.SVC_LOGIN_IDLE_SECONDS,
    },
    analysis: {
      workerName: serviceOptions(config, start).workerName,
      inProcessWorker: config.SVC_INSIGHT_WORKER,
      concurrency: config.SVC_INSIGHT_CONCURRENCY,
      lockLifetimeMs: config.SVC_INSIGHT_LOCK_LIFETIME_MS,
      maxSteps: config.SVC_INSIGHT_MAX_STEPS,
      maxLeaves: config.SVC_INSIGHT_MAX_LEAVES,
      timeoutMs: config.SVC_INSIGHT_JOB_TIMEOUT_MS,
      actionTtlHours: config.SVC_INSIGHT_ACTION_TTL_HOURS,
      sweepMs: config.SVC_INSIGHT_SWEEP_MS,
      modelName: config.LLM_MODEL_NAME ?? 'auto-route',
      piiStrict: config.SVC_INSIGHT_PII_STRICT,
      seedDemo: config.SVC_SEED_DEMO ?? isEmbedded(config),
      routerUrl: start.routerUrl,
      gatewayKey: () => config.SVC_INSIGHT_GATEWAY_KEY ?? start.issuedGatewayKey(),
      prometheusUrl: config.SVC_PROMETHEUS_URL,
      prometheusTenants: config.SVC_PROMETHEUS_TENANTS ?? [],
      operatorWebhook: { retryBaseMs: config.SVC_INSIGHT_OPERATOR_WEBHOOK_RETRY_MS, maxAttempts: config.SVC_INSIGHT_OPERATOR_WEBHOOK_ATTEMPTS },
      outboundAllow: config.SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS,
      reviewWebhook:
        config.SVC_INSIGHT_REVIEW_WEBHOOK_URL && config.SVC_INSIGHT_REVIEW_WEBHOOK_SECRET
          ? { url: config.SVC_INSIGHT_REVIEW_WEBHOOK_URL, secret: config.SVC_INSIGHT_REVIEW_WEBHOOK_SECRET, retryBaseMs: config.SVC_INSIGHT_REVIEW_WEBHOOK_RETRY_MS }
          : undefined,
    },
  }),
});
