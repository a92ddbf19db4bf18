import { hostname } from 'node:os';
import { z } from 'zod';
import { createAddressMatcher } from '../http/address-matcher.js';
import { createAllowList } from '../outbound/address-policy.js';
import type { ConfigRule } from './config-rule.js';
import { envVar } from './env-var.js';

/**
 * The platform-wide variables: listeners, service addresses, database, Redis, auth, logging
 * and limits. Each service's own variables live in its config slice
 * (`subgraphs/<service>/src/config.ts`); `loadConfig` validates them all together at start.
 * Doc comments give defaults; the README's configuration reference lists the same.
 */
export const platformConfig = z.object({
  /** REST bridge port. Default 8084 (the spec's local setup). */
  SERVER_PORT: envVar.port(8084),
  /** Address every HTTP listener binds. Default 127.0.0.1; containers set 0.0.0.0. */
  SVC_HOST: z.string().min(1).default('127.0.0.1'),
  SVC_ROUTER_PORT: envVar.port(4000),
  SVC_INSIGHT_PORT: envVar.port(4001),
  SVC_LLM_PORT: envVar.port(4002),
  SVC_CRAWL_PORT: envVar.port(4003),
  SVC_CMS_PORT: envVar.port(4004),
  SVC_DASHBOARD_PORT: envVar.port(3000),
  /**
   * Mark the dashboard's session cookie Secure (serve the dashboard over https). Default false; a
   * request that a trusted proxy (SVC_TRUSTED_PROXIES) says came over https (X-Forwarded-Proto)
   * gets a Secure cookie either way.
   */
  SVC_DASHBOARD_SECURE_COOKIE: envVar.flag(false),
  /** Router GraphQL endpoint used by the bridge, MCP servers and the dashboard. */
  SVC_ROUTER_URL: envVar.httpUrl().optional(),
  /** The REST bridge's base URL, for the dashboard; default http://127.0.0.1:<SERVER_PORT>. */
  SVC_BRIDGE_URL: envVar.httpUrl().optional(),
  /** Subgraph URLs used by the router; default http://127.0.0.1:<port>/graphql. */
  SVC_INSIGHT_URL: envVar.httpUrl().optional(),
  SVC_LLM_URL: envVar.httpUrl().optional(),
  SVC_CRAWL_URL: envVar.httpUrl().optional(),
  SVC_CMS_URL: envVar.httpUrl().optional(),
  /** Public base URL of the bridge, used in problem `type` URLs. Default: from the request Host. */
  SVC_PUBLIC_BASE_URL: envVar.httpUrl().optional(),

  /** PostgreSQL connection string; wins over the DB_* variables. Unset with no DB_HOST: embedded PGlite. */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://').optional(),
  DB_HOST: z.string().min(1).optional(),
  DB_PORT: envVar.port(5432),
  DB_NAME: z.string().min(1).default('svc'),
  DB_USER: z.string().min(1).default('postgres'),
  DB_PASSWORD: z.string().default(''),
  /** Pool size per service. Default 10. */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Redis URL; unset: an in-process cache (single process only). */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  /** Prefix for every Redis key. Default `svc:`. */
  SVC_REDIS_PREFIX: z.string().default('svc:'),
  /** Where embedded mode keeps PGlite data and the generated secrets. Default `.data`. */
  SVC_DATA_DIR: z.string().min(1).default('.data'),

  /** HS256 signing secret (at least 32 characters). Required unless embedded or SVC_JWKS_URL (PLATFORM_RULES). */
  SVC_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** JWKS URL for RS256/ES256 tokens issued elsewhere (verification only). */
  SVC_JWKS_URL: envVar.httpUrl().optional(),
  /** Longest accepted token lifetime (exp - iat) in seconds; tokens without exp are refused. Default 86400 (24 h). */
  SVC_JWT_MAX_LIFETIME_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400),
  /**
   * How long a process trusts what it read about a subject's ended sessions (password change,
   * disable): the longest a revoked token still works at another process. Default 5 seconds.
   */
  SVC_SESSION_CHECK_SECONDS: z.coerce.number().min(0).max(300).default(5),

  /**
   * The spec's model name: the upstream model id the gateway serves behind every alias (with
   * LLM_BASE_URL), and the model the analysis agent asks for. Default: none (gateway) and
   * auto-route (agent).
   */
  LLM_MODEL_NAME: z.string().min(1).optional(),
  /** Seed the demo data (site, contents and form; business metrics) at start. Default: on in embedded mode only. */
  SVC_SEED_DEMO: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes')),
  /** pino level. Default info. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted request body in bytes. Default 1 MiB. */
  SVC_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /**
   * Which documents the router runs: `any` (default; Apollo Studio and GraphiQL work, the
   * platform's own documents may also be sent by hash) or `only` the platform's known documents
   * (schema/operations/*.graphql), everything else refused with 400 PERSISTED_QUERY_NOT_IN_LIST.
   */
  SVC_TRUSTED_DOCUMENTS: z.enum(['any', 'only']).default('any'),
  /**
   * Whether the router shapes federated results along plans compiled once per operation
   * (router/src/result-shaping.ts) instead of @apollo/gateway's own walk. Default true; false is
   * the escape hatch should an answer ever differ.
   */
  SVC_ROUTER_COMPILED_SHAPING: envVar.flag(true),
  /**
   * How long the router waits for a subgraph's whole answer to a query, in ms. Past it (or when
   * the subgraph is down or answers 5xx) the answer carries the other subgraphs' data and a
   * SUBGRAPH_UNAVAILABLE error at each field the subgraph was to fill. Default 30 s.
   */
  SVC_ROUTER_SUBGRAPH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** The same for mutations (a model's answer may take a minute; the change may still be made after it). Default 120 s. */
  SVC_ROUTER_MUTATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
  /**
   * Whether the subgraphs run operations they are sent more than once compiled by graphql-jit
   * (kit subgraph/compiled-execution.ts) instead of graphql-js. Default true; false is the escape
   * hatch should an answer ever differ.
   */
  SVC_SUBGRAPH_COMPILED_EXECUTION: envVar.flag(true),
  /** Origins allowed by CORS on the router and bridge. Default Apollo Studio and localhost. */
  SVC_CORS_ORIGINS: envVar.list(['https://studio.apollographql.com', 'http://localhost:3000', 'http://127.0.0.1:3000']),
  /** Peers (addresses or CIDR ranges) whose X-Forwarded-For is trusted for the client address. Default loopback. */
  SVC_TRUSTED_PROXIES: envVar.list(['127.0.0.1', '::1']).pipe(
    z.array(z.string().refine((v) => { try { createAddressMatcher([v]); return true; } catch { return false; } }, 'must be IP addresses or CIDR ranges')),
  ),
  /**
   * Hosts (exact or *.suffix), addresses or CIDR ranges that URLs set by users and editors (form
   * webhooks, budget alerts) may reach although they are not public. Default none.
   */
  SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: envVar.list().pipe(
    z.array(z.string().refine((v) => { try { createAllowList([v]); return true; } catch { return false; } }, 'must be hostnames, *.suffix, IP addresses or CIDR ranges')),
  ),
  /** MCP servers: the platform token their tools act with (a JWT). */
  SVC_TOKEN: z.string().min(1).optional(),
  /** MCP servers: the tenant their tools act for (knowledge search is scoped to it). */
  SVC_TENANT_ID: z.string().min(1).optional(),
  /** Name of this process's job worker (recorded on locked jobs). Default host:pid. */
  SVC_WORKER_NAME: z.string().min(1).max(100).optional(),
});

