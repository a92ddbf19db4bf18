import { SvcError, type Logger } from '@svc/kit';
import { chunkText } from '../domain/chunking.js';
import { RAG_DEFAULTS } from '../domain/crawl-job-input.js';
import type { ItemDiff } from '../domain/crawl-item.js';
import type { BlockedPage, JobRow } from '../domain/crawl-job.js';
import { contentFingerprint, textDiff } from '../extract/content-change.js';
import { mainContent, type MainContent } from '../extract/main-text.js';
import { blockedPageOf, createShellTracker, SMALL_TEXT } from '../fetch/block-page.js';
import type { PageFetcher } from '../fetch/fetch-page.js';
import type { ChangeStore } from '../store/change-store.js';
import type { ItemStore, UpsertedItem } from '../store/item-store.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Embedder } from './gateway-embedder.js';

export interface RagSyncDeps {
  items: ItemStore;
  changes: ChangeStore;
  knowledge: KnowledgeStore;
  embedder: Embedder;
  log: Logger;
}

export interface SyncOutcome {
  indexed: number;
  /** Items whose page's main content was as before: not embedded again. */
  unchanged: number;
  /** Items whose page's main content changed in this execution, with what changed (null: not known). */
  contentChanged: Map<string, ItemDiff | null>;
  failed: number;
  /** Detail pages that were block pages: their items are BLOCKED, earlier chunks kept. */
  blocked: BlockedPage[];
  /** Items left for the next run because their site is paused for longer than MAX_WAIT_MS. */
  deferred: number;
}

/** A site paused longer than this (a long Retry-After, blocks in a row) is left for the next run. */
export const MAX_WAIT_MS = 30_000;

/**
 * Reads the detail page of every item of a run and indexes what is new or changed into the
 * knowledge base: detail page → main text → fingerprint (extract/content-change.ts) → token
 * chunks → embeddings through the gateway → pgvector, replacing the item's old chunks. An item
 * whose main content has the fingerprint it had and that is INDEXED is not embedded again; one
 * whose content changed is, and the change is kept with its diff against the text stored last
 * time (a retried execution finds the change its crashed attempt stored). Each item ends
 * INDEXED (with vectorId = its first chunk), FAILED with the reason, or BLOCKED when its page was
 * a block page (fetch/block-page.ts; its chunks from an earlier good fetch stay). Pages with
 * little text are held to the end and checked together: the same small text at SHELL_REPEATS or
 * more URLs of one site is a shell, not content. The category of the chunks is the job's name.
 */
export async function syncItems(
  deps: RagSyncDeps,
  fetcher: PageFetcher,
  run: { tenantId: string; executionId: string; job: JobRow },
  rows: readonly UpsertedItem[],
  heartbeat: () => Promise<void>,
): Promise<SyncOutcome> {
  const { tenantId, executionId, job } = run;
  const config = job.ragConfig ?? RAG_DEFAULTS;
  const outcome: SyncOutcome = { indexed: 0, unchanged: 0, contentChanged: new Map(), failed: 0, blocked: [], deferred: 0 };
  const stored = await deps.changes.contentOf(tenantId, rows.map((r) => r.id));
  const shells = createShellTracker();
  const held: { item: UpsertedItem; url: string; content: MainContent }[] = [];

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

  /**
   * A page's text is the item's content: note a change, keep the text, index when needed. A stored
   * fingerprint that differs while the stored text reads the same as this one under today's rules
   * was taken with older volatile rules (or another language guess): the page did not change.
   */
  async function accept(item: UpsertedItem, { text, language }: MainContent): Promise<void> {
    const fingerprint = contentFingerprint(text, language);
    const before = stored.get(item.id);
    let diff: ItemDiff | null | undefined;
    let changedIn: string | null = null;
    if (before?.changedExecution === executionId) diff = before.diff;
    else if (before?.fingerprint && before.fingerprint !== fingerprint && !(before.text && contentFingerprint(before.text, language) === fingerprint)) {
      diff = before.text ? textDiff(before.text, text, language) : null;
      changedIn = executionId;
    }
    if (diff !== undefined) outcome.contentChanged.set(item.id, diff);
    // An unchanged page's stored text stays as it is: one write per changed or new page, not per page.
    if (changedIn !== null || before?.fingerprint !== fingerprint) {
      await deps.changes.setContent(tenantId, item.id, { fingerprint, text, changedIn, diff: diff ?? null });
    }
    if (item.vectorSyncStatus === 'INDEXED' && !item.changed && diff === undefined) {
      outcome.unchanged++;
      return;
    }
    await index(item, text);
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

  for (const item of rows.filter((r) => r.vectorSyncStatus !== 'NOT_REQUESTED')) {
    if (fetcher.pausedFor(item.detailUrl) > MAX_WAIT_MS) {
      outcome.deferred++;
      continue;
    }
    await settle(item, async () => {
      const page = await fetcher.fetchPage(item.detailUrl);
      const content = mainContent(page.html, job.volatileSelectors);
      if (!content.text) throw new SvcError('UPSTREAM_ERROR', `The detail page ${item.detailUrl} has no readable text`);
      if (content.text.length >= SMALL_TEXT) return accept(item, content);
      shells.add(page.url, content.text);
      held.push({ item, url: page.url, content });
    });
    await heartbeat();
  }
  for (const { item, url, content } of held) {
    const shell = shells.verdict(url, content.text);
    await settle(item, async () => {
      if (shell) throw new SvcError('UPSTREAM_ERROR', `${url} answered a block page`, { slug: 'blocked-page', details: { url, status: 200, block: shell } });
      await accept(item, content);
    });
    await heartbeat();
  }
  return outcome;
}
