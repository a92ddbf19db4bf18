import type { GraphQLResult, Logger } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStore } from '../store/action-store.js';

/**
 * Whether a proposal's target still exists, asked of the subgraph that owns it, so that a
 * proposal whose target is gone says so in its REST record and dashboard card, cannot be
 * approved, and expires (README, "Partial answers").
 *
 * One router operation checks every target of a read at once (InsightActionTargets: the
 * proposals' `target` fields, which the router resolves with one `_entities` call per owning
 * subgraph), with the reader's own credential: what the reader may not read is never checked
 * for them. Each target tells its state by the error at its path: ENTITY_NOT_FOUND is GONE,
 * FORBIDDEN (the reader may not read it) and SUBGRAPH_UNAVAILABLE leave it unknown.
 *
 * - Reading proposals (list, one, a job's): the PROPOSED ones not checked within `everyMs`
 *   (default 30 s) are claimed (one UPDATE, so concurrent reads ask once, and the router's own
 *   call back into this service for the same proposals asks nothing) and checked; the read
 *   waits at most `readWaitMs` (default 1 s) for the answer, so a subgraph that does not answer
 *   never slows a list down by more; a check that takes longer finishes on its own.
 * - Approving: the target is checked at once (`approveWaitMs`, default 5 s); GONE is a 409.
 *
 * A gone target is recorded (`targetGoneAt`) and its proposal expires at once (the expiry
 * sweep's statement), with the reason as its outcome.
 */

/** One router operation answered as it came (data and errors). */
export type GraphRawCall = (operation: string, variables: Record<string, unknown>, headers: Record<string, string>) => Promise<GraphQLResult>;

export type TargetState = 'EXISTS' | 'GONE' | 'FORBIDDEN' | 'UNAVAILABLE';

/** The reader a check reads for: its own access token and tenant. */
export interface CheckAuthority {
  /** The reader's access token; without one nothing is checked. */
  accessToken?: string | undefined;
  tenantId: string;
  requestId?: string | undefined;
}

export interface TargetCheckOptions {
  actions: ActionStore;
  call: GraphRawCall;
  log: Logger;
  /** How long a target found to exist is not asked about again. Default 30 s. */
  everyMs?: number;
  /** How long a read waits for its check. Default 1 s. */
  readWaitMs?: number;
  /** How long an approval waits for its check. Default 5 s. */
  approveWaitMs?: number;
}

/**
 * Targets that can be gone: a content or a crawl job, which their changes need. An agent cannot
 * be deleted, and a budget change creates the agent it names (setBudget), so one that does not
 * exist yet is no reason to refuse it; external levers are not the platform's.
 */
const CAN_BE_GONE = new Set(['Content', 'CrawlJob']);

const STATE_OF_CODE: Record<string, TargetState> = { ENTITY_NOT_FOUND: 'GONE', FORBIDDEN: 'FORBIDDEN', UNAUTHENTICATED: 'FORBIDDEN' };

/** Each checked action's target state, by the answer of InsightActionTargets. */
export function targetStates(result: GraphQLResult): Map<string, TargetState> {
  const states = new Map<string, TargetState>();
  const proposals = (result.data?.actionProposals ?? []) as { actionId: string; target: unknown }[];
  proposals.forEach((proposal, i) => {
    if (proposal.target !== null && proposal.target !== undefined) return void states.set(proposal.actionId, 'EXISTS');
    const error = result.errors?.find((e) => e.path?.[0] === 'actionProposals' && e.path[1] === i && e.path[2] === 'target');
    const code = error?.extensions?.code;
    states.set(proposal.actionId, (typeof code === 'string' && STATE_OF_CODE[code]) || 'UNAVAILABLE');
  });
  return states;
}

/** The promise's value, or undefined when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createTargetCheck(options: TargetCheckOptions) {
  const { actions, call, log } = options;
  const everyMs = options.everyMs ?? 30_000;

  /** Checks the claimed ones of `ids`; records and expires the gone ones. */
  async function check(authority: CheckAuthority, ids: readonly string[], force: boolean): Promise<{ states: Map<string, TargetState>; expired: Action[] }> {
    const claimed = await actions.claimTargetChecks(ids, force ? 0 : everyMs);
    if (!claimed.length) return { states: new Map(), expired: [] };
    const headers: Record<string, string> = { authorization: `Bearer ${authority.accessToken}`, 'x-svc-tenant-id': authority.tenantId };
    if (authority.requestId) headers['x-request-id'] = `${authority.requestId}.targets`;
    let states: Map<string, TargetState>;
    try {
      states = targetStates(await call('InsightActionTargets', { actionIds: claimed }, headers));
    } catch (error) {
      log.warn({ err: error, actions: claimed.length }, 'could not check the targets of proposals; they are asked again on a later read');
      return { states: new Map(claimed.map((id) => [id, 'UNAVAILABLE'])), expired: [] };
    }
    const gone = [...states].filter(([, state]) => state === 'GONE').map(([id]) => id);
    const expired = await actions.markTargetsGone(gone);
    if (expired.length) log.info({ actions: expired.map((a) => ({ actionId: a.id, targetType: a.targetType, targetId: a.targetId })) }, 'proposals whose targets no longer exist expired');
    return { states, expired };
  }

  const checkable = (a: Action) => a.status === 'PROPOSED' && !a.targetGoneAt && CAN_BE_GONE.has(a.targetType);

  return {
    /** `read` as it is once the due checks of its targets are done (or `readWaitMs` passed). */
    async fresh(authority: CheckAuthority, read: Action[]): Promise<Action[]> {
      const due = read.filter(checkable);
      if (!due.length || !authority.accessToken) return read;
      const checking = check(authority, due.map((a) => a.id), false).catch((error: unknown) => {
        log.warn({ err: error }, 'checking the targets of proposals failed');
        return undefined;
      });
      const done = await within(checking, options.readWaitMs ?? 1000);
      if (!done?.expired.length) return read;
      const now = new Map(done.expired.map((a) => [a.id, a]));
      return read.map((a) => now.get(a.id) ?? a);
    },

    /** The state of a PROPOSED action's target, asked now; UNAVAILABLE when no answer came within `approveWaitMs`. */
    async now(authority: CheckAuthority, action: Action): Promise<TargetState> {
      if (!checkable(action) || !authority.accessToken) return action.targetGoneAt ? 'GONE' : 'UNAVAILABLE';
      const checking = check(authority, [action.id], true).catch((error: unknown) => {
        log.warn({ err: error, actionId: action.id }, 'checking the target of a proposal being approved failed');
        return undefined;
      });
      const done = await within(checking, options.approveWaitMs ?? 5000);
      return done?.states.get(action.id) ?? 'UNAVAILABLE';
    },
  };
}

export type TargetCheck = ReturnType<typeof createTargetCheck>;