export type PlatformConfig = Readonly<z.output<typeof platformConfig>>;

/** Rules between platform-wide variables, checked by `loadConfig` for every service a process runs. */
export const PLATFORM_RULES: readonly ConfigRule<PlatformConfig>[] = [
  {
    variable: 'SVC_JWT_SECRET',
    message: 'is required (at least 32 characters) unless SVC_JWKS_URL is set; only the embedded mode generates one',
    broken: (config) => !config.SVC_JWT_SECRET && !config.SVC_JWKS_URL && !isEmbedded(config),
  },
];

/** True when no database is configured: the platform runs on embedded PGlite. */
export function isEmbedded(config: PlatformConfig): boolean {
  return !config.DATABASE_URL && !config.DB_HOST;
}

export function databaseUrlOf(config: PlatformConfig): string | undefined {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  if (!config.DB_HOST) return undefined;
  const auth = config.DB_PASSWORD
    ? `${encodeURIComponent(config.DB_USER)}:${encodeURIComponent(config.DB_PASSWORD)}`
    : encodeURIComponent(config.DB_USER);
  const host = config.DB_HOST.includes(':') ? `[${config.DB_HOST}]` : config.DB_HOST;
  return `postgres://${auth}@${host}:${config.DB_PORT}/${encodeURIComponent(config.DB_NAME)}`;
}

export type ServiceName = 'insight' | 'llm' | 'crawl' | 'cms';

export function subgraphPort(config: PlatformConfig, name: ServiceName): number {
  const ports = { insight: config.SVC_INSIGHT_PORT, llm: config.SVC_LLM_PORT, crawl: config.SVC_CRAWL_PORT, cms: config.SVC_CMS_PORT };
  return ports[name];
}

export function subgraphUrl(config: PlatformConfig, name: ServiceName): string {
  const urls = { insight: config.SVC_INSIGHT_URL, llm: config.SVC_LLM_URL, crawl: config.SVC_CRAWL_URL, cms: config.SVC_CMS_URL };
  return urls[name] ?? `http://127.0.0.1:${subgraphPort(config, name)}/graphql`;
}

export function routerUrl(config: PlatformConfig): string {
  return config.SVC_ROUTER_URL ?? `http://127.0.0.1:${config.SVC_ROUTER_PORT}/graphql`;
}

export function bridgeUrl(config: PlatformConfig): string {
  return (config.SVC_BRIDGE_URL ?? `http://127.0.0.1:${config.SERVER_PORT}`).replace(/\/$/, '');
}

/** The name this process's job workers record on the jobs they lock. */
export function workerNameOf(config: PlatformConfig): string {
  return config.SVC_WORKER_NAME ?? `${hostname()}:${process.pid}`;
}
