import { SvcError, validationError, type FieldProblem, type MikroORM, isUuid } from '@svc/kit';
import { type ExecutionItem, type ItemChange, type ItemDiff, type StoredItem, VECTOR_SYNC_STATUSES, type VectorSyncStatus } from '../domain/crawl-item.js';
import { json, type Row } from './columns.js';

/** One item as extracted from a list page. */
export interface ItemInput {
  title: string;
  /** YYYY-MM-DD, or null when the page gave no (parsable) date. */
  publishedAt: string | null;
  detailUrl: string;
  /** Hash of the item's content; a different hash on a re-run means the item changed. */
  contentHash: string;
}

export interface UpsertedItem extends StoredItem {
  position: number;
  /** First collected by this execution. */
  inserted: boolean;
  /** Inserted, or its content changed, in this execution: its chunks need (re)building. */
  changed: boolean;
  /** Its list row before this execution changed it (null when it did not, or on a retry). */
  previous: { title: string; publishedAt: string | null } | null;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
  /** One row per distinct detailUrl, in page order. */
  rows: UpsertedItem[];
}

const MAX_ERROR_CHARS = 4000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;


const ITEM_COLUMNS = `ci.id, ci.job_id, ci.detail_url, ci.title, ci.published_at::text as published_at, ci.content_hash,
       ci.vector_sync_status, ci.vector_sync_error, ci.vector_id, ci.first_seen_execution, ci.last_seen_execution,
       ci.changed_execution, ci.created_at, ci.updated_at`;

function toItem(row: Row): StoredItem {
  return {
    id: String(row.id),
    jobId: String(row.job_id),
    detailUrl: String(row.detail_url),
    title: String(row.title),
    publishedAt: (row.published_at as string | null) ?? null,
    contentHash: String(row.content_hash),
    vectorSyncStatus: row.vector_sync_status as VectorSyncStatus,
    vectorSyncError: (row.vector_sync_error as string | null) ?? null,
    vectorId: (row.vector_id as string | null) ?? null,
    firstSeenExecution: String(row.first_seen_execution),
    lastSeenExecution: String(row.last_seen_execution),
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
  };
}

function isRealDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** Checks the items and drops repeated detailUrls (the first occurrence keeps its place). */
function distinctItems(items: ItemInput[]): ItemInput[] {
  const problems: FieldProblem[] = [];
  if (!Array.isArray(items)) throw validationError([{ pointer: '/items', detail: 'items must be an array' }]);
  const seen = new Set<string>();
  const out: ItemInput[] = [];
  items.forEach((item, i) => {
    const at = `/items/${i}`;
    if (typeof item?.detailUrl !== 'string' || item.detailUrl.trim() === '') problems.push({ pointer: `${at}/detailUrl`, detail: 'detailUrl must be a non-empty string' });
    if (typeof item?.title !== 'string') problems.push({ pointer: `${at}/title`, detail: 'title must be a string' });
    if (typeof item?.contentHash !== 'string' || item.contentHash === '') problems.push({ pointer: `${at}/contentHash`, detail: 'contentHash must be a non-empty string' });
    const date = item?.publishedAt;
    if (date !== null && (typeof date !== 'string' || !isRealDate(date))) {
      problems.push({ pointer: `${at}/publishedAt`, detail: `publishedAt must be null or a date YYYY-MM-DD; got ${JSON.stringify(date) ?? String(date)}` });
    }
    if (problems.length || seen.has(item.detailUrl)) return;
    seen.add(item.detailUrl);
    out.push(item);
  });
  if (problems.length) throw validationError(problems);
  return out;
}

/**
 * The upsert, one statement. `target` yields one row only when the execution belongs to the job
 * and both to the tenant (so nothing is written for a wrong tenant). Every input row goes through
 * `insert ... on conflict (job_id, detail_url) do update`: the content columns change only when
 * `content_hash` differs, but `last_seen_execution` is always recorded, so every row comes back
 * from RETURNING with its id. `changed_execution` marks the execution that inserted or changed an
 * item, which makes the inserted/changed flags the same when a crashed execution is retried by
 * another worker. The vector sync status of a new or changed item is PENDING when the job syncs
 * to the knowledge base (else NOT_REQUESTED); an unchanged item waiting for a sync follows the
 * job's setting (NOT_REQUESTED <-> PENDING; INDEXED and FAILED stay). A changed item of a job
 * that does not sync loses its stale chunks. The execution's item list is replaced by this
 * call's list (a retry leaves exactly its own items).
 */
