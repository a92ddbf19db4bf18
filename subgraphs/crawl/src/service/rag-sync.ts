import { SvcError, type Logger } from '@svc/kit';
import { chunkText } from '../domain/chunking.js';
import { RAG_DEFAULTS } from '../domain/crawl-job-input.js';
import type { BlockedPage, JobRow } from '../domain/crawl-job.js';
import { mainText } from '../extract/main-text.js';
import { blockedPageOf, createShellTracker, SMALL_TEXT } from '../fetch/block-page.js';
import type { PageFetcher } from '../fetch/fetch-page.js';
import type { ItemStore, UpsertedItem } from '../store/item-store.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Embedder } from './gateway-embedder.js';

export interface RagSyncDeps {
  items: ItemStore;
  knowledge: KnowledgeStore;
  embedder: Embedder;
  log: Logger;
}

export interface SyncOutcome {
  indexed: number;
  failed: number;
  /** Detail pages that were block pages: their items are BLOCKED, earlier chunks kept. */
  blocked: BlockedPage[];
  /** Items left for the next run because their site is paused for longer than MAX_WAIT_MS. */
  deferred: number;
}

/** A site paused longer than this (a long Retry-After, blocks in a row) is left for the next run. */
export const MAX_WAIT_MS = 30_000;

/**
 * Indexes new, changed, failed and blocked items of a job into the knowledge base: detail page →
 * main text → token chunks → embeddings through the gateway → pgvector, replacing the item's
 * old chunks. Each item ends INDEXED (with vectorId = its first chunk), FAILED with the reason,
 * or BLOCKED when its page was a block page (fetch/block-page.ts; its chunks from an earlier
 * good fetch stay). Pages with little text are held to the end and checked together: the same
 * small text at SHELL_REPEATS or more URLs of one site is a shell, not content. The category of
 * the chunks is the job's name.
 */
export async function syncItems(deps: RagSyncDeps, fetcher: PageFetcher, tenantId: string, job: JobRow, rows: readonly UpsertedItem[], heartbeat: () => Promise<void>): Promise<SyncOutcome> {
  const config = job.ragConfig ?? RAG_DEFAULTS;
  const outcome: SyncOutcome = { indexed: 0, failed: 0, blocked: [], deferred: 0 };
  const shells = createShellTracker();
  const held: { item: UpsertedItem; url: string; text: string }[] = [];

  async function index(item: UpsertedItem, text: string): Promise<void> {
    const chunks = chunkText(text, { chunkSize: config.chunkSize, chunkOverlap: config.chunkOverlap });
    const vectors = await deps.embedder.embed(config.embeddingModel, chunks.map((c) => c.text));
    const vectorId = await deps.knowledge.replaceItemChunks(
      tenantId,
      { id: item.id, jobId: job.id, title: item.title, sourceUrl: item.detailUrl, category: job.jobName },
      config.embeddingModel,
      chunks.map((c, i) => ({ index: c.index, content: c.text, tokenCount: c.tokenCount, embedding: vectors[i]! })),
    );
    await deps.items.setVectorStatus(tenantId, item.id, 'INDEXED', { vectorId });
    outcome.indexed++;
  }

  async function settle(item: UpsertedItem, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const block = blockedPageOf(error);
      if (block) {
        outcome.blocked.push(block);
        await deps.items.setVectorStatus(tenantId, item.id, 'BLOCKED', { error: `${block.kind}: ${block.reason}` });
        return;
      }
      outcome.failed++;
      const reason = error instanceof SvcError ? error.message : 'internal error while indexing';
      if (!(error instanceof SvcError)) deps.log.error({ err: error, itemId: item.id }, 'knowledge sync failed');
      await deps.items.setVectorStatus(tenantId, item.id, 'FAILED', { error: reason });
    }
  }

  for (const item of rows.filter((r) => r.vectorSyncStatus === 'PENDING' || r.vectorSyncStatus === 'FAILED' || r.vectorSyncStatus === 'BLOCKED')) {
    if (fetcher.pausedFor(item.detailUrl) > MAX_WAIT_MS) {
      outcome.deferred++;
      continue;
    }
    await settle(item, async () => {
      const page = await fetcher.fetchPage(item.detailUrl);
      const text = mainText(page.html);
      if (!text) throw new SvcError('UPSTREAM_ERROR', `The detail page ${item.detailUrl} has no readable text`);
      if (text.length >= SMALL_TEXT) return index(item, text);
      shells.add(page.url, text);
      held.push({ item, url: page.url, text });
    });
    await heartbeat();
  }
  for (const { item, url, text } of held) {
    const shell = shells.verdict(url, text);
    await settle(item, async () => {
      if (shell) throw new SvcError('UPSTREAM_ERROR', `${url} answered a block page`, { slug: 'blocked-page', details: { url, status: 200, block: shell } });
      await index(item, text);
    });
    await heartbeat();
  }
  return outcome;
}
