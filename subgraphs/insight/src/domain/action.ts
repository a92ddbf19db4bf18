import { createHash } from 'node:crypto';

/**
 * A proposed action: something the agent suggests changing in another service, which a
 * person approves or rejects. PROPOSED → APPROVED → EXECUTED | EXECUTION_FAILED;
 * PROPOSED → REJECTED; PROPOSED → EXPIRED after its time. Every decision is final.
 */
export const ACTION_STATUSES = ['PROPOSED', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'EXECUTION_FAILED'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

const NEXT: Record<ActionStatus, readonly ActionStatus[]> = {
  PROPOSED: ['APPROVED', 'REJECTED', 'EXPIRED'],
  APPROVED: ['EXECUTED', 'EXECUTION_FAILED'],
  REJECTED: [],
  EXPIRED: [],
  EXECUTED: [],
  EXECUTION_FAILED: [],
};

export function canMoveAction(from: ActionStatus, to: ActionStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * What an action changes, in which subgraph its target entity lives (`External`: a lever the
 * platform does not own, handed off to the tenant's operator webhook), and whether the change
 * can be undone, with how.
 */
export const ACTION_KINDS = {
  BUDGET_CHANGE: { target: 'Agent', undoable: true, undo: 'Set the budget back to its previous amount (another BUDGET_CHANGE).' },
  CONTENT_DRAFT_UPDATE: { target: 'Content', undoable: true, undo: 'Restore the previous draft version (restoreContentVersion); nothing was live.' },
  CONTENT_PUBLISH: { target: 'Content', undoable: true, undo: 'Publish the previously live version again (publishContent with its version).' },
  CONTENT_RESTORE: { target: 'Content', undoable: true, undo: 'Publish the version that was live before the restore again (publishContent with its number; the content keeps every version).' },
  CRAWL_TRIGGER: { target: 'CrawlJob', undoable: false, undo: 'A crawl that ran cannot be undone; its items can be deleted.' },
  CRAWL_SELECTOR_CHANGE: { target: 'CrawlJob', undoable: true, undo: 'Change the selectors back (another CRAWL_SELECTOR_CHANGE with the previous ones).' },
  EXTERNAL: { target: 'External', undoable: false, undo: 'Handed off to the operator: the platform cannot undo it; ask the operator to reverse the change.' },
} as const;
export type ActionKind = keyof typeof ACTION_KINDS;
export type TargetType = (typeof ACTION_KINDS)[ActionKind]['target'];

/** Whether an action of `kind` can be undone, and how; a proposal may say more. */
export function reversibilityOf(kind: ActionKind): { undoable: boolean; undo: string } {
  const { undoable, undo } = ACTION_KINDS[kind];
  return { undoable, undo };
}

export interface ExpectedImpact {
  metric: string;
  /** Steps (days for daily series) the impact is measured over. */
  horizon: number;
  p10: number;
  p50: number;
  p90: number;
  /** How it was estimated, in words (e.g. "bootstrap over the elasticity and the residuals"). */
  method?: string | undefined;
  /** The horizon in days, when the steps are not days. */
  horizonDays?: number | undefined;
  /** The unit of p10–p90 (USD, sessions, %). */
  unit?: string | undefined;
}

/** JSON with object keys sorted at every depth, so equal parameters hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The hash a decision is bound to: an action whose parameters changed cannot be approved. */
export function paramsHash(kind: ActionKind, targetId: string, params: unknown): string {
  return createHash('sha256').update(canonicalJson({ kind, targetId, params })).digest('hex');
}

export const DEFAULT_ACTION_TTL_HOURS = 72;

export interface Decision {
  reviewedBy: string;
  reviewerSubject: string;
  /** The reviewer's tenants and sites when deciding: an execution never acts beyond them. */
  reviewerGrants: { tenants: readonly string[] | '*'; sites: readonly string[] | '*' } | null;
  comment: string | null;
  decidedAt: Date;
}

/** A proposed action as stored: the proposal, its decision and its outcome. */
export interface Action {
  id: string;
  tenantId: string;
  jobId: string;
  kind: ActionKind;
  title: string;
  rationale: string;
  targetType: TargetType;
  targetId: string;
  /** The target in the report's words (null for proposals stored before migration 0012, or whose target the analysis did not read). */
  targetName: string | null;
  /** When the service learned the target no longer exists (service/target-check.ts); null while it is not known gone. */
  targetGoneAt: Date | null;
  params: Record<string, unknown>;
  paramsHash: string;
  expectedImpact: ExpectedImpact | null;
  /** Whether the change can be undone, and how (the proposal's, else its kind's). */
  undoable: boolean;
  undo: string;
  /** The report finding it follows from (null for proposals stored before findings were cited). */
  finding: ProposalFinding | null;
  status: ActionStatus;
  proposedAt: Date;
  expiresAt: Date;
  decision: Decision | null;
  outcome: Record<string, unknown> | null;
  executedAt: Date | null;
  executionAttempts: number;
}

/** The finding a proposal follows from: its index in the report's findings, and its words. */
export interface ProposalFinding {
  index: number;
  title: string;
  detail: string;
}

/** The outcome of carrying an action out in its target service. */
export interface ExecutionOutcome {
  ok: boolean;
  /** What the target reported: its new version or state, or the error. */
  detail: Record<string, unknown>;
}
