import { defineConfigSlice, envVar, isEmbedded, serviceOptions, type EmbeddedSecret, type ServiceStart } from '@svc/kit';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { LlmOptions } from './llm-subgraph.js';

/** Embedded mode's master key when SVCLLM_MASTER_KEY is unset: `.data/svcllm-master-key`. */
export const EMBEDDED_MASTER_KEY: EmbeddedSecret = {
  variable: 'SVCLLM_MASTER_KEY',
  file: 'svcllm-master-key',
  what: 'the model gateway master key (SVCLLM_MASTER_KEY)',
  generate: () => `sk-svc-master-${randomBytes(24).toString('base64url')}`,
};

/** What the start hands the gateway beside the configuration. */
export interface LlmStart extends ServiceStart {
  /** SVCLLM_MASTER_KEY, or embedded mode's generated one. */
  masterKey: string;
  /** The process environment: the routing file names the variables holding provider keys. */
  env: Record<string, string | undefined>;
}

/** The model gateway's variables: its master key, routing, prices, cache and budget alerts. */
export const llmConfig = defineConfigSlice({
  variables: z.object({
    /** Model gateway master key: administers budgets and keys. Required outside embedded mode (embedded: generated under SVC_DATA_DIR). */
    SVCLLM_MASTER_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Path of the gateway's JSON config (providers, models, prices, aliases). */
    SVCLLM_CONFIG: z.string().min(1).optional(),
    /** With LLM_MODEL_NAME and no SVCLLM_CONFIG: one OpenAI-compatible endpoint behind every alias. */
    LLM_BASE_URL: envVar.httpUrl().optional(),
    LLM_API_KEY: z.string().min(1).optional(),
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
    /** How long a budget lease outlives its gateway instance (renewed while it runs); after a crash the sweep charges it in full once it expires. Default 60. */
    SVCLLM_LEASE_TTL_SECONDS: z.coerce.number().int().min(2).max(3600).default(60),
    /**
     * The monthly budget, USD, with its hard limit on, that a platform agent's share for one tenant
     * (`insight:<tenant>`: that tenant's analyses) starts with; a platform admin changes one share's
     * with POST /admin/v1/budgets. 0 blocks every call until one is set. Default 25.
     */
    SVCLLM_TENANT_SHARE_BUDGET_USD: z.coerce.number().min(0).max(1_000_000).default(25),
  }),
  rules: [
    {
      services: ['llm'],
      variable: 'SVCLLM_MASTER_KEY',
      message: 'is required (at least 16 characters) outside embedded mode',
      broken: (config) => !config.SVCLLM_MASTER_KEY && !isEmbedded(config),
    },
  ],
  fromConfig: (config, start: LlmStart): LlmOptions => ({
    ...serviceOptions(config, start),
    redisUrl: config.REDIS_URL,
    redisPrefix: config.SVC_REDIS_PREFIX,
    masterKey: start.masterKey,
    webhookSecret: config.SVCLLM_WEBHOOK_SECRET ?? start.masterKey,
    configFile: config.SVCLLM_CONFIG,
    llmBaseUrl: config.LLM_BASE_URL,
    llmApiKey: config.LLM_API_KEY,
    llmModelName: config.LLM_MODEL_NAME,
    defaultPrice: { inputPerMTok: config.SVCLLM_DEFAULT_INPUT_USD_PER_MTOK, outputPerMTok: config.SVCLLM_DEFAULT_OUTPUT_USD_PER_MTOK },
    cacheTtlSeconds: config.SVCLLM_CACHE_TTL_SECONDS,
    alertRetryBaseMs: config.SVCLLM_ALERT_RETRY_BASE_MS,
    leaseTtlSeconds: config.SVCLLM_LEASE_TTL_SECONDS,
    tenantShareBudgetUsd: config.SVCLLM_TENANT_SHARE_BUDGET_USD,
    outboundAllow: config.SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS,
    env: start.env,
    seedDemo: config.SVC_SEED_DEMO ?? isEmbedded(config),
  }),
});
