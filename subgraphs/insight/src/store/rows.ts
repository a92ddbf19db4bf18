import { reversibilityOf, type ActionKind, type ActionStatus, type ExpectedImpact, type TargetType } from '../domain/action.js';
import type { JobStatus, StepKind } from '../domain/job.js';
import type { Action, Decision, ProposalFinding } from '../domain/action.js';
import type { Authority, Job, Step } from '../domain/job-records.js';
import type { Report } from '../domain/report.js';

/** Row mappers: database rows of the `insight` schema to domain records. */
export type Row = Record<string, unknown>;

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

export function toJob(r: Row): Job {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    owner: String(r.owner),
    requesterId: String(r.requester_id),
    prompt: String(r.prompt),
    status: r.status as JobStatus,
    authority: json<Authority>(r.authority),
    piiStrict: r.pii_strict === true,
    createdAt: new Date(String(r.created_at)),
    startedAt: date(r.started_at),
    finishedAt: date(r.finished_at),
    error: str(r.error),
    report: r.report ? json<Report>(r.report) : null,
    stepsDone: Number(r.steps_done),
    currentStep: str(r.current_step),
    cancelRequested: r.cancel_requested === true,
    attempts: Number(r.attempts),
    worker: str(r.worker),
    tokens: Number(r.tokens),
    costUsd: Number(r.cost_usd),
  };
}

export function toStep(r: Row): Step {
  return {
    jobId: String(r.job_id),
    seq: Number(r.seq),
    kind: r.kind as StepKind,
    title: String(r.title),
    detail: str(r.detail),
    toolName: str(r.tool_name),
    toolCallId: str(r.tool_call_id),
    toolArgs: r.tool_args ? json<Record<string, unknown>>(r.tool_args) : null,
    result: r.result === null || r.result === undefined ? null : json<unknown>(r.result),
    resultSummary: str(r.result_summary),
    status: (r.status as JobStatus | null) ?? null,
    startedAt: new Date(String(r.started_at)),
    durationMs: num(r.duration_ms),
    tokens: num(r.tokens),
    costUsd: num(r.cost_usd),
  };
}

export function toAction(r: Row): Action {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    jobId: String(r.job_id),
    kind: r.kind as ActionKind,
    title: String(r.title),
    rationale: String(r.rationale),
    targetType: r.target_type as TargetType,
    targetId: String(r.target_id),
    targetName: str(r.target_name),
    targetGoneAt: date(r.target_gone_at),
    params: json<Record<string, unknown>>(r.params),
    paramsHash: String(r.params_hash),
    expectedImpact: r.expected_impact ? json<ExpectedImpact>(r.expected_impact) : null,
    undoable: typeof r.undoable === 'boolean' ? r.undoable : reversibilityOf(r.kind as ActionKind).undoable,
    undo: typeof r.undo === 'string' ? r.undo : reversibilityOf(r.kind as ActionKind).undo,
    finding: r.finding ? json<ProposalFinding>(r.finding) : null,
    status: r.status as ActionStatus,
    proposedAt: new Date(String(r.proposed_at)),
    expiresAt: new Date(String(r.expires_at)),
    decision: r.decided_at
      ? { reviewedBy: String(r.reviewed_by), reviewerSubject: String(r.reviewer_subject), reviewerGrants: r.reviewer_grants ? json<Decision['reviewerGrants']>(r.reviewer_grants) : null, comment: str(r.review_comment), decidedAt: new Date(String(r.decided_at)) }
      : null,
    outcome: r.outcome ? json<Record<string, unknown>>(r.outcome) : null,
    executedAt: date(r.executed_at),
    executionAttempts: Number(r.execution_attempts),
  };
}
