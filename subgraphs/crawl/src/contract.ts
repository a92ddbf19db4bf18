/**
 * The crawling service's REST contract: the zod schema of a crawl job request. The service
 * validates with it first (crawl-job-input.ts: member types are 400s, the rules here 422s) and
 * the REST bridge's OpenAPI document is generated from it, so the document cannot drift from the
 * rules. What JSON Schema cannot state is checked after it and described here: the cron
 * expression must parse, `runAt` must be in the future, selectors must be valid CSS with an
 * optional final `::text` or `::attr(name)`, the URL must be absolute http(s) without credentials,
 * chunkOverlap must be below chunkSize, the gateway must serve the embedding model, and each
 * volatile selector must be valid CSS without a suffix.
 */
import { z } from 'zod';

/** Chunk sizes in o200k_base tokens. */
export const CHUNK_LIMITS = { minSize: 32, maxSize: 8192 } as const;
export const VECTOR_DBS = ['pgvector'] as const;
export const ROBOTS_TXT_POLICIES = ['respect', 'ignore'] as const;
/** Printable text: no C0 or C1 control characters. */
const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/u;
/** Longest selector spec, in characters. */
export const MAX_SELECTOR = 1000;
/** Most volatile selectors a job may declare. */
export const MAX_VOLATILE_SELECTORS = 50;

const selector = (description: string) => z.string().max(MAX_SELECTOR, `must be at most ${MAX_SELECTOR} characters`).meta({ description });

export const crawlSelectorsSchema = z
  .object({
    listRow: selector('CSS selector of the repeated row elements (no ::text or ::attr suffix)'),
    title: selector('Relative to the row: CSS, optionally ending in ::text (default) or ::attr(name); empty or :scope means the row').nullish(),
    publishedAt: selector('As title; parsed as a date (dayFirst decides 01/02 order)').nullish(),
    link: selector('As title, usually a::attr(href); resolved against the page URL').nullish(),
  })
  .strict();

export const ragConfigSchema = z
  .object({
    targetVectorDb: z.enum(VECTOR_DBS).nullish().meta({ default: 'pgvector' }),
    embeddingModel: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').regex(NO_CONTROL, 'must not contain control characters').nullish().meta({ default: 'svc-local-embedding', description: 'An embedding model the gateway serves (GET /v1/models)' }),
    chunkSize: z.number().int().min(CHUNK_LIMITS.minSize).max(CHUNK_LIMITS.maxSize).nullish().meta({ default: 512, description: 'o200k_base tokens per chunk' }),
    chunkOverlap: z.number().int().min(0).nullish().meta({ default: 64, description: 'Tokens shared by consecutive chunks; below chunkSize; default 64 or an eighth of chunkSize' }),
  })
  .strict();

/** What a crawl job's webhook may be told, once per execution. */
export const WEBHOOK_EVENTS = ['completed', 'failed', 'blocked', 'changed'] as const;

