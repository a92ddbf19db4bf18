import { SvcError } from '@svc/kit';
import { RAG_DEFAULTS } from '../domain/crawl-job-input.js';
import type { Embedder } from './gateway-embedder.js';

/**
 * A job's `ragConfig.embeddingModel` must be one the model gateway embeds with, checked when the
 * job is created: otherwise the job would be accepted and every item would later end FAILED.
 *
 * Decisions:
 * - The gateway decides (its configured embedding models, or any name when it passes
 *   embeddings through to an upstream): the check embeds the word "probe" with the model under
 *   the crawl service's key, a fraction of a cent. The built-in `svc-local-embedding` (the
 *   default) is always served and is not asked about.
 * - Not served: 400 naming `/ragConfig/embeddingModel` and listing the available embedding
 *   models, the names of the gateway's model list that it embeds with (the list mixes chat and
 *   embedding models, so each is probed; this happens only on this error path).
 * - A gateway that cannot answer makes the create fail (502/503) rather than accept an
 *   unchecked model.
 */
export async function checkEmbeddingModel(embedder: Pick<Embedder, 'serves' | 'modelNames'>, model: string): Promise<void> {
  if (model === RAG_DEFAULTS.embeddingModel || (await embedder.serves(model))) return;
  const names = await embedder.modelNames();
  const served = await Promise.all(names.map((name) => embedder.serves(name).catch(() => false)));
  const available = names.filter((_, i) => served[i]);
  const detail = `embeddingModel ${JSON.stringify(model)} is not served by the model gateway; available: ${available.join(', ') || 'none'}`;
  throw new SvcError('BAD_USER_INPUT', detail, { errors: [{ pointer: '/ragConfig/embeddingModel', detail }] });
}
