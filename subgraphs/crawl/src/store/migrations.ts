import { Migration } from '@mikro-orm/migrations';
import { idempotentChangeMigration } from '@svc/kit';

/**
 * Embedding sizes that get their own HNSW index on `crawl.knowledge_chunk`: the built-in local
 * embedding (384) and the common hosted model sizes. `knowledge_chunk.embedding` has no fixed
 * dimension (one table holds every model's vectors, `dims` says which); each size has a partial
 * expression index over `embedding::vector(n)` limited to `dims = n`, pgvector's documented way to
 * index several dimensions in one column. HNSW indexes `vector` up to 2000 dimensions, so 3072
 * (e.g. text-embedding-3-large) is indexed as `halfvec(3072)` (HNSW takes halfvec up to 4000);
 * its ranking uses half precision, scores are still computed on the stored full-precision vector.
 * Other sizes (1 to 16000) are stored and searched exactly, without an index.
 */
export const INDEXED_DIMENSIONS = [384, 768, 1024, 1536, 3072] as const;

/** The largest dimension HNSW indexes for `vector`; above it the index casts to `halfvec`. */
export const HNSW_VECTOR_MAX_DIMENSIONS = 2000;

/** The vector type an indexed dimension is cast to, in its index and in queries. */
export function indexVectorType(dims: number): 'vector' | 'halfvec' {
  return dims > HNSW_VECTOR_MAX_DIMENSIONS ? 'halfvec' : 'vector';
}

/** Name of the HNSW index of one dimension (for EXPLAIN checks and operations). */
export function hnswIndexName(dims: number): string {
  return `knowledge_chunk_embedding_${dims}_hnsw`;
}

const hnswIndexes = INDEXED_DIMENSIONS.map((dims) => {
  const type = indexVectorType(dims);
  return `create index ${hnswIndexName(dims)} on crawl.knowledge_chunk
  using hnsw ((embedding::${type}(${dims})) ${type}_cosine_ops) where dims = ${dims};`;
}).join('\n');

/**
 * Every row is tenant-owned: each table has `tenant_id`, and references between tables go
 * through `(tenant_id, id)` so that a row can never point at another tenant's row.
 */
class Crawl extends Migration {
  override up(): void {
    this.addSql(`
create extension if not exists vector;

create table crawl.crawl_job (
  id uuid primary key,
  tenant_id text not null,
  job_name text not null,
  target_url text not null,
  cron_expression text,
  run_at timestamptz,
  selectors jsonb not null,
  selector_version int not null default 1 check (selector_version >= 1),
  fingerprints jsonb,
  enable_rag_sync boolean not null default false,
  rag_config jsonb,
  robots_txt text not null default 'respect' check (robots_txt in ('respect', 'ignore')),
  day_first boolean not null default true,
  status text not null default 'SCHEDULED' check (status in ('SCHEDULED', 'PAUSED', 'DELETED', 'COMPLETED')),
  next_run_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, id)
);
create index crawl_job_tenant_created on crawl.crawl_job (tenant_id, created_at);

-- Selectors a job has used; a healed selector set is adopted as the next version.
create table crawl.selector_version (
  tenant_id text not null,
  job_id uuid not null,
  version int not null check (version >= 1),
  selectors jsonb not null,
  reason text not null,
  created_at timestamptz not null default now(),
  primary key (job_id, version),
  foreign key (tenant_id, job_id) references crawl.crawl_job (tenant_id, id) on delete cascade
);

create table crawl.crawl_execution (
  id uuid primary key,
  tenant_id text not null,
  job_id uuid not null,
  status text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED')),
  allocated_agent text,
  queued_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  elapsed_ms int check (elapsed_ms >= 0),
  total_count int not null default 0 check (total_count >= 0),
  self_healing_occurred boolean not null default false,
  error text,
  unique (tenant_id, id),
  foreign key (tenant_id, job_id) references crawl.crawl_job (tenant_id, id) on delete cascade
);
create index crawl_execution_tenant_job_queued on crawl.crawl_execution (tenant_id, job_id, queued_at desc);

-- One row per (job, detailUrl): a re-run updates changed items and adds new ones.
-- changed_execution: the execution that inserted the item or last changed its content, so a
-- retried execution reports the same inserted/updated items as its crashed first attempt.
create table crawl.crawl_item (
  id uuid primary key,
  tenant_id text not null,
  job_id uuid not null,
  detail_url text not null,
  title text not null,
  published_at date,
  content_hash text not null,
  first_seen_execution uuid not null,
  last_seen_execution uuid not null,
  changed_execution uuid not null,
  vector_sync_status text not null default 'NOT_REQUESTED'
    check (vector_sync_status in ('NOT_REQUESTED', 'PENDING', 'INDEXED', 'FAILED')),
  vector_sync_error text,
  vector_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (job_id, detail_url),
  unique (tenant_id, id),
  foreign key (tenant_id, job_id) references crawl.crawl_job (tenant_id, id) on delete cascade
);

-- The items one execution collected, in page order.
create table crawl.execution_item (
  tenant_id text not null,
  execution_id uuid not null,
  item_id uuid not null,
  position int not null check (position >= 0),
  primary key (execution_id, item_id),
  foreign key (tenant_id, execution_id) references crawl.crawl_execution (tenant_id, id) on delete cascade,
  foreign key (tenant_id, item_id) references crawl.crawl_item (tenant_id, id) on delete cascade
);
create index execution_item_item on crawl.execution_item (item_id);

-- Chunks of items with their embeddings. embedding has no fixed dimension (models differ);
-- dims records it and the check keeps the two in step.
create table crawl.knowledge_chunk (
  id uuid primary key,
  tenant_id text not null,
  job_id uuid not null,
  item_id uuid not null,
  chunk_index int not null check (chunk_index >= 0),
  category text,
  title text not null,
  source_url text not null,
  content text not null,
  token_count int not null check (token_count >= 0),
  embedding_model text not null,
  dims int not null check (dims between 1 and 16000),
  embedding vector not null check (vector_dims(embedding) = dims),
  created_at timestamptz not null default now(),
  unique (item_id, chunk_index),
  foreign key (tenant_id, item_id) references crawl.crawl_item (tenant_id, id) on delete cascade
);
create index knowledge_chunk_tenant_category on crawl.knowledge_chunk (tenant_id, category);
create index knowledge_chunk_item on crawl.knowledge_chunk (item_id);
${hnswIndexes}
`);
  }
}