const UPSERT_SQL = `
with target as (
  select j.enable_rag_sync as rag
    from crawl.crawl_job j
    join crawl.crawl_execution e on e.job_id = j.id and e.tenant_id = j.tenant_id
   where j.tenant_id = ? and j.id = ?::uuid and e.id = ?::uuid
),
input as (
  select x.detail_url, x.title, x.published_at, x.content_hash, x.position
    from jsonb_to_recordset(?::jsonb) as x(detail_url text, title text, published_at date, content_hash text, position int)
),
previous as (
  select ci.detail_url, ci.title, ci.published_at::text as published_at, ci.content_hash
    from crawl.crawl_item ci join input i on i.detail_url = ci.detail_url
   where ci.tenant_id = ? and ci.job_id = ?::uuid
),
upserted as (
  insert into crawl.crawl_item as ci
         (id, tenant_id, job_id, detail_url, title, published_at, content_hash,
          first_seen_execution, last_seen_execution, changed_execution, vector_sync_status)
  select gen_random_uuid(), ?, ?::uuid, i.detail_url, i.title, i.published_at, i.content_hash, ?::uuid, ?::uuid, ?::uuid,
         case when t.rag then 'PENDING' else 'NOT_REQUESTED' end
    from input i cross join target t
  on conflict (job_id, detail_url) do update set
    last_seen_execution = excluded.last_seen_execution,
    title = case when ci.content_hash = excluded.content_hash then ci.title else excluded.title end,
    published_at = case when ci.content_hash = excluded.content_hash then ci.published_at else excluded.published_at end,
    changed_execution = case when ci.content_hash = excluded.content_hash then ci.changed_execution else excluded.changed_execution end,
    vector_sync_status = case
      when ci.content_hash <> excluded.content_hash then excluded.vector_sync_status
      when excluded.vector_sync_status = 'PENDING' and ci.vector_sync_status = 'NOT_REQUESTED' then 'PENDING'
      when excluded.vector_sync_status = 'NOT_REQUESTED' and ci.vector_sync_status = 'PENDING' then 'NOT_REQUESTED'
      else ci.vector_sync_status end,
    vector_sync_error = case when ci.content_hash = excluded.content_hash then ci.vector_sync_error end,
    vector_id = case when ci.content_hash = excluded.content_hash or excluded.vector_sync_status = 'PENDING' then ci.vector_id end,
    updated_at = case when ci.content_hash = excluded.content_hash then ci.updated_at else now() end,
    content_hash = excluded.content_hash
  where ci.tenant_id = excluded.tenant_id
  returning ${ITEM_COLUMNS}
),
dropped as (
  delete from crawl.execution_item ei
   where ei.tenant_id = ? and ei.execution_id = ?::uuid
     and not exists (select 1 from upserted u where u.id = ei.item_id)
),
listed as (
  insert into crawl.execution_item (tenant_id, execution_id, item_id, position)
  select ?, ?::uuid, u.id, i.position from upserted u join input i on i.detail_url = u.detail_url
  on conflict (execution_id, item_id) do update set position = excluded.position
),
stale as (
  delete from crawl.knowledge_chunk k
   using upserted u
   where k.tenant_id = ? and k.item_id = u.id
     and u.changed_execution = ?::uuid and u.first_seen_execution <> ?::uuid and u.vector_sync_status = 'NOT_REQUESTED'
)
select u.*, i.position, p.title as previous_title, p.published_at as previous_published_at, p.content_hash as previous_hash
  from upserted u join input i on i.detail_url = u.detail_url left join previous p on p.detail_url = u.detail_url
 order by i.position`;

