/**
 * An analysis job's life. A job is created PENDING, a worker takes it (RUNNING) and it ends
 * COMPLETED (with a report), FAILED (with a reason a person understands) or CANCELLED. A
 * RUNNING job whose worker died stays RUNNING until another worker takes its lock over and
 * resumes it from its last written step.
 */
export const JOB_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const NEXT: Record<JobStatus, readonly JobStatus[]> = {
  PENDING: ['RUNNING', 'CANCELLED', 'FAILED'],
  RUNNING: ['COMPLETED', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

export function canMoveJob(from: JobStatus, to: JobStatus): boolean {
  return NEXT[from].includes(to);
}

export function isFinal(status: JobStatus): boolean {
  return NEXT[status].length === 0;
}

export const STEP_KINDS = ['PLAN', 'TOOL_CALL', 'TOOL_RESULT', 'OBSERVATION', 'REPORT', 'STATUS'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const PROMPT_LIMITS = { min: 1, max: 8000 } as const;

/** Why a job failed, in words for the person who asked. */
export type FailureReason =
  | { kind: 'STEP_LIMIT'; limit: number }
  | { kind: 'TIME_LIMIT'; limitMs: number }
  | { kind: 'BUDGET'; agentCode: string; message: string }
  | { kind: 'MODEL'; message: string }
  | { kind: 'INTERNAL'; message: string };

export function describeFailure(reason: FailureReason): string {
  switch (reason.kind) {
    case 'STEP_LIMIT':
      return `The analysis stopped after ${reason.limit} steps without finishing its report (SVC_INSIGHT_MAX_STEPS).`;
    case 'TIME_LIMIT':
      return `The analysis ran longer than ${Math.round(reason.limitMs / 1000)} s and was stopped (SVC_INSIGHT_JOB_TIMEOUT_MS).`;
    case 'BUDGET':
      return `The model gateway refused further spending for agent "${reason.agentCode}": ${reason.message}`;
    case 'MODEL':
      return `The model gateway failed: ${reason.message}`;
    case 'INTERNAL':
      return `The analysis failed: ${reason.message}`;
  }
}
