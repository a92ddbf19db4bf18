import { SvcError, type Logger } from '@svc/kit';

export interface Embedder {
  /** One vector per input, in order, from the model gateway (charged to the crawl agent's key). */
  embed(model: string, inputs: readonly string[]): Promise<number[][]>;
}

const BATCH = 64;
const MUTATION = 'mutation CrawlEmbeddings($request: JSONObject!) { createEmbeddings(request: $request) }';

/**
 * Embeds through the model gateway like any other caller: the router's `createEmbeddings`
 * with the crawl service's own virtual key, so its spending is metered and budgeted.
 */
export function createGatewayEmbedder(options: { routerUrl: () => string; apiKey: () => string | undefined; log: Logger }): Embedder {
  return {
    async embed(model, inputs) {
      const key = options.apiKey();
      if (!key) throw new SvcError('UNAVAILABLE', 'Knowledge sync needs a model gateway key for the crawl service (SVC_CRAWL_GATEWAY_KEY)');
      const vectors: number[][] = [];
      for (let i = 0; i < inputs.length; i += BATCH) {
        const response = await fetch(options.routerUrl(), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: MUTATION, variables: { request: { model, input: inputs.slice(i, i + BATCH), encoding_format: 'float' } } }),
          signal: AbortSignal.timeout(120_000),
        });
        const body = (await response.json()) as { data?: { createEmbeddings?: { data: { index: number; embedding: number[] }[] } }; errors?: { message: string }[] };
        if (body.errors?.length || !body.data?.createEmbeddings) {
          throw new SvcError('UPSTREAM_ERROR', `The model gateway refused the embeddings: ${body.errors?.[0]?.message ?? `HTTP ${response.status}`}`);
        }
        const batch = [...body.data.createEmbeddings.data].sort((a, b) => a.index - b.index);
        vectors.push(...batch.map((d) => d.embedding));
      }
      return vectors;
    },
  };
}
