import { describe, expect, it } from '@jest/globals';
import { ConfigError, databaseUrlOf, isEmbedded, loadConfig, routerUrl, subgraphUrl } from './config.js';

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

describe('databaseUrlOf and isEmbedded', () => {
  it('is embedded with neither DATABASE_URL nor DB_HOST', () => {
    const c = loadConfig({});
    expect(isEmbedded(c)).toBe(true);
    expect(databaseUrlOf(c)).toBeUndefined();
  });

  it('prefers DATABASE_URL over DB_*', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://a@b/c', DB_HOST: 'ignored' });
    expect(isEmbedded(c)).toBe(false);
    expect(databaseUrlOf(c)).toBe('postgres://a@b/c');
  });

  it('builds a URL from DB_* with the password encoded', () => {
    const c = loadConfig({ DB_HOST: 'db.internal', DB_PORT: '6543', DB_NAME: 'svc prod', DB_USER: 'svc@app', DB_PASSWORD: 'p@ss:w/rd#%' });
    expect(isEmbedded(c)).toBe(false);
    const url = databaseUrlOf(c)!;
    expect(url).toBe('postgres://svc%40app:p%40ss%3Aw%2Frd%23%25@db.internal:6543/svc%20prod');
    const parsed = new URL(url);
    expect(decodeURIComponent(parsed.password)).toBe('p@ss:w/rd#%');
    expect(decodeURIComponent(parsed.username)).toBe('svc@app');
    expect(parsed.hostname).toBe('db.internal');
    expect(parsed.port).toBe('6543');
  });

  it('leaves the password out when DB_PASSWORD is empty', () => {
    expect(databaseUrlOf(loadConfig({ DB_HOST: 'db' }))).toBe('postgres://postgres@db:5432/svc');
  });
});
