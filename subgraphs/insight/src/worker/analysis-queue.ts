import type { Agenda } from '@svc/kit';
import type { ExecutionQueue } from '../service/approve-action.js';
import type { JobQueue } from '../service/jobs.js';

/** agenda job name: run or resume one analysis job (worker/run-analysis-job.ts). */
export const RUN_ANALYSIS_JOB = 'insight.run-job';
/** agenda job name: carry one approved action out (worker/execute-approved-action.ts). */
export const EXECUTE_APPROVED_ACTION = 'insight.execute-action';
/** agenda job name: post an approved EXTERNAL action to its tenant's operator webhook (worker/deliver-external-action.ts). */
export const DELIVER_EXTERNAL_ACTION = 'insight.deliver-external';
/** agenda job name: post a job's proposals to the reviewer webhook (worker/notify-reviewers.ts). */
export const NOTIFY_REVIEWERS = 'insight.notify-reviewers';
/** agenda job name: expire overdue proposals and re-queue lost work (worker/sweep-overdue.ts). */
export const SWEEP_OVERDUE = 'insight.sweep';

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

/** The part of an agenda job a handler touches. */
export interface AgendaJob<T> { attrs: { data: T }; touch(progress?: number): Promise<void> }

/** Everything the analysis service hands to its workers. */
export interface AnalysisQueue extends JobQueue, ExecutionQueue {
  /** Queues the reviewer notice of a job's proposals. */
  enqueueNotice(jobId: string): Promise<void>;
  /** Queues the hand-off of an approved EXTERNAL action to its tenant's operator webhook. */
  enqueueDelivery(actionId: string): Promise<void>;
}

/**
 * The analysis service's queue on agenda (PostgreSQL): it implements the job service's
 * `JobQueue` and the action service's `ExecutionQueue`. Each entry is unique by its job or
 * action id, so a second enqueue of the same work (a retry, the sweep) adds nothing.
 */
export function createAnalysisQueue(agenda: Agenda): AnalysisQueue {
  return {
    enqueue: (jobId) => agenda.create(RUN_ANALYSIS_JOB, { jobId }).unique({ 'data.jobId': jobId }).schedule(new Date()).save().then(() => undefined),
    enqueueExecution: (actionId) => agenda.create(EXECUTE_APPROVED_ACTION, { actionId }).unique({ 'data.actionId': actionId }).schedule(new Date()).save().then(() => undefined),
    enqueueNotice: (jobId) => agenda.create(NOTIFY_REVIEWERS, { jobId }).unique({ 'data.jobId': jobId }).schedule(new Date()).save().then(() => undefined),
    enqueueDelivery: (actionId) => agenda.create(DELIVER_EXTERNAL_ACTION, { actionId }).unique({ 'data.actionId': actionId }).schedule(new Date()).save().then(() => undefined),
  };
}
