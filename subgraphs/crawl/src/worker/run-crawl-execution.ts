import { createHash } from 'node:crypto';
import { type Agenda, SvcError, type Logger } from '@svc/kit';
import type { CrawlSelectors } from '../domain/crawl-job-input.js';
import { normalizePublishedDate } from '../domain/published-date.js';
import { extractItems } from '../domain/extract-items.js';
import { fingerprintSelectors, withFillHistory } from '../domain/fingerprint.js';
import { healSelectors } from '../domain/heal.js';
import { parseHtml } from '../extract/parse-html.js';
import { blockedPageOf } from '../fetch/block-page.js';
import type { PageFetcher } from '../fetch/fetch-page.js';
import type { BlockedPage } from '../domain/crawl-job.js';
import type { ChangeStore, ItemChangeInput } from '../store/change-store.js';
import type { ItemStore, UpsertedItem } from '../store/item-store.js';
import type { ItemDiff } from '../domain/crawl-item.js';
import type { JobStore } from '../store/job-store.js';
import { syncItems, type RagSyncDeps } from '../service/rag-sync.js';
import { RUN_CRAWL_EXECUTION, type WorkerSettings } from './crawl-queue.js';
import type { ExecutionWebhooks } from './execution-webhooks.js';
import { type AgendaJob, withHeartbeat } from './heartbeat.js';

export interface RunnerDeps {
  jobs: JobStore;
  items: ItemStore;
  changes: ChangeStore;
  /** Prompt delivery of the webhook events an execution's end queued (the outbox sweep covers a lost nudge). */
  webhooks: Pick<ExecutionWebhooks, 'nudge'>;
  /** One fetcher per robots.txt policy; both share the SSRF guard and the per-host limiter. */
  fetchers: { respect: PageFetcher; ignore: PageFetcher };
  /** Knowledge-base sync of jobs with enableRagSync. */
  rag: RagSyncDeps;
  log: Logger;
}

const contentHash = (title: string, publishedAt: string | null, detailUrl: string) =>
  createHash('sha256').update(`${title}\u0000${publishedAt ?? ''}\u0000${detailUrl}`).digest('base64url');

/** What an item was in a run: new, changed (its page's content, else its list row) or unchanged. */
function changeOf(row: UpsertedItem, contentChanged: ReadonlyMap<string, ItemDiff | null>): ItemChangeInput {
  const base = { itemId: row.id, title: row.title, detailUrl: row.detailUrl };
  if (row.inserted) return { ...base, change: 'new', diff: null };
  const content = contentChanged.get(row.id);
  if (content !== undefined) return { ...base, change: 'changed', diff: content };
  if (!row.changed) return { ...base, change: 'unchanged', diff: null };
  const removed = row.previous ? [`${row.previous.title}${row.previous.publishedAt ? ` (${row.previous.publishedAt})` : ''}`] : [];
  return { ...base, change: 'changed', diff: { added: [`${row.title}${row.publishedAt ? ` (${row.publishedAt})` : ''}`], removed, more: 0, rewritten: false } };
}

/**
 * Runs one execution on this worker: fetch, heal the selectors if the page changed, extract,
 * store the items (deduplicated per job by detailUrl), remember what the selectors matched.
 * A list page that is a block page (fetch/block-page.ts) ends the run BLOCKED with the reason,
 * the job's items untouched; blocked detail pages are counted on the execution. Each item is
 * recorded as new, changed (with what changed) or unchanged, and the items the previous
 * completed run listed and this one did not as gone.
 * Safe to run again for the same execution after a crash (the item upsert is idempotent).
 * `heartbeat` extends the job lock between phases.
 */
