import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineConfigSlice } from './config-slice.js';
import { composeConfig, ConfigError, loadConfig } from './load-config.js';

const slice = defineConfigSlice({
  variables: z.object({
    /** Default 2. */
    SVC_TEST_LIMIT: z.coerce.number().int().min(1).default(2),
    SVC_TEST_KEY: z.string().min(4).optional(),
  }),
  rules: [{ services: ['test'], variable: 'SVC_TEST_KEY', message: 'is required outside embedded mode', broken: (config) => !config.SVC_TEST_KEY && Boolean(config.DB_HOST) }],
  fromConfig: (config) => ({ limit: config.SVC_TEST_LIMIT }),
});

describe('loadConfig with slices', () => {
  it('parses the platform-wide variables and the slices, frozen', () => {
    const config = loadConfig({ SVC_TEST_LIMIT: '5', LOG_LEVEL: 'warn' }, [slice]);
    expect(config.SVC_TEST_LIMIT).toBe(5);
    expect(config.LOG_LEVEL).toBe('warn');
    expect(Object.isFrozen(config)).toBe(true);
    expect(slice.fromConfig(config, undefined as never)).toEqual({ limit: 5 });
  });

  it('names a bad slice variable like a platform one', () => {
    expect(() => loadConfig({ SVC_TEST_LIMIT: '0', SERVER_PORT: 'x' }, [slice])).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_TEST_LIMIT: '0' }, [slice])).toThrow(/^Invalid configuration:\n {2}SVC_TEST_LIMIT: /);
  });

  it('checks a rule only when the process runs one of its services', () => {
    const env = { DB_HOST: 'db', SVC_JWT_SECRET: 's'.repeat(32) };
    expect(() => loadConfig(env, [slice], { running: ['test'] })).toThrow('Invalid configuration:\n  SVC_TEST_KEY: is required outside embedded mode');
    expect(loadConfig(env, [slice], { running: ['other'] }).SVC_TEST_KEY).toBeUndefined();
    expect(loadConfig(env, [slice]).SVC_TEST_KEY).toBeUndefined();
  });

  it('refuses a variable declared by two slices', () => {
    expect(() => composeConfig([slice, slice])).toThrow('SVC_TEST_LIMIT is declared twice');
    expect(() => composeConfig([{ variables: z.object({ LOG_LEVEL: z.string() }) }])).toThrow('LOG_LEVEL is declared twice');
  });
});
