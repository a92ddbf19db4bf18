import { z } from 'zod';
import type { Price } from './cost.js';

const price = { inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) };

const providerSchema = z.object({
  name: z.string().min(1),
  kind: z.enum(['openai-compatible', 'anthropic', 'local']),
  /** e.g. https://api.openai.com/v1, an Azure deployment URL with ?api-version=, http://vllm:8000/v1, http://ollama:11434/v1 */
  baseUrl: z.url().optional(),
  /** Name of the environment variable holding the API key (keys never live in the file). */
  apiKeyEnv: z.string().optional(),
});

const modelSchema = z.object({
  /** The name clients use (and what `model` in responses shows). */
  name: z.string().min(1),
  provider: z.string().min(1),
  /** The provider's model id; default `name`. */
  model: z.string().min(1).optional(),
  ...price,
  maxOutputTokens: z.number().int().min(1).default(4096),
  /** Chat models: whether tools/tool_choice are passed on. Default true. */
  supportsTools: z.boolean().default(true),
});

const embeddingSchema = z.object({
  name: z.string().min(1),
  provider: z.string().min(1),
  model: z.string().min(1).optional(),
  inputPerMTok: z.number().min(0),
});

export const gatewayFileSchema = z.object({
  providers: z.array(providerSchema).min(1),
  models: z.array(modelSchema).default([]),
  embeddings: z.array(embeddingSchema).default([]),
  aliases: z.object({ 'fast-track': z.array(z.string()).min(1), 'deep-reasoning': z.array(z.string()).min(1) }).optional(),
  defaultPrice: z.object(price).optional(),
  /** How long a deployment that failed with 429/5xx/timeout is skipped. Default 30. */
  cooldownSeconds: z.number().min(0).default(30),
  /** Per upstream call. Default 60. */
  timeoutSeconds: z.number().min(1).default(60),
});

export type GatewayFile = z.infer<typeof gatewayFileSchema>;

export interface ProviderSpec {
  name: string;
  kind: 'openai-compatible' | 'anthropic' | 'local';
  baseUrl?: string;
  apiKey?: string;
}

export interface ModelSpec {
  name: string;
  provider: string;
  model: string;
  price: Price;
  maxOutputTokens: number;
  supportsTools: boolean;
}

export interface EmbeddingSpec {
  name: string;
  provider: string;
  model: string;
  price: Price;
}

/** The resolved routing table: what `model` names mean and where they go. */
export interface GatewayConfig {
  providers: ProviderSpec[];
  models: ModelSpec[];
  embeddings: EmbeddingSpec[];
  aliases: { 'fast-track': string[]; 'deep-reasoning': string[] };
  /** Charged for any model without a price of its own: never free by accident. */
  defaultPrice: Price;
  cooldownMs: number;
  timeoutMs: number;
  /** Provider that receives embedding models not listed (env-only setup): charged at defaultPrice. */
  embeddingPassThrough?: string;
}

/** The built-in offline setup: every alias on the deterministic `local` model. */
export const LOCAL_MODEL = 'svc-local';
export const LOCAL_EMBEDDING_MODEL = 'svc-local-embedding';

export interface GatewayEnv {
  configFile?: string;
  configText?: string;
  llmBaseUrl?: string;
  llmApiKey?: string;
  llmModelName?: string;
  defaultPrice: Price;
  env: Record<string, string | undefined>;
}

/**
 * Precedence: a config file (SVCLLM_CONFIG); else LLM_BASE_URL + LLM_MODEL_NAME (every alias
 * routes to that endpoint and model, embeddings too); else the built-in local provider.
 * The local model is always available by name, so offline callers keep working.
 */