export async function runExecution(deps: RunnerDeps, tenantId: string, executionId: string, agent: string, heartbeat: () => Promise<void>): Promise<void> {
  const { jobs, items, log } = deps;
  const running = await jobs.markRunning(tenantId, executionId, agent);
  if (!running) return; // finished already (a retried job) or unknown
  // Ending the execution queues its webhook deliveries (the outbox); they are nudged at once.
  const finish = async (outcome: Parameters<JobStore['finish']>[2]) => deps.webhooks.nudge(await jobs.finish(tenantId, executionId, outcome));
  const job = await jobs.job(tenantId, running.jobId);
  if (!job) {
    await finish({ status: 'FAILED', totalCount: 0, selfHealingOccurred: false, error: 'The job was deleted' });
    return;
  }
  const runLog = log.child({ executionId, jobId: job.id, tenantId });
  try {
    const page = await deps.fetchers[job.robotsTxt].fetchPage(job.targetUrl);
    await heartbeat();
    const document = parseHtml(page.html);
    let selectors: CrawlSelectors = job.selectors;
    let healed = false;
    if (job.fingerprints) {
      const result = healSelectors(document, page.url, selectors, job.fingerprints);
      if (result.failedFields.some((f) => f.field === 'listRow')) {
        throw new SvcError('UNAVAILABLE', `The page no longer has rows like the stored ones: ${result.failedFields.map((f) => `${f.field}: ${f.reason}`).join('; ')}`);
      }
      if (result.healed) {
        healed = true;
        selectors = result.selectors as CrawlSelectors;
        runLog.warn({ healedFields: result.healedFields, failedFields: result.failedFields, confidence: result.confidence, selectors }, 'selectors healed');
      } else if (result.failedFields.length) {
        runLog.warn({ failedFields: result.failedFields }, 'some fields could not be located; they are left empty');
        selectors = result.selectors as CrawlSelectors;
      }
    }
    const extraction = extractItems(document, page.url, selectors);
    const collected = extraction.items.flatMap((item) => {
      if (!item.detailUrl) return [];
      const title = item.title ?? '';
      const publishedAt = normalizePublishedDate(item.publishedAtRaw, { dayFirst: job.dayFirst });
      return [{ title, publishedAt, detailUrl: item.detailUrl, contentHash: contentHash(title, publishedAt, item.detailUrl) }];
    });
    const stored = await items.upsertItems(tenantId, job.id, executionId, collected);
    await heartbeat();
    let blocked: BlockedPage[] = [];
    let contentChanged: ReadonlyMap<string, ItemDiff | null> = new Map();
    if (job.enableRagSync) {
      const synced = await syncItems(deps.rag, deps.fetchers[job.robotsTxt], { tenantId, executionId, job }, stored.rows, heartbeat);
      blocked = synced.blocked;
      contentChanged = synced.contentChanged;
      runLog.info({ indexed: synced.indexed, unchanged: synced.unchanged, failed: synced.failed, blocked: synced.blocked.length, deferred: synced.deferred, blockKinds: [...new Set(synced.blocked.map((b) => b.kind))] }, 'knowledge sync done');
    }
    const recorded = await deps.changes.record(tenantId, job.id, executionId, stored.rows.map((row) => changeOf(row, contentChanged)));
    if (collected.length) {
      const fingerprints = withFillHistory(fingerprintSelectors(document, extraction.rows, selectors, page.url), job.fingerprints);
      await jobs.saveSelectors(tenantId, job.id, healed ? selectors : null, fingerprints, healed ? `healed during execution ${executionId}` : 'fingerprints refreshed');
    }
    await finish({ status: 'COMPLETED', totalCount: stored.rows.length, selfHealingOccurred: healed, blocked });
    runLog.info({ items: stored.rows.length, ...recorded.counts, healed, blocked: blocked.length, elapsedMs: page.elapsedMs }, 'crawl execution completed');
  } catch (error) {
    const block = blockedPageOf(error);
    if (block) {
      runLog.warn({ url: block.url, status: block.status, kind: block.kind, rule: block.rule }, 'crawl execution blocked: the list page is a block page');
      await finish({ status: 'BLOCKED', totalCount: 0, selfHealingOccurred: false, error: (error as SvcError).message, blocked: [block] });
      return;
    }
    const message = error instanceof SvcError ? error.message : 'Internal error while crawling';
    if (!(error instanceof SvcError)) runLog.error({ err: error }, 'crawl execution failed');
    else runLog.warn({ err: error.message }, 'crawl execution failed');
    await finish({ status: 'FAILED', totalCount: 0, selfHealingOccurred: false, error: message });
  }
}

interface RunData { tenantId: string; executionId: string }

/** The `crawl.run` job: runs one execution (see runExecution). Call before agenda.start(). */
export function defineRunCrawlExecution(agenda: Agenda, runner: RunnerDeps, settings: WorkerSettings): void {
  const { workerName, lockLifetimeMs } = settings;
  agenda.define(RUN_CRAWL_EXECUTION, async (job: AgendaJob<RunData>) => {
    const { tenantId, executionId } = job.attrs.data;
    await withHeartbeat(job, lockLifetimeMs, runner.log, (beat) => runExecution(runner, tenantId, executionId, workerName, beat));
  }, { concurrency: settings.concurrency, lockLimit: settings.concurrency, lockLifetime: lockLifetimeMs });
}
