import { SvcError, type RouterClient } from '@svc/kit';

export interface Embedder {
  /** One vector per input, in order, from the model gateway (charged to the crawl agent's key). */
  embed(model: string, inputs: readonly string[]): Promise<number[][]>;
}

const BATCH = 64;
/** A batch of 64 chunks may take the provider a while. */
const TIMEOUT_MS = 120_000;

interface EmbeddingsData {
  createEmbeddings?: { data: { index: number; embedding: number[] }[] } | null;
}

/**
 * Embeds through the model gateway like any other caller: the router's `createEmbeddings`
 * (operation CrawlEmbeddings) with the crawl service's own virtual key, so its spending is
 * metered and budgeted.
 */
export function createGatewayEmbedder(options: { router: RouterClient; apiKey: () => string | undefined }): Embedder {
  return {
    async embed(model, inputs) {
      const key = options.apiKey();
      if (!key) throw new SvcError('UNAVAILABLE', 'Knowledge sync needs a model gateway key for the crawl service (SVC_CRAWL_GATEWAY_KEY)');
      const vectors: number[][] = [];
      for (let i = 0; i < inputs.length; i += BATCH) {
        const request = { model, input: inputs.slice(i, i + BATCH), encoding_format: 'float' };
        const result = await options.router.raw('CrawlEmbeddings', { request }, { headers: { authorization: `Bearer ${key}` }, timeoutMs: TIMEOUT_MS });
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
