import type { Agenda, Logger } from '@svc/kit';
import { runJob, type RunDeps } from '../agent/run-job.js';
import type { JobStore } from '../store/job-store.js';
import { type AgendaJob, RUN_ANALYSIS_JOB, type WorkerSettings } from './analysis-queue.js';
import { withHeartbeat } from './heartbeat.js';

export interface RunAnalysisJobDeps {
  jobs: JobStore;
  /** What the agent runs with (everything but the heartbeat, which this job gives it). */
  run: Omit<RunDeps, 'heartbeat'>;
  settings: WorkerSettings;
  log: Logger;
}

/**
 * The `insight.run-job` job: runs or resumes one analysis job (agent/run-job.ts). A worker that
 * dies loses its lock, and another resumes the job from its last written step. Call before
 * agenda.start().
 */
export function defineRunAnalysisJob(agenda: Agenda, deps: RunAnalysisJobDeps): void {
  const { jobs, settings, log } = deps;

  async function runOne(jobId: string, heartbeat: () => Promise<void>): Promise<void> {
    const job = await jobs.start(jobId, settings.workerName);
    if (!job) return;
    log.info({ jobId, attempt: job.attempts, resumedAfterStep: job.stepsDone }, job.attempts > 1 ? 'resuming analysis job' : 'running analysis job');
    await runJob(job, { ...deps.run, heartbeat });
  }

  agenda.define(RUN_ANALYSIS_JOB, async (job: AgendaJob<{ jobId: string }>) => withHeartbeat(job, settings.lockLifetimeMs, log, (beat) => runOne(job.attrs.data.jobId, beat)), {
    concurrency: settings.concurrency,
    lockLimit: settings.concurrency,
    lockLifetime: settings.lockLifetimeMs,
  });
}
