import type { Agenda, Logger } from '@svc/kit';
import { nextRunAt } from '../domain/cron.js';
import type { JobStore } from '../store/job-store.js';
import { runExecution, type RunnerDeps } from './run-crawl-execution.js';

const RUN = 'crawl.run';
const SCHEDULED = 'crawl.scheduled';

interface RunData { tenantId: string; executionId: string }
interface ScheduledData { tenantId: string; jobId: string }
interface AgendaJob<T> { attrs: { data: T }; touch(progress?: number): Promise<void> }

/**
 * The crawl jobs on agenda: `crawl.run` runs one execution (triggered, or created by a
 * schedule); `crawl.scheduled` is each crawl job's own schedule (cron: one repeating agenda job
 * per crawl job, unique by jobId; one-time: one run at runAt or at once).
 */
/** A worker locks no more runs than it executes at once (lockLimit = concurrency), so idle workers get the rest. */
export interface WorkerSettings {
  workerName: string;
  lockLifetimeMs: number;
  /** Runs this process executes at once. */
  concurrency: number;
}

export function createCrawlScheduler(agenda: Agenda, jobs: JobStore, runner: RunnerDeps, settings: WorkerSettings, log: Logger) {
  const { workerName, lockLifetimeMs } = settings;
  /**
   * Runs `work` while touching the agenda job every third of the lock lifetime, so a long
   * fetch (retries, slow sites) keeps its lock and is not handed to another worker.
   */
  async function withHeartbeat(job: AgendaJob<unknown>, work: (beat: () => Promise<void>) => Promise<void>): Promise<void> {
    let alive = true;
    const beat = async () => {
      if (!alive) return;
      await job.touch().catch((error: unknown) => {
        alive = false;
        log.warn({ err: error }, 'could not extend the crawl job lock');
      });
    };
    const timer = setInterval(() => void beat(), Math.max(250, Math.floor(lockLifetimeMs / 3)));
    try {
      await work(beat);
    } finally {
      clearInterval(timer);
    }
  }

  return {
    /** Registers the handlers; call before agenda.start(). */
    define() {
      agenda.define(RUN, async (job: AgendaJob<RunData>) => {
        const { tenantId, executionId } = job.attrs.data;
        await withHeartbeat(job, (beat) => runExecution(runner, tenantId, executionId, workerName, beat));
      }, { concurrency: settings.concurrency, lockLimit: settings.concurrency, lockLifetime: lockLifetimeMs });
      agenda.define(SCHEDULED, async (job: AgendaJob<ScheduledData>) => {
        const { tenantId, jobId } = job.attrs.data;
        const crawl = await jobs.job(tenantId, jobId);
        if (!crawl || crawl.status !== 'SCHEDULED') return;
        const execution = await jobs.insertExecution(tenantId, jobId);
        await withHeartbeat(job, (beat) => runExecution(runner, tenantId, execution.id, workerName, beat));
        await jobs.afterScheduledRun(tenantId, jobId, crawl.cronExpression ? nextRunAt(crawl.cronExpression) : null);
        log.info({ jobId, executionId: execution.id }, 'scheduled crawl ran');
      }, { concurrency: settings.concurrency, lockLimit: settings.concurrency, lockLifetime: lockLifetimeMs });
    },
    async schedule(tenantId: string, jobId: string, cronExpression: string | null, runAt: Date | null): Promise<void> {
      if (cronExpression) {
        await agenda.create(SCHEDULED, { tenantId, jobId }).repeatEvery(cronExpression, { timezone: 'UTC', skipImmediate: true }).unique({ 'data.jobId': jobId }).save();
      } else {
        await agenda.schedule(runAt ?? new Date(), SCHEDULED, { tenantId, jobId });
      }
    },
    async unschedule(tenantId: string, jobId: string): Promise<void> {
      await agenda.cancel({ name: SCHEDULED, data: { tenantId, jobId } }).catch((error: unknown) => log.warn({ err: error, jobId }, 'could not cancel the schedule; the handler skips deleted jobs anyway'));
    },
    async enqueueRun(tenantId: string, executionId: string): Promise<void> {
      await agenda.now(RUN, { tenantId, executionId });
    },
  };
}

export type CrawlScheduler = ReturnType<typeof createCrawlScheduler>;
