import type { Agenda, Logger } from '@svc/kit';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import type { NoticeStore } from '../store/notice-store.js';
import { type AnalysisQueue, SWEEP_OVERDUE, type WorkerSettings } from './analysis-queue.js';
import type { HandOff } from './execute-approved-action.js';

export interface SweepOverdueDeps {
  jobs: JobStore;
  actions: ActionStore;
  /** Reviewer notices, when the deployment has a reviewer webhook. */
  notices?: NoticeStore | undefined;
  /** EXTERNAL hand-offs whose delivery is overdue. */
  external?: Pick<HandOff, 'overdue'> | undefined;
  queue: AnalysisQueue;
  settings: WorkerSettings;
  log: Logger;
}

/**
 * The `insight.sweep` job: expires proposals past their time, and queues again the work whose
 * queue entry was lost (PENDING jobs, APPROVED actions, reviewer notices and EXTERNAL deliveries
 * waiting longer than `requeueAfterMs`). Call before agenda.start(); `startSweeps` after.
 */
export function defineSweepOverdue(agenda: Agenda, deps: SweepOverdueDeps): { startSweeps(): Promise<void> } {
  const { jobs, actions, notices, external, queue, settings, log } = deps;
  agenda.define(SWEEP_OVERDUE, async () => {
    const expired = await actions.expireDue();
    if (expired) log.info({ expired }, 'proposed actions expired');
    for (const id of await jobs.waiting(settings.requeueAfterMs)) await queue.enqueue(id);
    for (const id of await actions.awaitingExecution(settings.requeueAfterMs)) await queue.enqueueExecution(id);
    if (notices) for (const id of await notices.overdue(settings.requeueAfterMs)) await queue.enqueueNotice(id);
    if (external) for (const id of await external.overdue(settings.requeueAfterMs)) await queue.enqueueDelivery(id);
  }, { concurrency: 1, lockLifetime: 60_000 });
  return {
    async startSweeps() {
      await agenda.every(settings.sweepMs, SWEEP_OVERDUE, {}, { skipImmediate: false });
    },
  };
}