export const crawlWebhookSchema = z
  .object({
    url: z.string().trim().min(1, 'is required').max(2048, 'must be at most 2048 characters').meta({ format: 'uri', description: 'http(s) URL the events are posted to; its address must be public (SSRF guard; SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS opens others)' }),
    events: z.array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` })).min(1, 'must name at least one event').nullish().meta({ default: [...WEBHOOK_EVENTS], description: 'completed (a run completed), failed (a run failed), blocked (a run was blocked or found blocked pages), changed (a run found items changed or gone, or new ones after the first run)' }),
    secret: z.string().min(16, 'must be at least 16 characters').max(256, 'must be at most 256 characters').meta({ description: 'HMAC-SHA256 key of X-Svc-Signature (sha256=<hex of "<timestamp>.<body>">, timestamp in X-Svc-Timestamp); never returned' }),
  })
  .strict();

/** POST /api/v1/crawl/jobs. `null` counts as absent for optional members. */
export const crawlJobRequestSchema = z
  .object({
    jobName: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters').regex(NO_CONTROL, 'must not contain control characters'),
    targetUrl: z.string().trim().min(1, 'is required').max(2048, 'must be at most 2048 characters').meta({ format: 'uri', description: 'Absolute http(s) URL without credentials; its address must be public (SSRF guard)' }),
    cronExpression: z.string().nullish().meta({ description: 'Six fields, seconds first (`?` allowed), in UTC; absent means a one-time job' }),
    runAt: z.string().nullish().meta({ format: 'date-time', description: 'One-time jobs only: ISO 8601 with a time zone, in the future; absent means at once' }),
    selectors: crawlSelectorsSchema,
    enableRagSync: z.boolean().nullish().meta({ default: false }),
    ragConfig: ragConfigSchema.nullish(),
    robotsTxt: z.enum(ROBOTS_TXT_POLICIES, { error: `must be one of ${ROBOTS_TXT_POLICIES.join(', ')}` }).nullish().meta({ default: 'respect' }),
    dayFirst: z.boolean().nullish().meta({ default: true }),
    webhook: crawlWebhookSchema.nullish().meta({ description: 'Per-execution events posted to a URL of yours, signed, retried, dead-lettered' }),
    volatileSelectors: z
      .array(z.string().max(MAX_SELECTOR, `must be at most ${MAX_SELECTOR} characters`))
      .max(MAX_VOLATILE_SELECTORS, `must list at most ${MAX_VOLATILE_SELECTORS} selectors`)
      .nullish()
      .meta({ default: [], description: 'CSS selectors (no ::text or ::attr suffix) of detail-page elements whose text change tracking ignores, such as a "most read" box or a live ticker; they are left out of the main text, so not indexed either' }),
  })
  .strict()
  .meta({
    example: { jobName: 'competitor news', targetUrl: 'https://example.com/news', cronExpression: '0 0 */6 * * ?', selectors: { listRow: 'article.post', title: 'h2::text', publishedAt: 'time::attr(datetime)', link: 'a::attr(href)' }, enableRagSync: true },
  });

// Payloads (the `data` of the crawling envelope), for the OpenAPI document; the fuzz suite checks
// every success against them (every member present, of its type).
const time = z.string().meta({ format: 'date-time' });

export const crawlJobRecordSchema = z.object({ jobId: z.string(), jobName: z.string(), status: z.string(), nextRunAt: time.nullable(), createdAt: time }).loose();
export const crawlExecutionRecordSchema = z.object({ executionId: z.string(), jobId: z.string(), status: z.string(), allocatedAgent: z.string().nullable(), startedAt: time.nullable() }).loose();
const itemDiffSchema = z.object({ added: z.array(z.string()), removed: z.array(z.string()), more: z.number().int(), rewritten: z.boolean() });
export const crawlResultSchema = z
  .object({
    executionId: z.string(), totalCount: z.number().int(), elapsedTimeMs: z.number().int(), selfHealingOccurred: z.boolean(),
    blockedCount: z.number().int(),
    blockedPages: z.array(z.object({ url: z.string(), status: z.number().int(), kind: z.string(), reason: z.string() }).loose()),
    changes: z.object({ new: z.number().int(), changed: z.number().int(), unchanged: z.number().int(), gone: z.number().int() }),
    goneItems: z.array(z.object({ itemId: z.string(), title: z.string(), detailUrl: z.string() })),
    items: z.array(z.object({ id: z.string(), title: z.string(), publishedAt: z.string().meta({ format: 'date' }).nullable(), detailUrl: z.string(), vectorSyncStatus: z.string(), vectorId: z.string().nullable(), vectorSyncError: z.string().nullable(), change: z.string().nullable(), diff: itemDiffSchema.nullable() }).loose()),
  })
  .loose();
export const crawlWebhookDeliverySchema = z.object({
  deliveryId: z.string(), executionId: z.string(), event: z.enum(WEBHOOK_EVENTS), status: z.enum(['PENDING', 'DELIVERED', 'FAILED']), attempts: z.number().int(),
  lastError: z.string().nullable(), nextAttemptAt: time.nullable(), deliveredAt: time.nullable(), createdAt: time,
}).loose();
