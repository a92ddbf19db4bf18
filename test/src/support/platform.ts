import { loadPlatformConfig, startPlatform, type Platform } from '@svc/cli';
import { createLogger, issueToken, type Principal } from '@svc/kit';
import { createTestDatabase, dropDatabase, REDIS_URL, requireRedis } from './services.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-signing';
export const TEST_MASTER_KEY = 'sk-svc-master-test-key-0123456789';

export interface TestPlatform extends Platform {
  bridge: string;
  router: string;
  databaseUrl: string;
  redisPrefix: string;
  /** Signs a token as the platform would, with any claims. */
  token(claims?: Partial<Principal>, ttlSeconds?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The whole platform in this process on real PostgreSQL (a fresh database) and Redis (a fresh
 * key prefix), every listener on a free port. LOG_LEVEL from the environment, default silent.
 */
export interface TestPlatformOptions {
  /** Reuse the database (and Redis prefix) of an earlier platform, to test restarts. */
  reuse?: { databaseUrl: string; redisPrefix: string };
  /** A database the caller owns (a private PostgreSQL server, say): used as it is, never dropped. */
  databaseUrl?: string;
  /** Every log line at debug level goes here too (to check what the platform logs). */
  logTo?: NodeJS.WritableStream;
  /** `svc all` (the default) or `svc graph` (the router, the subgraphs and the bridge: no dashboard). */
  service?: 'all' | 'graph';
}

export async function startTestPlatform(env: Record<string, string> = {}, options: TestPlatformOptions = {}): Promise<TestPlatform> {
  await requireRedis();
  const db = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => undefined }
    : options.reuse
      ? { url: options.reuse.databaseUrl, drop: async () => dropDatabase(options.reuse!.databaseUrl) }
      : await createTestDatabase();
  const redisPrefix = options.reuse?.redisPrefix ?? `svctest:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
  const config = loadPlatformConfig({
    DATABASE_URL: db.url,
    REDIS_URL,
    SVC_REDIS_PREFIX: redisPrefix,
    SVC_JWT_SECRET: TEST_JWT_SECRET,
    SVCLLM_MASTER_KEY: TEST_MASTER_KEY,
    SVC_SEED_DEMO: 'true',
    SVC_ADMIN_PASSWORD: 'test-admin-password',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    SERVER_PORT: '0',
    SVC_ROUTER_PORT: '0',
    SVC_INSIGHT_PORT: '0',
    SVC_LLM_PORT: '0',
    SVC_CRAWL_PORT: '0',
    SVCLLM_ALERT_RETRY_BASE_MS: '50',
    SVC_CMS_PORT: '0',
    SVC_DASHBOARD_PORT: '0',
    ...env,
  }, options.service ?? 'all');
  let platform: Platform;
  try {
    const log = options.logTo ? createLogger({ level: 'debug', name: 'test', destination: options.logTo }) : createLogger({ level: config.LOG_LEVEL, name: 'test' });
    platform = await startPlatform(config, options.service ?? 'all', log);
  } catch (error) {
    await db.drop();
    throw error;
  }
  return {
    ...platform,
    bridge: platform.urls.bridge!,
    router: platform.urls.router!,
    databaseUrl: db.url,
    redisPrefix,
    token: async (claims = {}, ttlSeconds = 600) =>
      (await issueToken(TEST_JWT_SECRET, { subject: 'tester', roles: ['admin'], tenants: '*', sites: '*', ...claims }, ttlSeconds)).accessToken,
    async close() {
      await platform.close();
      await db.drop();
    },
    /** Stops the services but keeps the database, for a restart with `reuse`. */
    async stop() {
      await platform.close();
    },
  };
}