export function resolveGatewayConfig(input: GatewayEnv): GatewayConfig {
  const local: ModelSpec = { name: LOCAL_MODEL, provider: 'local', model: LOCAL_MODEL, price: { inputPerMTok: 0, outputPerMTok: 0 }, maxOutputTokens: 4096, supportsTools: true };
  const localEmbedding: EmbeddingSpec = { name: LOCAL_EMBEDDING_MODEL, provider: 'local', model: LOCAL_EMBEDDING_MODEL, price: { inputPerMTok: 0, outputPerMTok: 0 } };
  const localProvider: ProviderSpec = { name: 'local', kind: 'local' };
  if (input.configText !== undefined) {
    const parsed = gatewayFileSchema.safeParse(JSON.parse(input.configText));
    if (!parsed.success) {
      throw new Error(`Invalid gateway config ${input.configFile ?? ''}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    const file = parsed.data;
    const providers: ProviderSpec[] = file.providers.map((p) => ({ name: p.name, kind: p.kind, baseUrl: p.baseUrl, apiKey: p.apiKeyEnv ? input.env[p.apiKeyEnv] : undefined }));
    for (const p of file.providers) {
      if (p.apiKeyEnv && !input.env[p.apiKeyEnv]) throw new Error(`Gateway config: provider ${p.name} reads its key from ${p.apiKeyEnv}, which is not set`);
      if (p.kind !== 'local' && !p.baseUrl && p.kind !== 'anthropic') throw new Error(`Gateway config: provider ${p.name} needs a baseUrl`);
    }
    const names = new Set(providers.map((p) => p.name));
    const defaultPrice = file.defaultPrice ?? input.defaultPrice;
    const models: ModelSpec[] = file.models.map((m) => ({ name: m.name, provider: m.provider, model: m.model ?? m.name, price: { inputPerMTok: m.inputPerMTok, outputPerMTok: m.outputPerMTok }, maxOutputTokens: m.maxOutputTokens, supportsTools: m.supportsTools }));
    const embeddings: EmbeddingSpec[] = file.embeddings.map((e) => ({ name: e.name, provider: e.provider, model: e.model ?? e.name, price: { inputPerMTok: e.inputPerMTok, outputPerMTok: 0 } }));
    for (const m of [...models, ...embeddings]) if (!names.has(m.provider)) throw new Error(`Gateway config: model ${m.name} names unknown provider ${m.provider}`);
    const modelNames = new Set(models.map((m) => m.name));
    const fallbackAlias = models.length ? [models[0]!.name] : [LOCAL_MODEL];
    const aliases = file.aliases ?? { 'fast-track': fallbackAlias, 'deep-reasoning': fallbackAlias };
    for (const [alias, list] of Object.entries(aliases)) {
      for (const name of list) if (!modelNames.has(name) && name !== LOCAL_MODEL) throw new Error(`Gateway config: alias ${alias} names unknown model ${name}`);
    }
    return {
      providers: [...providers, localProvider],
      models: [...models, local],
      embeddings: [...embeddings, localEmbedding],
      aliases,
      defaultPrice,
      cooldownMs: file.cooldownSeconds * 1000,
      timeoutMs: file.timeoutSeconds * 1000,
    };
  }
  if (input.llmBaseUrl && input.llmModelName) {
    const upstream: ModelSpec = { name: input.llmModelName, provider: 'upstream', model: input.llmModelName, price: input.defaultPrice, maxOutputTokens: 4096, supportsTools: true };
    return {
      providers: [{ name: 'upstream', kind: 'openai-compatible', baseUrl: input.llmBaseUrl, apiKey: input.llmApiKey }, localProvider],
      models: [upstream, local],
      embeddings: [localEmbedding],
      aliases: { 'fast-track': [upstream.name], 'deep-reasoning': [upstream.name] },
      defaultPrice: input.defaultPrice,
      cooldownMs: 30_000,
      timeoutMs: 60_000,
      embeddingPassThrough: 'upstream',
    };
  }
  return {
    providers: [localProvider],
    models: [local],
    embeddings: [localEmbedding],
    aliases: { 'fast-track': [LOCAL_MODEL], 'deep-reasoning': [LOCAL_MODEL] },
    defaultPrice: input.defaultPrice,
    cooldownMs: 30_000,
    timeoutMs: 60_000,
  };
}
