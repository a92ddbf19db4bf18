import { describe, expect, it } from '@jest/globals';
import { ConfigError, routerUrl, subgraphUrl } from '@svc/kit';
import { readFileSync } from 'node:fs';
import { CONFIG_SLICES, configSchema, loadPlatformConfig as loadConfig } from './config.js';
import { servicesRunBy, type Service } from './services.js';

function configError(env: Record<string, string>): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as Error).name).toBe('ConfigError');
  return caught as ConfigError;
}

const SECRET = 's'.repeat(32);

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  it('applies the documented defaults to an empty environment', () => {
    expect(config).toMatchObject({
      SERVER_PORT: 8084,
      SVC_HOST: '127.0.0.1',
      SVC_ROUTER_PORT: 4000,
      SVC_INSIGHT_PORT: 4001,
      SVC_LLM_PORT: 4002,
      SVC_CRAWL_PORT: 4003,
      SVC_CMS_PORT: 4004,
      SVC_DASHBOARD_PORT: 3000,
      DB_PORT: 5432,
      DB_NAME: 'svc',
      DB_USER: 'postgres',
      DB_PASSWORD: '',
      DB_POOL_MAX: 10,
      SVC_REDIS_PREFIX: 'svc:',
      SVC_DATA_DIR: '.data',
      SVC_JWT_TTL_SECONDS: 3600,
      SVC_ADMIN_USERNAME: 'admin',
      LOG_LEVEL: 'info',
      SVC_MAX_BODY_BYTES: 1024 * 1024,
      SVC_EDGE_PURGE_URLS: [],
      SVC_CMS_CACHE_TTL_SECONDS: 300,
      SVC_FORM_RATE_LIMIT_PER_MINUTE: 10,
      SVC_WEBHOOK_RETRY_BASE_MS: 5000,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SVC_JWT_SECRET).toBeUndefined();
    expect(config.SVC_SEED_DEMO).toBeUndefined();
    expect(config.SVC_CORS_ORIGINS).toEqual(['https://studio.apollographql.com', 'http://localhost:3000', 'http://127.0.0.1:3000']);
    expect(config.SVC_TRUSTED_PROXIES).toEqual(expect.arrayContaining(['127.0.0.1', '::1']));
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats empty strings as unset', () => {
    const c = loadConfig({ SERVER_PORT: '', DATABASE_URL: '', SVC_JWT_SECRET: '', LOG_LEVEL: '' });
    expect(c.SERVER_PORT).toBe(8084);
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.SVC_JWT_SECRET).toBeUndefined();
    expect(c.LOG_LEVEL).toBe('info');
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ PATH: '/usr/bin', HOME: '/root' }) as Record<string, unknown>).not.toHaveProperty('PATH');
  });

  it('derives subgraph and router URLs from the ports', () => {
    const c = loadConfig({ SVC_CMS_PORT: '5004', SVC_ROUTER_PORT: '5000', SVC_LLM_URL: 'http://llm.internal:80/graphql' });
    expect(subgraphUrl(c, 'cms')).toBe('http://127.0.0.1:5004/graphql');
    expect(subgraphUrl(c, 'llm')).toBe('http://llm.internal:80/graphql');
    expect(routerUrl(c)).toBe('http://127.0.0.1:5000/graphql');
  });
});

describe('loadConfig coercion', () => {
  it('coerces numbers from strings', () => {
    const c = loadConfig({ SERVER_PORT: '9090', DB_POOL_MAX: '25', SVC_JWT_TTL_SECONDS: '600', SVC_CMS_CACHE_TTL_SECONDS: '0' });
    expect(c.SERVER_PORT).toBe(9090);
    expect(c.DB_POOL_MAX).toBe(25);
    expect(c.SVC_JWT_TTL_SECONDS).toBe(600);
    expect(c.SVC_CMS_CACHE_TTL_SECONDS).toBe(0);
  });

  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('reads SVC_SEED_DEMO=%s as %s', (value, expected) => {
    expect(loadConfig({ SVC_SEED_DEMO: value }).SVC_SEED_DEMO).toBe(expected);
  });

  it('parses comma-separated lists, trimming entries and dropping empty ones', () => {
    const c = loadConfig({
      SVC_EDGE_PURGE_URLS: ' http://varnish-a:80/ , https://varnish-b.example.com/purge,, ',
      SVC_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
    });
    expect(c.SVC_EDGE_PURGE_URLS).toEqual(['http://varnish-a:80/', 'https://varnish-b.example.com/purge']);
    expect(c.SVC_CORS_ORIGINS).toEqual(['https://app.example.com', 'https://admin.example.com']);
  });

  it('accepts a valid secret and database URL', () => {
    const c = loadConfig({ SVC_JWT_SECRET: SECRET, DATABASE_URL: 'postgresql://u:p@db:5432/svc', REDIS_URL: 'rediss://cache:6380' });
    expect(c.SVC_JWT_SECRET).toBe(SECRET);
    expect(c.DATABASE_URL).toBe('postgresql://u:p@db:5432/svc');
    expect(c.REDIS_URL).toBe('rediss://cache:6380');
  });
});