/** Storage of crawled items: deduplicated per job by detailUrl, listed per execution. */
export function createItemStore(orm: MikroORM) {
  const em = () => orm.em.fork();

  async function executionExists(tenantId: string, jobId: string, executionId: string): Promise<boolean> {
    if (!isUuid(jobId) || !isUuid(executionId)) return false;
    const rows = await em().execute<Row[]>('select 1 from crawl.crawl_execution where tenant_id = ? and id = ? and job_id = ?', [tenantId, executionId, jobId]);
    return rows.length > 0;
  }

  return {
    /**
     * Records the items an execution collected: new detailUrls are inserted, known ones updated
     * when their contentHash differs, and the execution's list becomes exactly these items in this
     * order (repeated detailUrls count once, at their first place). Idempotent per execution: a
     * retried execution (same or fewer/more items) never duplicates an item or a list entry, and
     * reports as inserted/changed what the crashed attempt inserted/changed. Call it once per
     * execution with everything collected. Throws NOT_FOUND when the job or the execution is not
     * the tenant's (nothing is written then).
     */
    async upsertItems(tenantId: string, jobId: string, executionId: string, items: ItemInput[]): Promise<UpsertResult> {
      if (!isUuid(jobId) || !isUuid(executionId)) throw new SvcError('NOT_FOUND', `Crawl execution ${executionId} of job ${jobId} not found`);
      const list = distinctItems(items);
      const payload = JSON.stringify(
        list.map((item, position) => ({
          detail_url: item.detailUrl,
          title: item.title,
          published_at: item.publishedAt,
          content_hash: item.contentHash,
          position,
        })),
      );
      const rows = await em().execute<Row[]>(UPSERT_SQL, [
        tenantId, jobId, executionId,
        payload,
        tenantId, jobId,
        tenantId, jobId, executionId, executionId, executionId,
        tenantId, executionId,
        tenantId, executionId,
        tenantId, executionId, executionId,
      ]);
      if (rows.length < list.length || list.length === 0) {
        // Nothing matched `target` (the statement wrote nothing), or a row was refused.
        if (!(await executionExists(tenantId, jobId, executionId))) throw new SvcError('NOT_FOUND', `Crawl execution ${executionId} of job ${jobId} not found`);
        if (rows.length < list.length) throw new Error(`upsertItems stored ${rows.length} of ${list.length} items of execution ${executionId}`);
      }
      const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, rows: [] };
      for (const row of rows) {
        const inserted = String(row.first_seen_execution) === executionId;
        const changed = String(row.changed_execution) === executionId;
        if (inserted) result.inserted++;
        else if (changed) result.updated++;
        else result.unchanged++;
        const rowChanged = row.previous_hash != null && row.previous_hash !== row.content_hash;
        const previous = rowChanged ? { title: String(row.previous_title), publishedAt: (row.previous_published_at as string | null) ?? null } : null;
        result.rows.push({ ...toItem(row), position: Number(row.position), inserted, changed, previous });
      }
      return result;
    },

    /** The items an execution collected, in page order (empty for another tenant's execution). */
    async itemsOfExecution(tenantId: string, executionId: string): Promise<ExecutionItem[]> {
      if (!isUuid(executionId)) return [];
      const rows = await em().execute<Row[]>(
        `select ${ITEM_COLUMNS}, ei.position, ei.change, ei.diff
           from crawl.execution_item ei
           join crawl.crawl_item ci on ci.id = ei.item_id and ci.tenant_id = ei.tenant_id
          where ei.tenant_id = ? and ei.execution_id = ?
          order by ei.position`,
        [tenantId, executionId],
      );
      return rows.map((row) => ({
        ...toItem(row),
        position: Number(row.position),
        change: (row.change as ItemChange | null) ?? null,
        diff: row.diff ? json<ItemDiff>(row.diff) : null,
      }));
    },

    /** One item of the tenant, or undefined. */
    /** The tenant's items among `itemIds`, by id, in one query. */
    async itemsByIds(tenantId: string, itemIds: readonly string[]): Promise<Map<string, StoredItem>> {
      const ids = itemIds.filter(isUuid);
      if (!ids.length) return new Map();
      const rows = await em().execute<Row[]>(`select ${ITEM_COLUMNS} from crawl.crawl_item ci where ci.tenant_id = ? and ci.id = any(?::uuid[])`, [tenantId, `{${ids.join(',')}}`]);
      return new Map(rows.map((r) => [String(r.id), toItem(r)]));
    },

    async item(tenantId: string, itemId: string): Promise<StoredItem | undefined> {
      if (!isUuid(itemId)) return undefined;
      const rows = await em().execute<Row[]>(`select ${ITEM_COLUMNS} from crawl.crawl_item ci where ci.tenant_id = ? and ci.id = ?`, [tenantId, itemId]);
      return rows[0] ? toItem(rows[0]) : undefined;
    },

    /**
     * Records the outcome of an item's vector sync. `vectorId` is set when given (null clears it)
     * and kept otherwise; `error` is stored for FAILED (a generic text when missing) and cleared
     * for every other status. Throws NOT_FOUND when the item is not the tenant's.
     */
    async setVectorStatus(
      tenantId: string,
      itemId: string,
      status: VectorSyncStatus,
      options: { vectorId?: string | null; error?: string } = {},
    ): Promise<StoredItem> {
      if (!(VECTOR_SYNC_STATUSES as readonly string[]).includes(status)) {
        throw validationError([{ pointer: '/status', detail: `status must be one of ${VECTOR_SYNC_STATUSES.join(', ')}; got ${JSON.stringify(status)}` }]);
      }
      if (!isUuid(itemId)) throw new SvcError('NOT_FOUND', `Crawl item ${itemId} not found`);
      const setVectorId = options.vectorId !== undefined;
      const error = status === 'FAILED' || status === 'BLOCKED' ? (options.error || `vector sync ${status.toLowerCase()}`).slice(0, MAX_ERROR_CHARS) : null;
      const rows = await em().execute<Row[]>(
        `update crawl.crawl_item ci
            set vector_sync_status = ?, vector_sync_error = ?,
                vector_id = case when ? then ?::text else ci.vector_id end,
                updated_at = now()
          where ci.tenant_id = ? and ci.id = ?
          returning ${ITEM_COLUMNS}`,
        [status, error, setVectorId, options.vectorId ?? null, tenantId, itemId],
      );
      if (!rows[0]) throw new SvcError('NOT_FOUND', `Crawl item ${itemId} not found`);
      return toItem(rows[0]);
    },
  };
}

export type ItemStore = ReturnType<typeof createItemStore>;
