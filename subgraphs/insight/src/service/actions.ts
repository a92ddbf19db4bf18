import { canUseSite, parseInput, SvcError, type Principal, type TenantRequest } from '@svc/kit';
import { paramsHash, type Action, type ActionStatus } from '../domain/action.js';
import { actionListSchema, decisionInputSchema } from '../domain/job-input.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import { scoped, seesAll } from './jobs.js';

export interface ExecutionQueue {
  /** Hands an approved action to a worker for execution (never on the request path). */
  enqueueExecution(actionId: string): Promise<void>;
}

/** The site a content action changes: its reviewer must hold it. */
export function siteOfAction(action: Pick<Action, 'kind' | 'params'>): string | undefined {
  return action.kind.startsWith('CONTENT_') && typeof action.params.siteKey === 'string' ? action.params.siteKey : undefined;
}

/**
 * Reviewers decide proposed actions of their own tenant (and, for content, of their own
 * sites): one decision per action, server-owned and audited (the token's subject, its grants,
 * comment, time, and the hash of the parameters decided on).
 */
export function createActionService(deps: { actions: ActionStore; jobs: JobStore; queue: ExecutionQueue }) {
  const { actions } = deps;

  async function visible(scope: { principal: Principal; tenantId: string }, id: string): Promise<Action> {
    const { principal } = scope;
    const action = await actions.get(id);
    const missing = new SvcError('NOT_FOUND', `No action ${JSON.stringify(id)}`);
    if (!action || action.tenantId !== scope.tenantId) throw missing;
    if (!seesAll(principal)) {
      const job = await deps.jobs.get(action.jobId);
      if (job?.owner !== principal.subject) throw missing;
    }
    return action;
  }

  async function decide(request: TenantRequest, id: string, status: 'APPROVED' | 'REJECTED', input: unknown): Promise<Action> {
    const scope = scoped(request, 'reviewer');
    const p = scope.principal;
    const body = parseInput(decisionInputSchema, input ?? {});
    const current = await visible(scope, id);
    const site = siteOfAction(current);
    if (site !== undefined && !canUseSite(p, site)) throw new SvcError('FORBIDDEN', `Action ${id} changes site ${JSON.stringify(site)}, which your token does not grant`);
    if (current.status === 'PROPOSED' && current.expiresAt.getTime() <= Date.now()) await actions.expireDue();
    // The decision is bound to the parameters as proposed: changed ones cannot be approved.
    if (paramsHash(current.kind, current.targetId, current.params) !== current.paramsHash) {
      throw new SvcError('CONFLICT', `Action ${id} cannot be ${status.toLowerCase()}: its parameters changed since it was proposed`, { details: { status: current.status } });
    }
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
      const why = now.status === 'PROPOSED' ? 'its parameters changed since it was proposed' : `it is ${now.status}`;
      throw new SvcError('CONFLICT', `Action ${id} cannot be ${status.toLowerCase()}: ${why}`, { details: { status: now.status } });
    }
    if (status === 'APPROVED') await deps.queue.enqueueExecution(id);
    return decided;
  }

  return {
    approve: (request: TenantRequest, id: string, input: unknown) => decide(request, id, 'APPROVED', input),
    reject: (request: TenantRequest, id: string, input: unknown) => decide(request, id, 'REJECTED', input),

    async get(request: TenantRequest, id: string): Promise<Action> {
      return visible(scoped(request, 'analyst', 'reviewer'), id);
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
