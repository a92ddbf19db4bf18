import type { TenantRequest } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStores } from './action-access.js';
import { decideAction } from './decide-action.js';

/** A reviewer rejects a PROPOSED action (see decide-action.ts): it is never carried out. 409 naming the status when it is decided or expired. */
export async function rejectAction(deps: ActionStores, request: TenantRequest, id: string, input: unknown): Promise<Action> {
  return decideAction(deps, request, id, 'REJECTED', input);
}
