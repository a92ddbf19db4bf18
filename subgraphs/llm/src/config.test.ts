import { describe, expect, it } from '@jest/globals';
import { createLogger, createTokenVerifier, loadConfig } from '@svc/kit';
import { llmConfig } from './config.js';

const start = { databaseUrl: 'postgres://svc@db/svc', verifier: createTokenVerifier({ secret: 's'.repeat(32) }), log: createLogger({ level: 'silent' }), masterKey: 'sk-svc-master-0123456789', env: { OPENAI_KEY: 'k' } };

describe('llmConfig', () => {
  it('turns the variables into the gateway options', () => {
    const config = loadConfig({ LLM_BASE_URL: 'http://upstream:8080/v1', LLM_MODEL_NAME: 'm', SVCLLM_DEFAULT_INPUT_USD_PER_MTOK: '1.5', SVCLLM_CACHE_TTL_SECONDS: '0', SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '10.0.0.0/8' }, [llmConfig]);
    expect(llmConfig.fromConfig(config, start)).toMatchObject({
      databaseUrl: start.databaseUrl,
      masterKey: start.masterKey,
      llmBaseUrl: 'http://upstream:8080/v1',
      llmModelName: 'm',
      defaultPrice: { inputPerMTok: 1.5, outputPerMTok: 15 },
      cacheTtlSeconds: 0,
      alertRetryBaseMs: 5000,
      outboundAllow: ['10.0.0.0/8'],
      env: start.env,
    });
  });

  it('signs budget alerts with the master key unless SVCLLM_WEBHOOK_SECRET is set', () => {
    expect(llmConfig.fromConfig(loadConfig({}, [llmConfig]), start).webhookSecret).toBe(start.masterKey);
    expect(llmConfig.fromConfig(loadConfig({ SVCLLM_WEBHOOK_SECRET: 'w'.repeat(16) }, [llmConfig]), start).webhookSecret).toBe('w'.repeat(16));
  });

  it('requires SVCLLM_MASTER_KEY outside embedded mode when the gateway runs', () => {
    expect(() => loadConfig({ DB_HOST: 'db', SVC_JWT_SECRET: 's'.repeat(32) }, [llmConfig], { running: ['llm'] })).toThrow('SVCLLM_MASTER_KEY: is required');
    expect(loadConfig({ DB_HOST: 'db', SVC_JWT_SECRET: 's'.repeat(32) }, [llmConfig], { running: ['cms'] }).SVCLLM_MASTER_KEY).toBeUndefined();
  });
});
