import type { Agenda, Logger } from '@svc/kit';
import { runJob, type RunDeps } from '../agent/run-job.js';
import type { Action, ExecutionOutcome } from '../domain/action.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import type { NoticeStore } from '../store/notice-store.js';
import type { ExecutionQueue } from '../service/actions.js';
import type { JobQueue } from '../service/jobs.js';
import type { NoticeDelivery } from '../service/review-notices.js';

const RUN = 'insight.run-job';
const EXECUTE = 'insight.execute-action';
const SWEEP = 'insight.sweep';
const NOTIFY = 'insight.notify-reviewers';
const DELIVER = 'insight.deliver-external';

interface AgendaJob<T> { attrs: { data: T }; touch(progress?: number): Promise<void> }

/** An EXTERNAL action's hand-off: recorded with the action, its outcome follows the delivery. */
export interface HandOff {
  handOff(action: Action): Promise<ExecutionOutcome | undefined>;
  deliver(actionId: string): Promise<{ retryAt?: Date }>;
  overdue(graceMs: number): Promise<string[]>;
}

export interface WorkerSettings {
  workerName: string;
  /** A dead worker's job is resumed by another after this (and a sweep). */
  lockLifetimeMs: number;
  concurrency: number;
  /** How long a PENDING job or an APPROVED action may wait before the sweep queues it again. */
  requeueAfterMs: number;
  /** How often the sweep runs. */
  sweepMs: number;
}

export interface WorkerDeps {
  agenda: Agenda;
  jobs: JobStore;
  actions: ActionStore;
  run: Omit<RunDeps, 'heartbeat'>;
  execute(action: Action): Promise<ExecutionOutcome>;
  /** EXTERNAL actions go to the tenant's operator webhook instead of `execute`. */
  external?: HandOff | undefined;
  /** The reviewer webhook, when the deployment has one. */
  notices?: { store: NoticeStore; delivery: NoticeDelivery } | undefined;
  settings: WorkerSettings;
  log: Logger;
}

/**
 * Analysis jobs, action execution and a sweeper on agenda (PostgreSQL): `insight.run-job`
 * runs or resumes one job (a worker that dies loses its lock, and another resumes the job
 * from its last written step); `insight.execute-action` carries one approved action out;
 * `insight.deliver-external` posts an approved EXTERNAL
 * action to its tenant's operator webhook (retried with backoff); `insight.notify-reviewers` posts a job's proposals to the reviewer webhook (retried with
 * backoff); `insight.sweep` expires overdue proposals and re-queues work whose queue entry was lost.
 */
export function createAnalysisWorker(deps: WorkerDeps): JobQueue & ExecutionQueue & { enqueueNotice(jobId: string): Promise<void>; enqueueDelivery(actionId: string): Promise<void>; define(): void; startSweeps(): Promise<void> } {
  const { agenda, jobs, actions, settings, log } = deps;

  async function withHeartbeat(job: AgendaJob<unknown>, work: (beat: () => Promise<void>) => Promise<void>): Promise<void> {
    let last = Date.now();
    const beat = async () => {
      if (Date.now() - last < settings.lockLifetimeMs / 3) return;
      last = Date.now();
      await job.touch().catch((error: unknown) => log.warn({ err: error }, 'could not extend the analysis job lock'));
    };
    const timer = setInterval(() => void beat(), Math.max(250, Math.floor(settings.lockLifetimeMs / 3)));
    try {
      await work(beat);
    } finally {
      clearInterval(timer);
    }
  }

  async function runOne(jobId: string, heartbeat: () => Promise<void>): Promise<void> {
    const job = await jobs.start(jobId, settings.workerName);
    if (!job) return;
    log.info({ jobId, attempt: job.attempts, resumedAfterStep: job.stepsDone }, job.attempts > 1 ? 'resuming analysis job' : 'running analysis job');
    await runJob(job, { ...deps.run, heartbeat });
  }

  async function executeOne(actionId: string): Promise<void> {
    const action = await actions.beginExecution(actionId);
    if (!action) return;
    const outcome = action.kind === 'EXTERNAL' && deps.external ? await deps.external.handOff(action) : await deps.execute(action);
    if (!outcome) return; // handed off: the delivery records the outcome
    const recorded = await actions.recordOutcome(actionId, outcome.ok ? 'EXECUTED' : 'EXECUTION_FAILED', outcome.detail);
    log.info({ actionId, kind: action.kind, target: action.targetId, ok: outcome.ok, attempt: action.executionAttempts }, recorded ? 'action executed' : 'action outcome already recorded');
  }

  const options = { concurrency: settings.concurrency, lockLimit: settings.concurrency, lockLifetime: settings.lockLifetimeMs };
  const enqueueRun = (jobId: string) => agenda.create(RUN, { jobId }).unique({ 'data.jobId': jobId }).schedule(new Date()).save().then(() => undefined);
  const enqueueExecution = (actionId: string) => agenda.create(EXECUTE, { actionId }).unique({ 'data.actionId': actionId }).schedule(new Date()).save().then(() => undefined);
  const enqueueDelivery = (actionId: string) => agenda.create(DELIVER, { actionId }).unique({ 'data.actionId': actionId }).schedule(new Date()).save().then(() => undefined);
  const enqueueNotice = (jobId: string) => agenda.create(NOTIFY, { jobId }).unique({ 'data.jobId': jobId }).schedule(new Date()).save().then(() => undefined);

  return {
    enqueue: enqueueRun,
    enqueueExecution,
    enqueueNotice,
    enqueueDelivery,
    define() {
      agenda.define(RUN, async (job: AgendaJob<{ jobId: string }>) => withHeartbeat(job, (beat) => runOne(job.attrs.data.jobId, beat)), options);
      agenda.define(EXECUTE, async (job: AgendaJob<{ actionId: string }>) => executeOne(job.attrs.data.actionId), options);
      const notices = deps.notices;
      if (notices) {
        agenda.define(NOTIFY, async (job: AgendaJob<{ jobId: string }>) => {
          const { retryAt } = await notices.delivery.deliver(job.attrs.data.jobId);
          // A new entry: agenda clears this one's next run when the handler returns.
          if (retryAt) await agenda.schedule(retryAt, NOTIFY, { jobId: job.attrs.data.jobId });
        }, { concurrency: 2, lockLifetime: 60_000 });
      }
      const external = deps.external;
      if (external) {
        agenda.define(DELIVER, async (job: AgendaJob<{ actionId: string }>) => {
          const { retryAt } = await external.deliver(job.attrs.data.actionId);
          if (retryAt) await agenda.schedule(retryAt, DELIVER, { actionId: job.attrs.data.actionId });
        }, { concurrency: 2, lockLifetime: 60_000 });
      }
      agenda.define(SWEEP, async () => {
        const expired = await actions.expireDue();
        if (expired) log.info({ expired }, 'proposed actions expired');
        for (const id of await jobs.waiting(settings.requeueAfterMs)) await enqueueRun(id);
        for (const id of await actions.awaitingExecution(settings.requeueAfterMs)) await enqueueExecution(id);
        if (notices) for (const id of await notices.store.overdue(settings.requeueAfterMs)) await enqueueNotice(id);
        if (external) for (const id of await external.overdue(settings.requeueAfterMs)) await enqueueDelivery(id);
      }, { concurrency: 1, lockLifetime: 60_000 });
    },
    async startSweeps() {
      await agenda.every(settings.sweepMs, SWEEP, {}, { skipImmediate: false });
    },
  };
}
