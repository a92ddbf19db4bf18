import type { ExecutionItem, StoredItem } from '../domain/crawl-item.js';
import type { ExecutionRow, JobRow } from '../domain/crawl-job.js';
import type { WebhookDelivery } from '../store/webhook-store.js';
import type { CrawlExecution, CrawlItem, CrawlJob, CrawlWebhookDelivery } from './types.js';

export const jobView = (j: JobRow): CrawlJob => ({
  jobId: j.id,
  jobName: j.jobName,
  status: j.status,
  nextRunAt: j.nextRunAt?.toISOString() ?? null,
  createdAt: j.createdAt.toISOString(),
  targetUrl: j.targetUrl,
  cronExpression: j.cronExpression,
  selectors: { ...j.selectors },
  selectorVersion: j.selectorVersion,
  enableRagSync: j.enableRagSync,
  ragConfig: j.ragConfig ? { ...j.ragConfig } : null,
  webhook: j.webhook ? { url: j.webhook.url, events: [...j.webhook.events] } : null,
  volatileSelectors: [...j.volatileSelectors],
});

export const deliveryView = (d: WebhookDelivery): CrawlWebhookDelivery => ({
  deliveryId: d.id,
  executionId: d.executionId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  lastError: d.lastError,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
});

export const executionView = (e: ExecutionRow): CrawlExecution => ({
  executionId: e.id,
  jobId: e.jobId,
  status: e.status,
  allocatedAgent: e.allocatedAgent,
  startedAt: e.startedAt?.toISOString() ?? null,
  finishedAt: e.finishedAt?.toISOString() ?? null,
  totalCount: e.totalCount,
  selfHealingOccurred: e.selfHealingOccurred,
  error: e.error,
  blockedCount: e.blockedCount,
  blockedPages: e.blockedPages.map((b) => ({ ...b })),
  changes: { ...e.changes },
  changedItems: e.changedItems.map((c) => ({ ...c, diff: c.diff ? { ...c.diff } : null })),
  goneItems: e.goneItems.map((g) => ({ ...g })),
});

export const itemView = (i: StoredItem | ExecutionItem): CrawlItem => ({
  id: i.id,
  title: i.title,
  publishedAt: i.publishedAt,
  detailUrl: i.detailUrl,
  vectorSyncStatus: i.vectorSyncStatus,
  vectorId: i.vectorId,
  vectorSyncError: i.vectorSyncError,
  change: 'change' in i ? i.change : null,
  diff: 'diff' in i && i.diff ? { ...i.diff } : null,
});
