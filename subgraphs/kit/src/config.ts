import { z } from 'zod';
import { createAddressMatcher } from './http/address-matcher.js';

/**
 * Every environment variable the platform reads, validated once at start. A bad value stops
 * the start with a message naming the variable. Doc comments give defaults; the README's
 * configuration reference is generated from the same descriptions.
 */
const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const csv = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
const csvOr = (fallback: string[]) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined ? fallback : v.split(',').map((s) => s.trim()).filter(Boolean)));
const url = z.url({ protocol: /^https?$/ });

export const configSchema = z.object({
  /** REST bridge port. Default 8084 (the spec's local setup). */
  SERVER_PORT: port(8084),
  /** Address every HTTP listener binds. Default 127.0.0.1; containers set 0.0.0.0. */
  SVC_HOST: z.string().min(1).default('127.0.0.1'),
  SVC_ROUTER_PORT: port(4000),
  SVC_INSIGHT_PORT: port(4001),
  SVC_LLM_PORT: port(4002),
  SVC_CRAWL_PORT: port(4003),
  SVC_CMS_PORT: port(4004),
  SVC_DASHBOARD_PORT: port(3000),
  /** Router GraphQL endpoint used by the bridge, MCP servers and the dashboard. */
  SVC_ROUTER_URL: url.optional(),
  /** Subgraph URLs used by the router; default http://127.0.0.1:<port>/graphql. */
  SVC_INSIGHT_URL: url.optional(),
  SVC_LLM_URL: url.optional(),
  SVC_CRAWL_URL: url.optional(),
  SVC_CMS_URL: url.optional(),
  /** Public base URL of the bridge, used in problem `type` URLs. Default: from the request Host. */
  SVC_PUBLIC_BASE_URL: url.optional(),

  /** PostgreSQL connection string; wins over the DB_* variables. Unset with no DB_HOST: embedded PGlite. */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://').optional(),
  DB_HOST: z.string().min(1).optional(),
  DB_PORT: port(5432),
  DB_NAME: z.string().min(1).default('svc'),
  DB_USER: z.string().min(1).default('postgres'),
  DB_PASSWORD: z.string().default(''),
  /** Pool size per service. Default 10. */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Redis URL; unset: an in-process cache (single process only). */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  /** Prefix for every Redis key. Default `svc:`. */
  SVC_REDIS_PREFIX: z.string().default('svc:'),
  /** Where embedded mode keeps PGlite data and the generated JWT secret. Default `.data`. */
  SVC_DATA_DIR: z.string().min(1).default('.data'),

  /** HS256 signing secret (at least 32 characters). Required unless embedded or SVC_JWKS_URL. */
  SVC_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** JWKS URL for RS256/ES256 tokens issued elsewhere (verification only). */
  SVC_JWKS_URL: url.optional(),
  /** Lifetime of issued access tokens in seconds. Default 3600. */
  SVC_JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400 * 7).default(3600),
  SVC_ADMIN_USERNAME: z.string().min(1).default('admin'),
  SVC_ADMIN_PASSWORD: z.string().min(1).default('admin'),

  /** pino level. Default info. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted request body in bytes. Default 1 MiB. */
  SVC_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /** Origins allowed by CORS on the router and bridge. Default Apollo Studio and localhost. */
  SVC_CORS_ORIGINS: csvOr(['https://studio.apollographql.com', 'http://localhost:3000', 'http://127.0.0.1:3000']),
  /** Peers (addresses or CIDR ranges) whose X-Forwarded-For is trusted for the client address. Default loopback. */
  SVC_TRUSTED_PROXIES: csvOr(['127.0.0.1', '::1']).pipe(
    z.array(z.string().refine((v) => { try { createAddressMatcher([v]); return true; } catch { return false; } }, 'must be IP addresses or CIDR ranges')),
  ),
  /** Seed the demo site, contents and form at start. Default: on in embedded mode only. */
  SVC_SEED_DEMO: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes')),

  /** Edge caches to purge (Varnish xkey endpoints), comma separated. Default none. */
  SVC_EDGE_PURGE_URLS: csv.pipe(z.array(url)),
  /** Delivery cache lifetime (Redis and s-maxage) in seconds. Default 300. */
  SVC_CMS_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /** Form submissions per client and form per minute. Default 10 (a form definition may set its own). */
  SVC_FORM_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
  /** First retry delay of form webhooks in ms; doubles per attempt, 6 attempts. Default 5000. */
  SVC_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  /** Model gateway master key: administers budgets and keys. Required outside embedded mode (embedded: generated under SVC_DATA_DIR). */
  SVCLLM_MASTER_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Path of the gateway's JSON config (providers, models, prices, aliases). */
  SVCLLM_CONFIG: z.string().min(1).optional(),
  /** With LLM_MODEL_NAME and no SVCLLM_CONFIG: one OpenAI-compatible endpoint behind every alias. */
  LLM_BASE_URL: url.optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  /** The spec's model name setting: the upstream model id. */
  LLM_MODEL_NAME: z.string().min(1).optional(),
  /** Price charged for models without one, USD per million input tokens. Default 5. */
  SVCLLM_DEFAULT_INPUT_USD_PER_MTOK: z.coerce.number().min(0).default(5),
  /** Price charged for models without one, USD per million output tokens. Default 15. */
  SVCLLM_DEFAULT_OUTPUT_USD_PER_MTOK: z.coerce.number().min(0).default(15),
  /** Response cache lifetime in seconds; 0 disables it. Default 3600. */
  SVCLLM_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(30 * 86_400).default(3600),
  /** HMAC-SHA256 key of budget alert signatures. Default: the master key. */
  SVCLLM_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** First retry delay of budget alerts in ms; doubles per attempt, 6 attempts. Default 5000. */
  SVCLLM_ALERT_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  /** Hosts (exact or *.suffix), addresses or CIDR ranges the crawler may fetch although private. Default none. */
  SVC_CRAWL_ALLOW_PRIVATE_HOSTS: csvOr([]),
  /** How long a trigger waits for a worker to lock the run before answering 503, ms. Default 10000. */
  SVC_CRAWL_TRIGGER_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Whether the crawl service also runs crawl jobs in its own process. Default true (`svc worker` processes add more). */
  SVC_CRAWL_WORKER: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
  /** The crawl service's model gateway key (agent `crawl`) for knowledge sync. `svc all` issues one itself when unset. */
  SVC_CRAWL_GATEWAY_KEY: z.string().min(16).optional(),
  /** Crawl runs one worker process executes at the same time. Default 4. */
  SVC_CRAWL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Crawl job lock lifetime, ms: a dead worker's run is taken over after it. Default 30000. */
  SVC_CRAWL_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** MCP servers: the platform token their tools act with (a JWT). */
  SVC_TOKEN: z.string().min(1).optional(),
  /** MCP servers: the tenant their tools act for (knowledge search is scoped to it). */
  SVC_TENANT_ID: z.string().min(1).optional(),
  /** Name of this process's job worker (recorded on locked jobs). Default host:pid. */
  SVC_WORKER_NAME: z.string().min(1).max(100).optional(),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}

