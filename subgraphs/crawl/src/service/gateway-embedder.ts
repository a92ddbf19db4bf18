import { SvcError, type RouterClient } from '@svc/kit';

export interface Embedder {
  /** One vector per input, in order, from the model gateway (charged to the crawl agent's key). */
  embed(model: string, inputs: readonly string[]): Promise<number[][]>;
  /** Whether the gateway embeds with `model`: false only when it answers that the model does not exist. */
  serves(model: string): Promise<boolean>;
  /** The names in the gateway's model list (aliases left out): chat and embedding models alike. */
  modelNames(): Promise<string[]>;
}

const BATCH = 64;
/** A batch of 64 chunks may take the provider a while. */
const TIMEOUT_MS = 120_000;

/** The gateway's chat aliases, first in its model list; they never embed. */
const CHAT_ALIASES = new Set(['auto-route', 'fast-track', 'deep-reasoning']);

interface EmbeddingsData {
  createEmbeddings?: { data: { index: number; embedding: number[] }[] } | null;
}

/**
 * Embeds through the model gateway like any other caller: the router's `createEmbeddings`
 * (operation CrawlEmbeddings) with the crawl service's own virtual key, so its spending is
 * metered and budgeted.
 */
export function createGatewayEmbedder(options: { router: RouterClient; apiKey: () => string | undefined }): Embedder {
  const authorization = (): Record<string, string> => {
    const key = options.apiKey();
    if (!key) throw new SvcError('UNAVAILABLE', 'Knowledge sync needs a model gateway key for the crawl service (SVC_CRAWL_GATEWAY_KEY)');
    return { authorization: `Bearer ${key}` };
  };
  const embedBatch = (model: string, input: readonly string[]) =>
    options.router.raw('CrawlEmbeddings', { request: { model, input, encoding_format: 'float' } }, { headers: authorization(), timeoutMs: TIMEOUT_MS });
  return {
    async serves(model) {
      const result = await embedBatch(model, ['probe']);
      const error = result.errors?.[0];
      if (!error) return true;
      const details = error.extensions?.['details'] as { openaiCode?: unknown } | undefined;
      if (details?.openaiCode === 'model_not_found') return false;
      throw new SvcError('UPSTREAM_ERROR', `The model gateway could not check embedding model ${JSON.stringify(model)}: ${error.message}`);
    },

    async modelNames() {
      const result = await options.router.raw('CrawlGatewayModels', {}, { headers: authorization() });
      const list = (result.data as { models?: { data?: { id: string }[] } } | null | undefined)?.models?.data;
      if (result.errors?.length || !list) throw new SvcError('UPSTREAM_ERROR', `The model gateway did not list its models: ${result.errors?.[0]?.message ?? 'no list'}`);
      return list.map((m) => m.id).filter((id) => !CHAT_ALIASES.has(id));
    },

    async embed(model, inputs) {
      const vectors: number[][] = [];
      for (let i = 0; i < inputs.length; i += BATCH) {
        const result = await embedBatch(model, inputs.slice(i, i + BATCH));
        const embeddings = (result.data as EmbeddingsData | null | undefined)?.createEmbeddings;
        const refusal = result.errors?.[0];
        const refusedCode = refusal?.extensions?.code;
        // The caller's mistake (an unknown or unsuitable model, a bad input) stays a client error naming the model.
        if (refusedCode === 'NOT_FOUND' || refusedCode === 'BAD_USER_INPUT') {
          throw new SvcError('BAD_USER_INPUT', `The model gateway cannot embed with model ${JSON.stringify(model)}: ${refusal!.message}`, { errors: [{ pointer: '/model', detail: 'not an embedding model the gateway serves' }] });
        }
        if (result.errors?.length || !embeddings) {
          throw new SvcError('UPSTREAM_ERROR', `The model gateway refused the embeddings: ${result.errors?.[0]?.message ?? 'the answer has no embeddings'}`);
        }
        const batch = [...embeddings.data].sort((a, b) => a.index - b.index);
        vectors.push(...batch.map((d) => d.embedding));
      }
      return vectors;
    },
  };
}
