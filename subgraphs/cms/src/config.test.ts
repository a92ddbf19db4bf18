import { describe, expect, it } from '@jest/globals';
import { createLogger, createTokenVerifier, loadConfig } from '@svc/kit';
import { cmsConfig } from './config.js';

const start = { databaseUrl: 'postgres://svc@db/svc', verifier: createTokenVerifier({ secret: 's'.repeat(32) }), log: createLogger({ level: 'silent' }) };

describe('cmsConfig', () => {
  it('turns the variables into the content service options', () => {
    const config = loadConfig({ REDIS_URL: 'redis://cache:6379', SVC_EDGE_PURGE_URLS: 'http://varnish:80/', SVC_CMS_CACHE_TTL_SECONDS: '60', SVC_CMS_PREVIEW_TTL_SECONDS: '900', SVC_FORM_RATE_LIMIT_PER_MINUTE: '3', SVC_WEBHOOK_RETRY_BASE_MS: '50', SVC_WEBHOOK_SWEEP_MS: '500', SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1, *.hooks.test', DB_POOL_MAX: '4', SVC_WORKER_NAME: 'w1' }, [cmsConfig]);
    expect(cmsConfig.fromConfig(config, start)).toEqual({
      ...start,
      maxBodyBytes: 1024 * 1024,
      compiledExecution: true,
      poolMax: 4,
      workerName: 'w1',
      redisUrl: 'redis://cache:6379',
      redisPrefix: 'svc:',
      edgePurgeUrls: ['http://varnish:80/'],
      cacheTtlSeconds: 60,
      previewTtlSeconds: 900,
      formRateLimitPerMinute: 3,
      webhookRetryBaseMs: 50,
      webhookSweepMs: 500,
      outboundAllow: ['127.0.0.1', '*.hooks.test'],
      seedDemo: true,
    });
  });

  it('seeds the demo by default in embedded mode only, unless SVC_SEED_DEMO says otherwise', () => {
    const seeds = (env: Record<string, string>) => cmsConfig.fromConfig(loadConfig(env, [cmsConfig]), start).seedDemo;
    expect(seeds({})).toBe(true);
    expect(seeds({ DB_HOST: 'db' })).toBe(false);
    expect(seeds({ DB_HOST: 'db', SVC_SEED_DEMO: 'yes' })).toBe(true);
    expect(seeds({ SVC_SEED_DEMO: 'false' })).toBe(false);
  });
});
