import { SvcError, type TenantRequest } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStores } from './action-access.js';
import { decideAction, targetGone } from './decide-action.js';
import type { TargetCheck } from './target-check.js';

export interface ExecutionQueue {
  /** Hands an approved action to a worker for execution (never on the request path). */
  enqueueExecution(actionId: string): Promise<void>;
}

/**
 * A reviewer approves a PROPOSED action (see decide-action.ts); a worker then carries it out
 * once (worker/execute-approved-action.ts). 409 naming the status when it is decided or expired,
 * and naming its target when that no longer exists: the target is asked first (target-check.ts,
 * with the reviewer's credential), and a gone one expires the proposal. A target that cannot be
 * asked (its subgraph does not answer, or the reviewer may not read it) does not hold the
 * approval up: the change's own mutation refuses a gone target, and the execution waits for an
 * unavailable one.
 */
export async function approveAction(deps: ActionStores & { queue: ExecutionQueue; targets?: TargetCheck | undefined }, request: TenantRequest & { accessToken?: string | undefined; requestId?: string | undefined }, id: string, input: unknown): Promise<Action> {
  const decided = await decideAction(deps, request, id, 'APPROVED', input, async (current) => {
    if (!deps.targets) return;
    const state = await deps.targets.now({ accessToken: request.accessToken, tenantId: current.tenantId, requestId: request.requestId }, current);
    if (state === 'GONE') throw new SvcError('CONFLICT', `Action ${id} cannot be approved: ${targetGone(current)}; the proposal expired`, { slug: 'target-gone', details: { status: 'EXPIRED' } });
  });
  await deps.queue.enqueueExecution(id);
  return decided;
}
