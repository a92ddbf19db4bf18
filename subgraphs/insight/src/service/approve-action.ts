import type { TenantRequest } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStores } from './action-access.js';
import { decideAction } from './decide-action.js';

export interface ExecutionQueue {
  /** Hands an approved action to a worker for execution (never on the request path). */
  enqueueExecution(actionId: string): Promise<void>;
}

/**
 * A reviewer approves a PROPOSED action (see decide-action.ts); a worker then carries it out
 * once (worker/execute-approved-action.ts). 409 naming the status when it is decided or expired.
 */
export async function approveAction(deps: ActionStores & { queue: ExecutionQueue }, request: TenantRequest, id: string, input: unknown): Promise<Action> {
  const decided = await decideAction(deps, request, id, 'APPROVED', input);
  await deps.queue.enqueueExecution(id);
  return decided;
}