/** True when no database is configured: the platform runs on embedded PGlite. */
export function isEmbedded(config: Config): boolean {
  return !config.DATABASE_URL && !config.DB_HOST;
}

export function databaseUrlOf(config: Config): string | undefined {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  if (!config.DB_HOST) return undefined;
  const auth = config.DB_PASSWORD
    ? `${encodeURIComponent(config.DB_USER)}:${encodeURIComponent(config.DB_PASSWORD)}`
    : encodeURIComponent(config.DB_USER);
  const host = config.DB_HOST.includes(':') ? `[${config.DB_HOST}]` : config.DB_HOST;
  return `postgres://${auth}@${host}:${config.DB_PORT}/${encodeURIComponent(config.DB_NAME)}`;
}

export type ServiceName = 'insight' | 'llm' | 'crawl' | 'cms';

export function subgraphPort(config: Config, name: ServiceName): number {
  const ports = { insight: config.SVC_INSIGHT_PORT, llm: config.SVC_LLM_PORT, crawl: config.SVC_CRAWL_PORT, cms: config.SVC_CMS_PORT };
  return ports[name];
}

export function subgraphUrl(config: Config, name: ServiceName): string {
  const urls = { insight: config.SVC_INSIGHT_URL, llm: config.SVC_LLM_URL, crawl: config.SVC_CRAWL_URL, cms: config.SVC_CMS_URL };
  return urls[name] ?? `http://127.0.0.1:${subgraphPort(config, name)}/graphql`;
}

export function routerUrl(config: Config): string {
  return config.SVC_ROUTER_URL ?? `http://127.0.0.1:${config.SVC_ROUTER_PORT}/graphql`;
}
