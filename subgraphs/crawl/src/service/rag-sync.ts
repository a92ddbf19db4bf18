import { SvcError, type Logger } from '@svc/kit';
import { chunkText } from '../domain/chunking.js';
import { RAG_DEFAULTS } from '../domain/crawl-job-input.js';
import { mainText } from '../extract/main-text.js';
import type { PageFetcher } from '../fetch/fetch-page.js';
import type { ItemStore, UpsertedItem } from '../store/item-store.js';
import type { JobRow } from '../domain/crawl-job.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Embedder } from './gateway-embedder.js';

export interface RagSyncDeps {
  items: ItemStore;
  knowledge: KnowledgeStore;
  embedder: Embedder;
  log: Logger;
}

/**
 * Indexes new and changed items of a job into the knowledge base: detail page → main text →
 * token chunks → embeddings through the gateway → pgvector, replacing the item's old chunks.
 * Each item ends INDEXED (with vectorId = its first chunk) or FAILED with the reason; the
 * category of the chunks is the job's name.
 */
export async function syncItems(deps: RagSyncDeps, fetcher: PageFetcher, tenantId: string, job: JobRow, rows: readonly UpsertedItem[], heartbeat: () => Promise<void>): Promise<{ indexed: number; failed: number }> {
  const config = job.ragConfig ?? RAG_DEFAULTS;
  let indexed = 0;
  let failed = 0;
  for (const item of rows.filter((r) => r.vectorSyncStatus === 'PENDING' || r.vectorSyncStatus === 'FAILED')) {
    try {
      const page = await fetcher.fetchPage(item.detailUrl);
      const text = mainText(page.html, page.url);
      if (!text) throw new SvcError('UPSTREAM_ERROR', `The detail page ${item.detailUrl} has no readable text`);
      const chunks = chunkText(text, { chunkSize: config.chunkSize, chunkOverlap: config.chunkOverlap });
      const vectors = await deps.embedder.embed(config.embeddingModel, chunks.map((c) => c.text));
      const vectorId = await deps.knowledge.replaceItemChunks(
        tenantId,
        { id: item.id, jobId: job.id, title: item.title, sourceUrl: item.detailUrl, category: job.jobName },
        config.embeddingModel,
        chunks.map((c, i) => ({ index: c.index, content: c.text, tokenCount: c.tokenCount, embedding: vectors[i]! })),
      );
      await deps.items.setVectorStatus(tenantId, item.id, 'INDEXED', { vectorId });
      indexed++;
    } catch (error) {
      failed++;
      const reason = error instanceof SvcError ? error.message : 'internal error while indexing';
      if (!(error instanceof SvcError)) deps.log.error({ err: error, itemId: item.id }, 'knowledge sync failed');
      await deps.items.setVectorStatus(tenantId, item.id, 'FAILED', { error: reason });
    }
    await heartbeat();
  }
  return { indexed, failed };
}