/** Block pages (fetch/block-page.ts): a run whose list page was one is BLOCKED, an item whose detail page was one is BLOCKED, and each execution keeps its blocked pages. */
class BlockedPages extends Migration {
  override up(): void {
    this.addSql(`
alter table crawl.crawl_execution drop constraint crawl_execution_status_check;
alter table crawl.crawl_execution add constraint crawl_execution_status_check check (status in ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'BLOCKED'));
alter table crawl.crawl_execution
  add column blocked_count int not null default 0 check (blocked_count >= 0),
  add column blocked jsonb not null default '[]'::jsonb;
alter table crawl.crawl_item drop constraint crawl_item_vector_sync_status_check;
alter table crawl.crawl_item add constraint crawl_item_vector_sync_status_check
  check (vector_sync_status in ('NOT_REQUESTED', 'PENDING', 'INDEXED', 'FAILED', 'BLOCKED'));
`);
  }
}

/**
 * Change tracking (extract/content-change.ts): an item keeps the fingerprint and text of its
 * detail page's main content, and the execution that last changed it with the diff; each
 * execution keeps what it found new, changed, unchanged and gone.
 */
class ContentChanges extends Migration {
  override up(): void {
    this.addSql(`
alter table crawl.crawl_item
  add column content_fingerprint text,
  add column content_text text,
  add column content_changed_execution uuid,
  add column content_diff jsonb;
alter table crawl.execution_item
  add column change text check (change in ('new', 'changed', 'unchanged')),
  add column diff jsonb;
alter table crawl.crawl_execution
  add column new_count int not null default 0 check (new_count >= 0),
  add column changed_count int not null default 0 check (changed_count >= 0),
  add column unchanged_count int not null default 0 check (unchanged_count >= 0),
  add column gone_count int not null default 0 check (gone_count >= 0),
  add column changed_sample jsonb not null default '[]'::jsonb,
  add column gone jsonb not null default '[]'::jsonb;
`);
  }
}

/**
 * Per-execution webhooks: a job's webhook (URL and events; its signing secret apart, never
 * returned) and the outbox of deliveries, written in the statement that ends the execution, so
 * a worker killed right after cannot lose one; (execution, event) is unique, so none is queued twice.
 */
class ExecutionWebhooks extends Migration {
  override up(): void {
    this.addSql(`
alter table crawl.crawl_job add column webhook jsonb, add column webhook_secret text;
create table crawl.webhook_delivery (
  id uuid primary key,
  tenant_id text not null,
  job_id uuid not null,
  execution_id uuid not null,
  event text not null check (event in ('completed', 'failed', 'blocked', 'changed')),
  url text not null,
  payload jsonb not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts int not null default 0 check (attempts >= 0),
  last_error text,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (execution_id, event),
  foreign key (tenant_id, execution_id) references crawl.crawl_execution (tenant_id, id) on delete cascade
);
create index webhook_delivery_due on crawl.webhook_delivery (next_attempt_at) where status = 'PENDING';
create index webhook_delivery_job on crawl.webhook_delivery (tenant_id, job_id, created_at desc);
`);
  }
}

/** Elements a job's change tracking ignores (crawl-job-input.ts, extract/main-text.ts). */
class VolatileSelectors extends Migration {
  override up(): void {
    this.addSql(`alter table crawl.crawl_job add column volatile_selectors jsonb not null default '[]'::jsonb;`);
  }
}

export const CRAWL_MIGRATIONS = [
  { name: '0001_crawl', class: Crawl },
  idempotentChangeMigration('0002_idempotent_change', 'crawl'),
  { name: '0003_blocked_pages', class: BlockedPages },
  { name: '0004_content_changes', class: ContentChanges },
  { name: '0005_execution_webhooks', class: ExecutionWebhooks },
  { name: '0006_volatile_selectors', class: VolatileSelectors },
];
