import { isUuid, parseInput, validationError, type TenantRequest } from '@svc/kit';
import type { Action, ActionStatus } from '../domain/action.js';
import { actionListSchema } from '../domain/job-input.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import { visibleAction } from './action-access.js';
import { approveAction, type ExecutionQueue } from './approve-action.js';
import { scoped, seesAll } from './jobs.js';
import { rejectAction } from './reject-action.js';
import type { TargetCheck } from './target-check.js';

/**
 * Proposed actions as the API offers them: read within the tenant (reviewers every action,
 * analysts those of their own jobs), approved (approve-action.ts) or rejected (reject-action.ts).
 */
/** A request as the action use cases read it: its credential and tenant, and its access token and id to ask other subgraphs with. */
export type ActionRequest = TenantRequest & { accessToken?: string | undefined; requestId?: string | undefined };

/** At most this many actions by id in one list. */
const MAX_IDS = 200;

export function createActionService(deps: { actions: ActionStore; jobs: JobStore; queue: ExecutionQueue; targets?: TargetCheck | undefined }) {
  const { actions, targets } = deps;
  /** The actions as read, once the due checks of their targets are done (target-check.ts). */
  const fresh = (request: ActionRequest, tenantId: string, read: Action[]) => (targets ? targets.fresh({ accessToken: request.accessToken, tenantId, requestId: request.requestId }, read) : read);
  return {
    approve: (request: ActionRequest, id: string, input: unknown) => approveAction(deps, request, id, input),
    reject: (request: TenantRequest, id: string, input: unknown) => rejectAction(deps, request, id, input),

    async get(request: ActionRequest, id: string): Promise<Action> {
      const scope = scoped(request, 'analyst', 'reviewer');
      return (await fresh(request, scope.tenantId, [await visibleAction(deps, scope, id)]))[0]!;
    },

    /** A page of the tenant's actions by status and job; `ids` narrows it to those actions (at most 200). */
    async list(request: ActionRequest, filter: unknown, ids?: readonly string[]): Promise<Action[]> {
      const { principal: p, tenantId } = scoped(request, 'analyst', 'reviewer');
      const q = parseInput(actionListSchema, filter ?? {});
      if (ids && (ids.length > MAX_IDS || !ids.every(isUuid))) throw validationError([{ pointer: '/actionIds', detail: `must be at most ${MAX_IDS} action ids (UUIDs)` }]);
      const page = await actions.list({ tenantId, status: q.status as ActionStatus | undefined, jobId: q.jobId, owner: seesAll(p) ? undefined : p.subject, ids, limit: q.first });
      return fresh(request, tenantId, page);
    },

    /** A job's actions, for a reader the job was shown to (so in the reader's tenant). */
    async ofJob(request: ActionRequest, jobId: string): Promise<Action[]> {
      const read = await actions.ofJob(jobId);
      return read.length ? fresh(request, read[0]!.tenantId, read) : read;
    },
  };
}

export type ActionService = ReturnType<typeof createActionService>;
