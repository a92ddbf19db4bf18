import { parseInput, type TenantRequest } from '@svc/kit';
import type { Action, ActionStatus } from '../domain/action.js';
import { actionListSchema } from '../domain/job-input.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import { visibleAction } from './action-access.js';
import { approveAction, type ExecutionQueue } from './approve-action.js';
import { scoped, seesAll } from './jobs.js';
import { rejectAction } from './reject-action.js';

/**
 * Proposed actions as the API offers them: read within the tenant (reviewers every action,
 * analysts those of their own jobs), approved (approve-action.ts) or rejected (reject-action.ts).
 */
export function createActionService(deps: { actions: ActionStore; jobs: JobStore; queue: ExecutionQueue }) {
  const { actions } = deps;
  return {
    approve: (request: TenantRequest, id: string, input: unknown) => approveAction(deps, request, id, input),
    reject: (request: TenantRequest, id: string, input: unknown) => rejectAction(deps, request, id, input),

    async get(request: TenantRequest, id: string): Promise<Action> {
      return visibleAction(deps, scoped(request, 'analyst', 'reviewer'), id);
    },

    async list(request: TenantRequest, filter: unknown): Promise<Action[]> {
      const { principal: p, tenantId } = scoped(request, 'analyst', 'reviewer');
      const q = parseInput(actionListSchema, filter ?? {});
      return actions.list({ tenantId, status: q.status as ActionStatus | undefined, jobId: q.jobId, owner: seesAll(p) ? undefined : p.subject, limit: q.first });
    },

    async ofJob(jobId: string): Promise<Action[]> {
      return actions.ofJob(jobId);
    },
  };
}

export type ActionService = ReturnType<typeof createActionService>;
