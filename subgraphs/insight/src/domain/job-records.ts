import type { Role } from '@svc/kit';
import type { JobStatus, StepKind } from './job.js';
import type { Report } from './report.js';

/** The requester's rights, kept with the job: the worker acts with no more than these. */
export interface Authority {
  subject: string;
  roles: readonly Role[];
  tenants: readonly string[] | '*';
  sites: readonly string[] | '*';
}

export interface Job {
  id: string;
  /** The tenant the job was created in: it reads that tenant's data only. */
  tenantId: string;
  owner: string;
  requesterId: string;
  prompt: string;
  status: JobStatus;
  authority: Authority;
  piiStrict: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  report: Report | null;
  stepsDone: number;
  currentStep: string | null;
  cancelRequested: boolean;
  attempts: number;
  worker: string | null;
  tokens: number;
  costUsd: number;
}

export interface Step {
  jobId: string;
  seq: number;
  kind: StepKind;
  title: string;
  detail: string | null;
  toolName: string | null;
  toolCallId: string | null;
  toolArgs: Record<string, unknown> | null;
  /** The tool's whole result (JSON), so a resumed job never repeats the call. */
  result: unknown;
  resultSummary: string | null;
  /** For STATUS steps: the job's new status. */
  status: JobStatus | null;
  startedAt: Date;
  durationMs: number | null;
  tokens: number | null;
  costUsd: number | null;
}

export type NewStep = Omit<Step, 'jobId' | 'seq' | 'startedAt' | 'detail' | 'toolName' | 'toolCallId' | 'toolArgs' | 'result' | 'resultSummary' | 'status' | 'durationMs' | 'tokens' | 'costUsd'> &
  Partial<Pick<Step, 'detail' | 'toolName' | 'toolCallId' | 'toolArgs' | 'result' | 'resultSummary' | 'status' | 'durationMs' | 'tokens' | 'costUsd'>> & { startedAt?: Date };
