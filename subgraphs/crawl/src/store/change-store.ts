import { isUuid, type MikroORM } from '@svc/kit';
import type { ItemChange, ItemDiff } from '../domain/crawl-item.js';
import { MAX_CHANGED_KEPT, MAX_GONE_KEPT, type ChangeCounts, type ChangedItem, type GoneItem } from '../domain/crawl-job.js';
import { json, type Row } from './columns.js';


/** An item's main content as last stored (extract/content-change.ts). */
export interface StoredContent {
  fingerprint: string | null;
  text: string | null;
  /** The execution that last changed it (null: never seen changing). */
  changedExecution: string | null;
  diff: ItemDiff | null;
}

export interface ItemChangeInput {
  itemId: string;
  title: string;
  detailUrl: string;
  change: ItemChange;
  diff: ItemDiff | null;
}

/** Longest main text kept per item to diff the next run against. */
export const STORED_TEXT_CHARS = 100_000;

/**
 * Change tracking's storage: an item's main-content fingerprint and text (with the execution
 * that last changed it and its diff, so a retried execution reports the same change as its
 * crashed first attempt), and per execution what each of its items was and what went missing.
 */
export function createChangeStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** The stored content of the tenant's items among `itemIds`, by id. */
    async contentOf(tenantId: string, itemIds: readonly string[]): Promise<Map<string, StoredContent>> {
      const ids = itemIds.filter(isUuid);
      if (!ids.length) return new Map();
      const rows = await em().execute<Row[]>(
        `select id, content_fingerprint, content_text, content_changed_execution, content_diff from crawl.crawl_item where tenant_id = ? and id = any(?::uuid[])`,
        [tenantId, `{${ids.join(',')}}`],
      );
      return new Map(rows.map((r) => [String(r.id), {
        fingerprint: (r.content_fingerprint as string | null) ?? null,
        text: (r.content_text as string | null) ?? null,
        changedExecution: r.content_changed_execution ? String(r.content_changed_execution) : null,
        diff: r.content_diff ? json<ItemDiff>(r.content_diff) : null,
      }]));
    },

    /** Stores an item's content; with `changedIn`, that execution changed it, with `diff`. */
    async setContent(tenantId: string, itemId: string, content: { fingerprint: string; text: string; changedIn: string | null; diff: ItemDiff | null }): Promise<void> {
      await em().execute(
        `update crawl.crawl_item set content_fingerprint = ?, content_text = ?,
                content_changed_execution = case when ?::uuid is null then content_changed_execution else ?::uuid end,
                content_diff = case when ?::uuid is null then content_diff else ?::jsonb end
          where tenant_id = ? and id = ?`,
        [content.fingerprint, content.text.slice(0, STORED_TEXT_CHARS), content.changedIn, content.changedIn, content.changedIn, JSON.stringify(content.diff), tenantId, itemId],
      );
    },

    /**
     * Writes what each item of an execution was, and the execution's counts, its first changed
     * items and the items gone since the job's previous completed run (listed there, not here).
     * Idempotent: a retry writes the same.
     */
    async record(tenantId: string, jobId: string, executionId: string, changes: readonly ItemChangeInput[]): Promise<{ counts: ChangeCounts; changedItems: ChangedItem[]; goneItems: GoneItem[] }> {
      const payload = JSON.stringify(changes.map((c) => ({ item_id: c.itemId, change: c.change, diff: c.diff })));
      const rows = await em().execute<Row[]>(
        `with input as (
           select x.item_id, x.change, x.diff from jsonb_to_recordset(?::jsonb) as x(item_id uuid, change text, diff jsonb)
         ),
         marked as (
           update crawl.execution_item ei set change = i.change, diff = i.diff
             from input i where ei.tenant_id = ? and ei.execution_id = ?::uuid and ei.item_id = i.item_id
           returning ei.item_id
         ),
         previous as (
           select e.id from crawl.crawl_execution e
            where e.tenant_id = ? and e.job_id = ?::uuid and e.status = 'COMPLETED' and e.id <> ?::uuid
            order by e.finished_at desc limit 1
         )
         select ci.id, ci.title, ci.detail_url
           from crawl.execution_item ei
           join previous p on p.id = ei.execution_id
           join crawl.crawl_item ci on ci.id = ei.item_id and ci.tenant_id = ei.tenant_id
          where ei.tenant_id = ? and not exists (select 1 from input i where i.item_id = ei.item_id)
          order by ei.position`,
        [payload, tenantId, executionId, tenantId, jobId, executionId, tenantId],
      );
      const goneItems = rows.map((r) => ({ itemId: String(r.id), title: String(r.title), detailUrl: String(r.detail_url) }));
      const count = (change: ItemChange) => changes.filter((c) => c.change === change).length;
      const counts: ChangeCounts = { new: count('new'), changed: count('changed'), unchanged: count('unchanged'), gone: goneItems.length };
      const changedItems = changes
        .filter((c) => c.change === 'changed')
        .slice(0, MAX_CHANGED_KEPT)
        .map((c) => ({ itemId: c.itemId, title: c.title, detailUrl: c.detailUrl, diff: c.diff }));
      await em().execute(
        `update crawl.crawl_execution set new_count = ?, changed_count = ?, unchanged_count = ?, gone_count = ?, changed_sample = ?::jsonb, gone = ?::jsonb
          where tenant_id = ? and id = ?`,
        [counts.new, counts.changed, counts.unchanged, counts.gone, JSON.stringify(changedItems), JSON.stringify(goneItems.slice(0, MAX_GONE_KEPT)), tenantId, executionId],
      );
      return { counts, changedItems, goneItems };
    },
  };
}

export type ChangeStore = ReturnType<typeof createChangeStore>;
