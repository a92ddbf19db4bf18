import { openAiErrors, type SvcError } from '@svc/kit';
import { autoRoute } from '../domain/auto-route.js';
import type { Price } from '../domain/cost.js';
import type { EmbeddingSpec, GatewayConfig, ModelSpec } from '../domain/gateway-config.js';
import { UpstreamError, type ChatMessage, type Provider, type ToolDefinition } from '../domain/openai-types.js';

/** A model on a provider: one place a request can go. */
export interface Deployment {
  name: string;
  model: string;
  providerName: string;
  provider: Provider;
  price: Price;
  maxOutputTokens: number;
  supportsTools: boolean;
}

export interface Route {
  /** What the caller asked for. */
  requested: string;
  /** How auto-route decided, when it did. */
  reason?: string;
  /** In order of preference; later ones are fallbacks. */
  targets: Deployment[];
}

export type ProviderFactory = (spec: GatewayConfig['providers'][number], timeoutMs: number) => Provider;

/**
 * Maps requested model names to deployments, and calls them with retries and fallback: a
 * deployment that fails with 429, 5xx or a timeout cools down for `cooldownMs` and the next
 * target is tried. When every target is cooling down the least recently failed is tried anyway.
 */
export function createModelRouter(config: GatewayConfig, makeProvider: ProviderFactory, now: () => number = Date.now) {
  const providers = new Map(config.providers.map((p) => [p.name, makeProvider(p, config.timeoutMs)]));
  const deployment = (m: ModelSpec | EmbeddingSpec, maxOutputTokens = 0, supportsTools = false): Deployment => ({
    name: m.name,
    model: m.model,
    providerName: m.provider,
    provider: providers.get(m.provider)!,
    price: m.price,
    maxOutputTokens,
    supportsTools,
  });
  const chatModels = new Map(config.models.map((m) => [m.name, deployment(m, m.maxOutputTokens, m.supportsTools)]));
  const embeddingModels = new Map(config.embeddings.map((e) => [e.name, deployment(e)]));
  const cooldownUntil = new Map<string, number>();

  function unknownModel(name: string): SvcError {
    if (embeddingModels.has(name)) return openAiErrors.notFound(`${JSON.stringify(name)} is an embedding model, not a chat model; use auto-route, fast-track, deep-reasoning or one of: ${[...chatModels.keys()].join(', ')}`, 'model', 'model_not_found', { details: { kind: 'chat' } });
    return openAiErrors.notFound(`The model ${JSON.stringify(name)} does not exist; use auto-route, fast-track, deep-reasoning or one of: ${[...chatModels.keys()].join(', ')}`, 'model', 'model_not_found', {
      details: { kind: 'chat' },
    });
  }

  function order(targets: Deployment[]): Deployment[] {
    const t = now();
    const ready = targets.filter((d) => (cooldownUntil.get(d.name) ?? 0) <= t);
    const cooling = targets.filter((d) => (cooldownUntil.get(d.name) ?? 0) > t).sort((a, b) => cooldownUntil.get(a.name)! - cooldownUntil.get(b.name)!);
    return [...ready, ...cooling];
  }

  return {
    chatModelNames: () => [...chatModels.keys()],
    embeddingModelNames: () => [...embeddingModels.keys()],

    routeChat(requested: string, messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): Route {
      let alias = requested;
      let reason: string | undefined;
      if (requested === 'auto-route') {
        const decision = autoRoute(messages, tools);
        alias = decision.tier;
        reason = decision.reason;
      }
      if (alias === 'fast-track' || alias === 'deep-reasoning') {
        return { requested, reason: reason ?? alias, targets: config.aliases[alias].map((name) => chatModels.get(name)!) };
      }
      const model = chatModels.get(requested);
      if (!model) throw unknownModel(requested);
      return { requested, targets: [model] };
    },

    routeEmbedding(requested: string): Deployment {
      const model = embeddingModels.get(requested);
      if (model) return model;
      if (config.embeddingPassThrough) {
        return { name: requested, model: requested, providerName: config.embeddingPassThrough, provider: providers.get(config.embeddingPassThrough)!, price: config.defaultPrice, maxOutputTokens: 0, supportsTools: false };
      }
      if (requested === 'auto-route' || requested === 'fast-track' || requested === 'deep-reasoning' || chatModels.has(requested)) {
        throw openAiErrors.notFound(`${JSON.stringify(requested)} is a chat model, not an embedding model; embedding models here: ${[...embeddingModels.keys()].join(', ') || '(none configured)'}`, 'model', 'model_not_found', { details: { kind: 'embedding' } });
      }
      throw openAiErrors.notFound(`The embedding model ${JSON.stringify(requested)} does not exist; embedding models here: ${[...embeddingModels.keys()].join(', ') || '(none configured)'}`, 'model', 'model_not_found', { details: { kind: 'embedding' } });
    },

    /** Runs `call` on the targets in turn until one succeeds; non-retryable errors stop at once. */
    async withFallback<T>(targets: Deployment[], call: (d: Deployment) => Promise<T>, onFailure?: (d: Deployment, error: UpstreamError) => void): Promise<{ result: T; deployment: Deployment }> {
      let last: unknown;
      for (const d of order(targets)) {
        try {
          return { result: await call(d), deployment: d };
        } catch (error) {
          last = error;
          if (!(error instanceof UpstreamError) || !error.retryable) throw error;
          cooldownUntil.set(d.name, now() + Math.max(config.cooldownMs, error.retryAfterMs ?? 0));
          onFailure?.(d, error);
        }
      }
      throw last;
    },
  };
}

export type ModelRouter = ReturnType<typeof createModelRouter>;

/** An upstream failure as the client sees it: 502 (or 503 when every target is rate limited). */
export function upstreamFailure(error: UpstreamError): SvcError {
  return openAiErrors.upstreamFailure(`Upstream model provider failed: ${error.message}`, error.status === 429, error.retryAfterMs ? Math.ceil(error.retryAfterMs / 1000) : undefined);
}
