// An item a crawl collected, as stored (store/item-store.ts returns them), and its knowledge-base sync state.

/** BLOCKED: the detail page answered a block page (the reason in vectorSyncError); chunks of an earlier good fetch stay. */
export const VECTOR_SYNC_STATUSES = ['NOT_REQUESTED', 'PENDING', 'INDEXED', 'FAILED', 'BLOCKED'] as const;
export type VectorSyncStatus = (typeof VECTOR_SYNC_STATUSES)[number];

export interface StoredItem {
  id: string;
  jobId: string;
  detailUrl: string;
  title: string;
  publishedAt: string | null;
  contentHash: string;
  vectorSyncStatus: VectorSyncStatus;
  vectorSyncError: string | null;
  vectorId: string | null;
  firstSeenExecution: string;
  lastSeenExecution: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What an execution found an item to be: first seen, changed (its list row or its page's main content), or neither. */
export type ItemChange = 'new' | 'changed' | 'unchanged';

/** What changed in an item, sentence by sentence (extract/content-change.ts). */
export interface ItemDiff {
  added: string[];
  removed: string[];
  /** Sentences changed beyond the ones listed. */
  more: number;
  /** Changed too much to list. */
  rewritten: boolean;
}

/** An item of an execution, with its place in the page order. */
export interface ExecutionItem extends StoredItem {
  position: number;
  /** null for executions from before change tracking. */
  change: ItemChange | null;
  diff: ItemDiff | null;
}
