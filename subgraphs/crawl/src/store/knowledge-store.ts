import { randomUUID } from 'node:crypto';
import { isUuid, SvcError, validationError, type FieldProblem, type MikroORM } from '@svc/kit';
import { INDEXED_DIMENSIONS, indexVectorType } from './migrations.js';

/** pgvector's limit for the `vector` type. */
export const MAX_DIMENSIONS = 16000;
export const MAX_TOP_K = 50;
/** HNSW candidate list size for searches (pgvector's default is 40). */
export const SEARCH_EF = 200;
const MAX_MODEL_CHARS = 200;
const INSERT_BATCH = 100;

export interface ChunkOwner {
  /** The crawl item the chunks belong to. */
  id: string;
  jobId: string;
  title: string;
  sourceUrl: string;
  category: string | null;
}

export interface ChunkInput {
  index: number;
  content: string;
  tokenCount: number;
  embedding: number[];
}

export interface KnowledgeQuery {
  embedding: number[];
  /** Only chunks embedded with this model are compared (vectors of different models are unrelated). */
  model: string;
  /** 1 to 50. */
  topK: number;
  category?: string | null;
}

export interface KnowledgeHit {
  chunkId: string;
  itemId: string;
  jobId: string;
  chunkIndex: number;
  title: string;
  url: string;
  category: string | null;
  content: string;
  /** Cosine similarity, 1 - cosine distance: 1 for the same direction, down to -1. */
  score: number;
}

export interface StoredChunk {
  id: string;
  chunkIndex: number;
  content: string;
  tokenCount: number;
  embeddingModel: string;
  dims: number;
  category: string | null;
}

type Row = Record<string, unknown>;

const show = (value: unknown) => JSON.stringify(value) ?? String(value);

/** pgvector's text form, `[0.1,0.2,...]`; passed as a quoted parameter and cast in SQL. */
export function vectorLiteral(values: readonly number[]): string {
  return `[${values.join(',')}]`;
}

/** Problems of one embedding; `expected` is the length every embedding of the call must have. */
function embeddingProblems(pointer: string, embedding: unknown, expected?: { dims: number; from: string }): FieldProblem[] {
  if (!Array.isArray(embedding) || embedding.length === 0) return [{ pointer, detail: 'embedding must be a non-empty array of numbers' }];
  if (expected && embedding.length !== expected.dims) {
    return [{ pointer, detail: `embedding has ${embedding.length} dimensions; expected ${expected.dims} (${expected.from})` }];
  }
  if (embedding.length > MAX_DIMENSIONS) return [{ pointer, detail: `embedding has ${embedding.length} dimensions; at most ${MAX_DIMENSIONS} are supported` }];
  const bad = embedding.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v));
  if (bad >= 0) return [{ pointer: `${pointer}/${bad}`, detail: `embedding values must be finite numbers; got ${show(embedding[bad])}` }];
  if (embedding.every((v) => v === 0)) return [{ pointer, detail: 'embedding is all zeros; cosine distance is undefined for it' }];
  return [];
}

function modelProblems(pointer: string, model: unknown): FieldProblem[] {
  if (typeof model !== 'string' || model.trim() === '' || model.length > MAX_MODEL_CHARS) {
    return [{ pointer, detail: `model must be a non-empty string of at most ${MAX_MODEL_CHARS} characters; got ${show(model)}` }];
  }
  return [];
}

/**
 * The distance expression a search orders by: the same expression as the dimension's partial
 * HNSW index (so the planner can use it), or a plain exact cast for sizes without an index.
 * `dims` is a validated integer (never caller text) before it reaches SQL.
 */
function orderExpression(dims: number): string {
  if (!Number.isInteger(dims) || dims < 1 || dims > MAX_DIMENSIONS) throw new Error(`invalid vector dimension ${dims}`);
  const type = (INDEXED_DIMENSIONS as readonly number[]).includes(dims) ? indexVectorType(dims) : 'vector';
  return `(embedding::${type}(${dims}) <=> ?::${type}(${dims}))`;
}

/**
 * The knowledge base: item chunks with their embeddings (pgvector, cosine distance), searched per
 * tenant and embedding model.
 */
