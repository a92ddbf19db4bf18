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

/** What an action changes, and in which subgraph its target entity lives. */
export const ACTION_KINDS = {
  BUDGET_CHANGE: { target: 'Agent' },
  CONTENT_DRAFT_UPDATE: { target: 'Content' },
  CONTENT_PUBLISH: { target: 'Content' },
  CRAWL_TRIGGER: { target: 'CrawlJob' },
  CRAWL_SELECTOR_CHANGE: { target: 'CrawlJob' },
} as const;
export type ActionKind = keyof typeof ACTION_KINDS;
export type TargetType = (typeof ACTION_KINDS)[ActionKind]['target'];

export interface ExpectedImpact {
  metric: string;
  /** Steps (days for daily series) the impact is measured over. */
  horizon: number;
  p10: number;
  p50: number;
  p90: number;
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
