import { SvcError, type Principal } from '@svc/kit';
import type { Action } from '../domain/action.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import { seesAll } from './jobs.js';

/** The stores the action use cases read. */
export interface ActionStores {
  actions: ActionStore;
  jobs: JobStore;
}

/** The site a content action changes: its reviewer must hold it. */
export function siteOfAction(action: Pick<Action, 'kind' | 'params'>): string | undefined {
  return action.kind.startsWith('CONTENT_') && typeof action.params.siteKey === 'string' ? action.params.siteKey : undefined;
}

/**
 * An action the caller may see in its tenant: reviewers see every action of the tenant, others
 * those of their own jobs. Anything else is NOT_FOUND, as if it did not exist.
 */
export async function visibleAction(deps: ActionStores, scope: { principal: Principal; tenantId: string }, id: string): Promise<Action> {
  const { principal } = scope;
  const action = await deps.actions.get(id);
  const missing = new SvcError('NOT_FOUND', `No action ${JSON.stringify(id)}`);
  if (!action || action.tenantId !== scope.tenantId) throw missing;
  if (!seesAll(principal)) {
    const job = await deps.jobs.get(action.jobId);
    if (job?.owner !== principal.subject) throw missing;
  }
  return action;
}