export function createKnowledgeStore(orm: MikroORM) {
  /**
   * The search statement and its parameters. Nearest-first by the index expression inside a
   * materialized CTE (pgvector's advice for iterative scans in relaxed order, which may return
   * neighbours slightly out of order), then sorted again by the exact full-precision distance.
   */
  function searchStatement(tenantId: string, query: KnowledgeQuery): { sql: string; params: unknown[] } {
    const problems = [
      ...embeddingProblems('/embedding', query?.embedding),
      ...modelProblems('/model', query?.model),
    ];
    const topK = query?.topK;
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
      problems.push({ pointer: '/topK', detail: `topK must be an integer from 1 to ${MAX_TOP_K}; got ${show(topK)}` });
    }
    const category = query?.category ?? null;
    if (category !== null && typeof category !== 'string') problems.push({ pointer: '/category', detail: `category must be a string; got ${show(category)}` });
    if (problems.length) throw validationError(problems);
    const dims = query.embedding.length;
    const literal = vectorLiteral(query.embedding);
    const sql = `with nearest as materialized (
  select id, item_id, job_id, chunk_index, title, source_url, category, content,
         (embedding::vector(${dims}) <=> ?::vector(${dims})) as distance
    from crawl.knowledge_chunk
   where tenant_id = ? and dims = ${dims} and embedding_model = ?${category !== null ? ' and category = ?' : ''}
   order by ${orderExpression(dims)}
   limit ${topK}
)
select * from nearest order by distance, id`;
    const params: unknown[] = [literal, tenantId, query.model];
    if (category !== null) params.push(category);
    params.push(literal);
    return { sql, params };
  }

  /**
   * Runs `sql` in a transaction whose HNSW scans are iterative (pgvector 0.8
   * `hnsw.iterative_scan = relaxed_order`): with a tenant, model or category filter the index
   * scan keeps going until it has `topK` matching rows (or `hnsw.max_scan_tuples`, 20 000 by
   * default, were visited) instead of filtering one `ef_search`-sized candidate list.
   */
  async function inSearchTransaction<T>(run: (execute: (sql: string, params: unknown[]) => Promise<Row[]>) => Promise<T>): Promise<T> {
    return orm.em.fork().transactional(async (tx) => {
      await tx.execute(`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '${SEARCH_EF}', true)`);
      return run((sql, params) => tx.execute<Row[]>(sql, params));
    });
  }

  return {
    /**
     * Replaces an item's chunks (all of them, in one transaction; no chunks deletes them): "a
     * changed item replaces its old chunks". Every embedding must have the same length, which
     * becomes the chunks' `dims`. Concurrent replaces of one item are serialised by a lock on
     * the item row. Returns the id of the first chunk (lowest index), which the caller records
     * as the item's vectorId, or null when there are no chunks. NOT_FOUND when the item is not
     * the tenant's; 422 naming the field for bad input (nothing is written then).
     */
    async replaceItemChunks(tenantId: string, item: ChunkOwner, model: string, chunks: ChunkInput[]): Promise<string | null> {
      const problems: FieldProblem[] = [...modelProblems('/model', model)];
      if (!Array.isArray(chunks)) throw validationError([{ pointer: '/chunks', detail: 'chunks must be an array' }]);
      if (typeof item?.title !== 'string') problems.push({ pointer: '/item/title', detail: 'title must be a string' });
      if (typeof item?.sourceUrl !== 'string' || item.sourceUrl === '') problems.push({ pointer: '/item/sourceUrl', detail: 'sourceUrl must be a non-empty string' });
      if (item?.category != null && typeof item.category !== 'string') problems.push({ pointer: '/item/category', detail: `category must be a string or null; got ${show(item.category)}` });
      const dims = Array.isArray(chunks[0]?.embedding) ? chunks[0].embedding.length : 0;
      const indexes = new Set<number>();
      chunks.forEach((chunk, i) => {
        const at = `/chunks/${i}`;
        if (!Number.isInteger(chunk?.index) || chunk.index < 0) problems.push({ pointer: `${at}/index`, detail: `index must be a non-negative integer; got ${show(chunk?.index)}` });
        else if (indexes.has(chunk.index)) problems.push({ pointer: `${at}/index`, detail: `index ${chunk.index} appears more than once` });
        else indexes.add(chunk.index);
        if (typeof chunk?.content !== 'string') problems.push({ pointer: `${at}/content`, detail: 'content must be a string' });
        if (!Number.isInteger(chunk?.tokenCount) || chunk.tokenCount < 0) problems.push({ pointer: `${at}/tokenCount`, detail: `tokenCount must be a non-negative integer; got ${show(chunk?.tokenCount)}` });
        problems.push(...embeddingProblems(`${at}/embedding`, chunk?.embedding, i === 0 ? undefined : { dims, from: "the length of chunk 0's embedding" }));
      });
      if (problems.length) throw validationError(problems);
      if (!isUuid(String(item.id))) throw new SvcError('NOT_FOUND', `Crawl item ${item.id} not found`);

      const ordered = [...chunks].sort((a, b) => a.index - b.index);
      const ids = ordered.map(() => randomUUID());
      await orm.em.fork().transactional(async (tx) => {
        const owner = await tx.execute<Row[]>('select job_id from crawl.crawl_item where tenant_id = ? and id = ? for update', [tenantId, item.id]);
        if (!owner[0]) throw new SvcError('NOT_FOUND', `Crawl item ${item.id} not found`);
        if (String(owner[0].job_id) !== item.jobId) {
          throw validationError([{ pointer: '/item/jobId', detail: `item ${item.id} belongs to job ${String(owner[0].job_id)}, not ${show(item.jobId)}` }]);
        }
        await tx.execute('delete from crawl.knowledge_chunk where tenant_id = ? and item_id = ?', [tenantId, item.id]);
        for (let start = 0; start < ordered.length; start += INSERT_BATCH) {
          const batch = ordered.slice(start, start + INSERT_BATCH);
          const values = batch.map(() => `(?::uuid, ?, ?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?, ?, ${dims}, ?::vector(${dims}))`).join(',\n');
          const params = batch.flatMap((chunk, i) => [
            ids[start + i], tenantId, item.jobId, item.id, chunk.index, item.category ?? null, item.title, item.sourceUrl,
            chunk.content, chunk.tokenCount, model, vectorLiteral(chunk.embedding),
          ]);
          await tx.execute(
            `insert into crawl.knowledge_chunk
               (id, tenant_id, job_id, item_id, chunk_index, category, title, source_url, content, token_count, embedding_model, dims, embedding)
             values ${values}`,
            params,
          );
        }
      });
      return ids[0] ?? null;
    },

    /** An item's chunks in index order (without embeddings). */
    async chunksOfItem(tenantId: string, itemId: string): Promise<StoredChunk[]> {
      if (!isUuid(itemId)) return [];
      const rows = await orm.em.fork().execute<Row[]>(
        `select id, chunk_index, content, token_count, embedding_model, dims, category
           from crawl.knowledge_chunk where tenant_id = ? and item_id = ? order by chunk_index`,
        [tenantId, itemId],
      );
      return rows.map((r) => ({
        id: String(r.id),
        chunkIndex: Number(r.chunk_index),
        content: String(r.content),
        tokenCount: Number(r.token_count),
        embeddingModel: String(r.embedding_model),
        dims: Number(r.dims),
        category: (r.category as string | null) ?? null,
      }));
    },

    /**
     * The tenant's `topK` chunks nearest to `embedding` (cosine), among chunks embedded with
     * `model` at the embedding's dimension, optionally of one category; nearest first. Uses the
     * dimension's HNSW index (approximate, ef_search 100, iterative scan so filters still fill
     * topK); sizes without an index are searched exactly.
     */
    async search(tenantId: string, query: KnowledgeQuery): Promise<KnowledgeHit[]> {
      const { sql, params } = searchStatement(tenantId, query);
      const rows = await inSearchTransaction((execute) => execute(sql, params));
      return rows.map((r) => ({
        chunkId: String(r.id),
        itemId: String(r.item_id),
        jobId: String(r.job_id),
        chunkIndex: Number(r.chunk_index),
        title: String(r.title),
        url: String(r.source_url),
        category: (r.category as string | null) ?? null,
        content: String(r.content),
        score: 1 - Number(r.distance),
      }));
    },

    /** The plan of {@link search} for the same query and settings (EXPLAIN, no costs): for checks and operations. */
    async explainSearch(tenantId: string, query: KnowledgeQuery, options: { analyze?: boolean } = {}): Promise<string> {
      const { sql, params } = searchStatement(tenantId, query);
      const rows = await inSearchTransaction((execute) => execute(`explain (costs off${options.analyze ? ', analyze, timing off, summary off' : ''}) ${sql}`, params));
      return rows.map((r) => String(r['QUERY PLAN'])).join('\n');
    },
  };
}

export type KnowledgeStore = ReturnType<typeof createKnowledgeStore>;
