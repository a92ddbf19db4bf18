import type { Agenda, Logger } from '@svc/kit';
import type { CrawlQueue } from '../service/crawl-service.js';

/** agenda job name of one execution's run (triggered, or created by a schedule). */
export const RUN_CRAWL_EXECUTION = 'crawl.run';
/** agenda job name of a crawl job's own schedule. */
export const RUN_SCHEDULED_CRAWL = 'crawl.scheduled';

/** A worker locks no more runs than it executes at once (lockLimit = concurrency), so idle workers get the rest. */
export interface WorkerSettings {
  workerName: string;
  lockLifetimeMs: number;
  /** Runs this process executes at once. */
  concurrency: number;
}

/**
 * The crawl service's queue on agenda: `crawl.run` runs one execution
 * (worker/run-crawl-execution.ts); `crawl.scheduled` is each crawl job's own schedule
 * (worker/run-scheduled-crawl.ts; cron: one repeating agenda job per crawl job, unique by
 * jobId; one-time: one run at runAt or at once).
 */
export function createCrawlQueue(agenda: Agenda, log: Logger): CrawlQueue {
  return {
    async schedule(tenantId, jobId, cronExpression, runAt) {
      if (cronExpression) {
        await agenda.create(RUN_SCHEDULED_CRAWL, { tenantId, jobId }).repeatEvery(cronExpression, { timezone: 'UTC', skipImmediate: true }).unique({ 'data.jobId': jobId }).save();
      } else {
        await agenda.schedule(runAt ?? new Date(), RUN_SCHEDULED_CRAWL, { tenantId, jobId });
      }
    },
    async unschedule(tenantId, jobId) {
      await agenda.cancel({ name: RUN_SCHEDULED_CRAWL, data: { tenantId, jobId } }).catch((error: unknown) => log.warn({ err: error, jobId }, 'could not cancel the schedule; the handler skips deleted jobs anyway'));
    },
    async enqueueRun(tenantId, executionId) {
      await agenda.now(RUN_CRAWL_EXECUTION, { tenantId, executionId });
    },
  };
}