describe('loadConfig errors name the variable', () => {
  it.each(['http', '-1', '65536', '80.5'])('refuses SERVER_PORT=%j', (value) => {
    const error = configError({ SERVER_PORT: value });
    expect(error.message).toMatch(/^Invalid configuration:\n/);
    expect(error.message).toContain('SERVER_PORT:');
  });

  it('refuses a DATABASE_URL that is not postgres', () => {
    const error = configError({ DATABASE_URL: 'mysql://u:p@db/svc' });
    expect(error.message).toContain('DATABASE_URL: must start with postgres:// or postgresql://');
  });

  it('refuses a short SVC_JWT_SECRET', () => {
    const error = configError({ SVC_JWT_SECRET: 'too-short' });
    expect(error.message).toContain('SVC_JWT_SECRET: must be at least 32 characters');
  });

  it('refuses a non-URL entry in SVC_EDGE_PURGE_URLS, naming the variable', () => {
    const error = configError({ SVC_EDGE_PURGE_URLS: 'http://varnish:80/,not a url' });
    expect(error.message).toMatch(/SVC_EDGE_PURGE_URLS\.1: /);
  });

  it('refuses a non-http URL in SVC_EDGE_PURGE_URLS', () => {
    const error = configError({ SVC_EDGE_PURGE_URLS: 'ftp://varnish/' });
    expect(error.message).toContain('SVC_EDGE_PURGE_URLS');
  });

  it('refuses a malformed SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS entry, naming the variable', () => {
    expect(configError({ SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1,127.1' }).message).toContain('SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS.1: must be hostnames, *.suffix, IP addresses or CIDR ranges');
    expect(loadConfig({ SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1, *.hooks.test, 10.0.0.0/8' }).SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS).toEqual(['127.0.0.1', '*.hooks.test', '10.0.0.0/8']);
  });

  it('refuses an unknown LOG_LEVEL and a bad REDIS_URL', () => {
    expect(configError({ LOG_LEVEL: 'verbose' }).message).toContain('LOG_LEVEL:');
    expect(configError({ REDIS_URL: 'http://cache' }).message).toContain('REDIS_URL: must start with redis:// or rediss://');
  });

  it('names every bad variable at once', () => {
    const error = configError({ SERVER_PORT: 'x', DATABASE_URL: 'mysql://x', SVC_JWT_SECRET: 'short' });
    const lines = error.message.split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.trim().split(':')[0]).sort()).toEqual(['DATABASE_URL', 'SERVER_PORT', 'SVC_JWT_SECRET']);
  });
});

describe('loadPlatformConfig rules for the services a process runs', () => {
  const POSTGRES = { DATABASE_URL: 'postgres://svc@db:5432/svc' };
  const MASTER_KEY = 'sk-svc-master-0123456789';
  function ruleError(env: Record<string, string>, service: Service): string {
    try {
      loadConfig(env, service);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`svc ${service} accepted ${JSON.stringify(env)}`);
  }

  it('requires SVC_JWT_SECRET outside embedded mode unless SVC_JWKS_URL, for every platform service', () => {
    for (const service of ['all', 'router', 'bridge', 'insight', 'cms', 'crawl'] as const) {
      expect(ruleError({ ...POSTGRES, SVCLLM_MASTER_KEY: MASTER_KEY }, service)).toBe(
        'Invalid configuration:\n  SVC_JWT_SECRET: is required (at least 32 characters) unless SVC_JWKS_URL is set; only the embedded mode generates one',
      );
    }
    expect(loadConfig({ ...POSTGRES, SVC_JWKS_URL: 'https://idp.example.com/jwks', SVCLLM_MASTER_KEY: MASTER_KEY }, 'all').SVC_JWT_SECRET).toBeUndefined();
    expect(loadConfig({}, 'all').SVC_JWT_SECRET).toBeUndefined();
  });

  it('refuses a login token lifetime the verifier would refuse (SVC_JWT_TTL_SECONDS over SVC_JWT_MAX_LIFETIME_SECONDS)', () => {
    expect(ruleError({ SVC_JWT_TTL_SECONDS: '86401' }, 'insight')).toBe(
      'Invalid configuration:\n  SVC_JWT_TTL_SECONDS: must not exceed SVC_JWT_MAX_LIFETIME_SECONDS (default 86400): the platform would refuse the tokens it issues',
    );
    expect(loadConfig({ SVC_JWT_TTL_SECONDS: '172800', SVC_JWT_MAX_LIFETIME_SECONDS: '172800' }, 'insight').SVC_JWT_MAX_LIFETIME_SECONDS).toBe(172_800);
    expect(loadConfig({}, 'insight').SVC_JWT_MAX_LIFETIME_SECONDS).toBe(86_400);
  });

  it('requires SVCLLM_MASTER_KEY outside embedded mode only where the gateway runs', () => {
    const env = { ...POSTGRES, SVC_JWT_SECRET: SECRET };
    expect(ruleError(env, 'llm')).toBe('Invalid configuration:\n  SVCLLM_MASTER_KEY: is required (at least 16 characters) outside embedded mode');
    expect(ruleError(env, 'all')).toContain('SVCLLM_MASTER_KEY: is required');
    for (const service of ['cms', 'crawl', 'worker', 'router'] as const) expect(loadConfig(env, service).SVCLLM_MASTER_KEY).toBeUndefined();
  });

  it('requires a signing secret with the reviewers\' webhook where analysis jobs run', () => {
    const env = { SVC_INSIGHT_REVIEW_WEBHOOK_URL: 'https://hooks.example.com/review' };
    for (const service of ['insight', 'all'] as const) {
      expect(ruleError(env, service)).toBe('Invalid configuration:\n  SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: is required when SVC_INSIGHT_REVIEW_WEBHOOK_URL is set (receivers verify the signature with it)');
    }
    expect(loadConfig(env, 'cms').SVC_INSIGHT_REVIEW_WEBHOOK_URL).toBe(env.SVC_INSIGHT_REVIEW_WEBHOOK_URL);
    expect(loadConfig({ ...env, SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: 'x'.repeat(16) }, 'all').SVC_INSIGHT_REVIEW_WEBHOOK_RETRY_MS).toBe(2000);
  });

  it('refuses svc worker on embedded PGlite, naming DATABASE_URL', () => {
    expect(ruleError({}, 'worker')).toMatch(/^Invalid configuration:\n {2}DATABASE_URL: is required by svc worker/);
    expect(loadConfig({ DB_HOST: 'db', SVC_JWT_SECRET: SECRET }, 'worker').DB_HOST).toBe('db');
  });

  it('runs the router and the bridge in svc edge, without the rules of the services it does not run', () => {
    expect(servicesRunBy('edge')).toEqual(['router', 'bridge']);
    const env = { ...POSTGRES, SVC_JWT_SECRET: SECRET, SVC_INSIGHT_REVIEW_WEBHOOK_URL: 'https://hooks.example.com/review' };
    expect(loadConfig(env, 'edge').SVC_INSIGHT_REVIEW_WEBHOOK_URL).toBe(env.SVC_INSIGHT_REVIEW_WEBHOOK_URL);
    expect(ruleError(env, 'all')).toMatch(/SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: is required/);
  });

  it('runs every subgraph with the router and the bridge in svc graph, with their rules', () => {
    expect(servicesRunBy('graph')).toEqual(['insight', 'llm', 'crawl', 'cms', 'router', 'bridge']);
    const env = { ...POSTGRES, SVC_JWT_SECRET: SECRET, SVC_INSIGHT_REVIEW_WEBHOOK_URL: 'https://hooks.example.com/review' };
    expect(ruleError(env, 'graph')).toMatch(/SVC_INSIGHT_REVIEW_WEBHOOK_SECRET: is required/);
  });

  it('checks no rules for the MCP servers (they start no service) or without a service', () => {
    expect(servicesRunBy('crawl-mcp')).toEqual([]);
    expect(loadConfig(POSTGRES, 'crawl-mcp').DATABASE_URL).toBe(POSTGRES.DATABASE_URL);
    expect(loadConfig(POSTGRES).DATABASE_URL).toBe(POSTGRES.DATABASE_URL);
  });

  it('names every broken rule at once, and checks rules only once every value is valid', () => {
    const message = ruleError(POSTGRES, 'all');
    expect(message.split('\n').slice(1).map((l) => l.trim().split(':')[0])).toEqual(['SVC_JWT_SECRET', 'SVCLLM_MASTER_KEY']);
    expect(ruleError({ ...POSTGRES, SERVER_PORT: 'x' }, 'all')).toMatch(/^Invalid configuration:\n {2}SERVER_PORT: [^\n]+$/);
  });
});

describe('configSchema', () => {
  it('holds the platform-wide variables and every service slice', () => {
    const variables = Object.keys(configSchema.shape);
    expect(variables).toEqual(expect.arrayContaining(['SERVER_PORT', 'DATABASE_URL', 'SVC_ADMIN_PASSWORD', 'SVCLLM_MASTER_KEY', 'SVC_CRAWL_WORKER', 'SVC_CMS_CACHE_TTL_SECONDS']));
    for (const slice of CONFIG_SLICES) expect(variables).toEqual(expect.arrayContaining(Object.keys(slice.variables.shape)));
  });

  it('is what the README configuration reference lists', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const reference = readme.slice(readme.indexOf('## Configuration reference'), readme.indexOf('\n## ', readme.indexOf('## Configuration reference') + 1));
    const undocumented = Object.keys(configSchema.shape).filter((variable) => !reference.includes(`\`${variable}\``));
    expect(undocumented).toEqual([]);
  });
});
