import { canUseSite, parseInput, SvcError, type TenantRequest } from '@svc/kit';
import { paramsHash, type Action } from '../domain/action.js';
import { decisionInputSchema } from '../domain/job-input.js';
import { type ActionStores, siteOfAction, visibleAction } from './action-access.js';
import { scoped } from './jobs.js';

/** Why a proposal whose target is gone cannot be decided, naming the target by its last known name. */
export function targetGone(action: Pick<Action, 'targetName' | 'targetType' | 'targetId'>): string {
  const id = `${action.targetType} ${action.targetId}`;
  return `its target, ${action.targetName ? `${action.targetName} (${id})` : id}, no longer exists`;
}

/**
 * A reviewer's decision on a proposed action of their own tenant (and, for content, of their
 * own sites): one decision per action, server-owned and audited (the token's subject, its
 * grants, comment, time, and the hash of the parameters decided on). approve-action.ts and
 * reject-action.ts are its two uses.
 */
export async function decideAction(deps: ActionStores, request: TenantRequest, id: string, status: 'APPROVED' | 'REJECTED', input: unknown, before?: (current: Action) => Promise<void>): Promise<Action> {
  const { actions } = deps;
  const scope = scoped(request, 'reviewer');
  const p = scope.principal;
  const body = parseInput(decisionInputSchema, input ?? {});
  const current = await visibleAction(deps, scope, id);
  const site = siteOfAction(current);
  if (site !== undefined && !canUseSite(p, site)) throw new SvcError('FORBIDDEN', `Action ${id} changes site ${JSON.stringify(site)}, which your token does not grant`);
  if (current.status === 'PROPOSED' && current.expiresAt.getTime() <= Date.now()) await actions.expireDue();
  // The decision is bound to the parameters as proposed: changed ones cannot be approved.
  if (paramsHash(current.kind, current.targetId, current.params) !== current.paramsHash) {
    throw new SvcError('CONFLICT', `Action ${id} cannot be ${status.toLowerCase()}: its parameters changed since it was proposed`, { details: { status: current.status } });
  }
  // The use case's own check of a decision it may still refuse (approve-action.ts: the target still exists).
  if (before && current.status === 'PROPOSED') await before(current);
  const decided = await actions.decide(id, {
    params: current.params,
    status,
    // Who decided is the authenticated subject, whatever name the client sends.
    reviewedBy: p.subject,
    reviewerSubject: p.subject,
    reviewerGrants: { tenants: p.tenants, sites: p.sites },
    comment: body.comment ?? null,
    paramsHash: current.paramsHash,
  });
  if (!decided) {
    const now = (await actions.get(id))!;
    const why = now.status === 'PROPOSED' ? 'its parameters changed since it was proposed' : now.targetGoneAt ? `it is ${now.status}: ${targetGone(now)}` : `it is ${now.status}`;
    throw new SvcError('CONFLICT', `Action ${id} cannot be ${status.toLowerCase()}: ${why}`, { details: { status: now.status } });
  }
  return decided;
}
