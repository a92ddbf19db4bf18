import { checkIdempotencyKey, checkWindow, isUuid, requirePrincipal, SvcError, validationError, type IdempotentCall, type Logger, type OutboundHttp, type SvcContext } from '@svc/kit';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery, type WebhookStore } from '../store/webhook-store.js';
import { firstRunAt, parseCrawlJobInput, parseCrawlSelectors } from '../domain/crawl-job-input.js';
import { nextRunAt } from '../domain/cron.js';
import type { ItemStore } from '../store/item-store.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import { checkEmbeddingModel } from './embedding-model-check.js';
import type { Embedder } from './gateway-embedder.js';
import type { ExecutionRow, ItemDay, JobRow, SelectorVersionRow } from '../domain/crawl-job.js';
import type { JobStore } from '../store/job-store.js';
import { tenantOf, writerTenant } from './tenancy.js';

/** Where the service puts crawl runs and schedules for the workers (worker/crawl-queue.ts). */
export interface CrawlQueue {
  /** A crawl job's own schedule: repeating for a cron expression, else one run at runAt (or at once). */
  schedule(tenantId: string, jobId: string, cronExpression: string | null, runAt: Date | null): Promise<void>;
  unschedule(tenantId: string, jobId: string): Promise<void>;
  /** Runs an execution as soon as a worker is free. */
  enqueueRun(tenantId: string, executionId: string): Promise<void>;
}

export interface CrawlServiceDeps {
  jobs: JobStore;
  items: ItemStore;
  knowledge: KnowledgeStore;
  embedder: Embedder;
  queue: CrawlQueue;
  /** Jobs' webhook deliveries (the outbox). */
  webhooks: WebhookStore;
  /** Judges a job's webhook URL before it is stored (SSRF guard). */
  outbound: Pick<OutboundHttp, 'refusal'>;
  /** How long a trigger waits for a worker to lock the run before answering 503. */
  triggerWaitMs: number;
  log: Logger;
}

const notFound = (what: string, id: string) => new SvcError('NOT_FOUND', `No ${what} ${JSON.stringify(id)}`, { slug: `${what.replace(/ /g, '-')}-not-found` });

/** Crawl keys belong to the tenant: another tenant's key is refused (409), never replayed. */
const keyedCall = (key: string | undefined, operation: string, tenantId: string, jobId: string): IdempotentCall | undefined =>
  key === undefined ? undefined : { key, operation, target: jobId, scope: tenantId };

