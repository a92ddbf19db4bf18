import type { Agenda, Logger } from '@svc/kit';
import { nextRunAt } from '../domain/cron.js';
import type { JobStore } from '../store/job-store.js';
import { RUN_SCHEDULED_CRAWL, type WorkerSettings } from './crawl-queue.js';
import { type AgendaJob, withHeartbeat } from './heartbeat.js';
import { runExecution, type RunnerDeps } from './run-crawl-execution.js';

interface ScheduledData { tenantId: string; jobId: string }

/**
 * The `crawl.scheduled` job: a crawl job's schedule fired. Creates an execution, runs it here,
 * and records the next run (cron) or the end of the schedule (one-time). Deleted or paused jobs
 * are skipped. Call before agenda.start().
 */
export function defineRunScheduledCrawl(agenda: Agenda, jobs: JobStore, runner: RunnerDeps, settings: WorkerSettings, log: Logger): void {
  const { workerName, lockLifetimeMs } = settings;
  agenda.define(RUN_SCHEDULED_CRAWL, async (job: AgendaJob<ScheduledData>) => {
    const { tenantId, jobId } = job.attrs.data;
    const crawl = await jobs.job(tenantId, jobId);
    if (!crawl || crawl.status !== 'SCHEDULED') return;
    const execution = await jobs.insertExecution(tenantId, jobId);
    await withHeartbeat(job, lockLifetimeMs, log, (beat) => runExecution(runner, tenantId, execution.id, workerName, beat));
    await jobs.afterScheduledRun(tenantId, jobId, crawl.cronExpression ? nextRunAt(crawl.cronExpression) : null);
    log.info({ jobId, executionId: execution.id }, 'scheduled crawl ran');
  }, { concurrency: settings.concurrency, lockLimit: settings.concurrency, lockLifetime: lockLifetimeMs });
}