export function createCrawlService(deps: CrawlServiceDeps) {
  const { jobs, items, queue, log } = deps;

  async function jobOf(ctx: SvcContext, jobId: string, write = false): Promise<{ tenantId: string; job: JobRow }> {
    const tenantId = write ? writerTenant(ctx) : tenantOf(ctx);
    const job = await jobs.job(tenantId, jobId);
    if (!job) throw notFound('crawl job', jobId);
    return { tenantId, job };
  }

  return {
    async create(ctx: SvcContext, body: unknown): Promise<JobRow> {
      const tenantId = writerTenant(ctx);
      const input = parseCrawlJobInput(body);
      const refused = input.webhook ? await deps.outbound.refusal(input.webhook.url) : undefined;
      if (refused) throw validationError([{ pointer: '/webhook/url', detail: `webhook.url is not allowed: ${refused}` }]);
      if (input.ragConfig) await checkEmbeddingModel(deps.embedder, input.ragConfig.embeddingModel);
      const job = await jobs.insertJob(tenantId, input, firstRunAt(input));
      await queue.schedule(tenantId, job.id, input.cronExpression ?? null, input.runAt ?? null);
      log.info({ tenantId, jobId: job.id, cron: input.cronExpression ?? null, runAt: input.runAt ?? null }, 'crawl job created');
      return job;
    },

    async get(ctx: SvcContext, jobId: string): Promise<JobRow> {
      return (await jobOf(ctx, jobId)).job;
    },

    async list(ctx: SvcContext, limit: number): Promise<JobRow[]> {
      return jobs.jobs(tenantOf(ctx), Math.min(Math.max(limit, 1), 500));
    },

    async pause(ctx: SvcContext, jobId: string): Promise<JobRow> {
      const { tenantId, job } = await jobOf(ctx, jobId, true);
      if (job.status === 'COMPLETED') throw new SvcError('CONFLICT', `Crawl job ${jobId} is a finished one-time job`);
      return (await jobs.setStatus(tenantId, jobId, 'PAUSED', null))!;
    },

    async resume(ctx: SvcContext, jobId: string): Promise<JobRow> {
      const { tenantId, job } = await jobOf(ctx, jobId, true);
      if (job.status !== 'PAUSED') throw new SvcError('CONFLICT', `Crawl job ${jobId} is ${job.status}, not PAUSED`);
      // A one-time job keeps its runAt while that is still ahead; otherwise it runs now.
      const runAt = job.runAt && job.runAt.getTime() > Date.now() ? job.runAt : null;
      const next = job.cronExpression ? nextRunAt(job.cronExpression) : (runAt ?? new Date());
      const resumed = (await jobs.setStatus(tenantId, jobId, 'SCHEDULED', next))!;
      if (!job.cronExpression) await queue.schedule(tenantId, jobId, null, runAt);
      return resumed;
    },

    async remove(ctx: SvcContext, jobId: string): Promise<JobRow> {
      const { tenantId } = await jobOf(ctx, jobId, true);
      const deleted = (await jobs.setStatus(tenantId, jobId, 'DELETED', null))!;
      await queue.unschedule(tenantId, jobId);
      return deleted;
    },

    /**
     * Runs a job now on a worker: answers once a worker has locked the run (status RUNNING,
     * with its name); when none does within triggerWaitMs, 503 and the run stays queued. With
     * an idempotency key, a repeated call answers the execution the first call created, as it
     * is now, and starts no run.
     */
    async trigger(ctx: SvcContext, jobId: string, idempotencyKey?: string | null): Promise<ExecutionRow> {
      const { tenantId } = await jobOf(ctx, jobId, true);
      const key = checkIdempotencyKey(idempotencyKey);
      const call = keyedCall(key, 'triggerCrawlJob', tenantId, jobId);
      let execution: ExecutionRow;
      if (call) {
        const once = await jobs.insertExecutionOnce(tenantId, jobId, call);
        if (once.replayed) return once.execution;
        execution = once.execution;
      } else {
        execution = await jobs.insertExecution(tenantId, jobId);
      }
      await queue.enqueueRun(tenantId, execution.id);
      const deadline = Date.now() + deps.triggerWaitMs;
      for (;;) {
        const current = await jobs.execution(tenantId, execution.id);
        if (current && current.status !== 'QUEUED') return current;
        if (Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new SvcError('UNAVAILABLE', `No crawl worker took execution ${execution.id} within ${deps.triggerWaitMs / 1000} s; it stays queued and runs when a worker is free`, {
        retryAfter: 10,
        details: { executionId: execution.id },
      });
    },

    /**
     * Replaces a job's selectors (validated as createCrawlJob's) as its next selector version;
     * the stored fingerprints are dropped, since they describe what the old selectors matched.
     * With an idempotency key, a repeated call answers the job as it is now.
     */
    async changeSelectors(ctx: SvcContext, jobId: string, selectors: unknown, idempotencyKey?: string | null): Promise<JobRow> {
      const { tenantId } = await jobOf(ctx, jobId, true);
      const key = checkIdempotencyKey(idempotencyKey);
      const parsed = parseCrawlSelectors(selectors);
      const changed = await jobs.changeSelectors(tenantId, jobId, parsed, keyedCall(key, 'changeCrawlSelectors', tenantId, jobId));
      if (!changed) throw notFound('crawl job', jobId);
      log.info({ tenantId, jobId, selectorVersion: changed.selectorVersion, idempotencyKey: key }, 'crawl selectors changed');
      return changed;
    },

    /**
     * A job's webhook deliveries, newest first (status FAILED: its dead letters, which were
     * attempted SVC_CRAWL_WEBHOOK_ATTEMPTS times). limit 1-500, default 50.
     */
    async webhookDeliveries(ctx: SvcContext, jobId: string, status: string | null, limit: number): Promise<WebhookDelivery[]> {
      const { tenantId } = await jobOf(ctx, jobId);
      if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
        throw new SvcError('BAD_USER_INPUT', `status must be one of ${DELIVERY_STATUSES.join(', ')}; got ${JSON.stringify(status)}`);
      }
      return deps.webhooks.ofJob(tenantId, jobId, status as DeliveryStatus | null, Math.min(Math.max(limit, 1), 500));
    },

    async execution(ctx: SvcContext, executionId: string): Promise<ExecutionRow> {
      const execution = await jobs.execution(tenantOf(ctx), executionId);
      if (!execution) throw notFound('crawl execution', executionId);
      return execution;
    },

    async executions(ctx: SvcContext, jobId: string, limit: number): Promise<ExecutionRow[]> {
      const { tenantId } = await jobOf(ctx, jobId);
      return jobs.executionsOfJob(tenantId, jobId, Math.min(Math.max(limit, 1), 500));
    },

    /** The selector sets the job has used, newest first (what a healing replaced stays readable). */
    async selectorVersions(ctx: SvcContext, jobId: string, limit: number): Promise<SelectorVersionRow[]> {
      const { tenantId } = await jobOf(ctx, jobId);
      return jobs.selectorVersions(tenantId, jobId, Math.min(Math.max(limit, 1), 100));
    },

    /**
     * Semantic search in the tenant's knowledge base: the query is embedded through the gateway
     * with `model` (default the built-in svc-local-embedding) and compared with chunks embedded
     * by the same model. topK 1-50, default 5.
     */
    /**
     * Items per job and UTC day in [from, to) (at most 1,100 days): of the tenant the call names,
     * or of every tenant the token grants when it names none.
     */
    async dailyItems(ctx: SvcContext, window: { from: Date; to: Date; jobId?: string | undefined }): Promise<ItemDay[]> {
      const principal = requirePrincipal(ctx.principal);
      const { from, to } = checkWindow(window.from, window.to, 1_100);
      if (window.jobId !== undefined && !isUuid(window.jobId)) throw notFound('crawl job', window.jobId);
      return jobs.dailyItems(ctx.tenantId ? [tenantOf(ctx)] : principal.tenants, { from, to, jobId: window.jobId });
    },

    async searchKnowledge(ctx: SvcContext, query: string, options: { category?: string | null; topK?: number | null; model?: string | null }) {
      const tenantId = tenantOf(ctx);
      if (!query.trim()) throw new SvcError('BAD_USER_INPUT', 'query must not be empty');
      const topK = options.topK ?? 5;
      if (!Number.isInteger(topK) || topK < 1 || topK > 50) throw new SvcError('BAD_USER_INPUT', `topK must be an integer from 1 to 50; got ${topK}`);
      const model = options.model ?? 'svc-local-embedding';
      const [embedding] = await deps.embedder.embed(model, [query]);
      return deps.knowledge.search(tenantId, { embedding: embedding!, model, topK, category: options.category ?? null });
    },

    /** The result of a completed execution; 409 with its status while it is not. */
    async result(ctx: SvcContext, executionId: string) {
      const tenantId = tenantOf(ctx);
      const execution = await jobs.execution(tenantId, executionId);
      if (!execution) throw notFound('crawl execution', executionId);
      if (execution.status !== 'COMPLETED') {
        throw new SvcError('CONFLICT', `Crawl execution ${executionId} is ${execution.status}${execution.error ? `: ${execution.error}` : ''}; results exist once it is COMPLETED`, {
          slug: 'execution-not-completed',
          details: { status: execution.status, ...(execution.blockedCount ? { blockedPages: execution.blockedPages } : {}) },
        });
      }
      const collected = await items.itemsOfExecution(tenantId, executionId);
      return { execution, items: collected };
    },
  };
}

export type CrawlService = ReturnType<typeof createCrawlService>;
