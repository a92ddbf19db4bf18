import { parseInput, requireRole, SvcError, type Principal } from '@svc/kit';
import { paramsHash, type ActionStatus } from '../domain/action.js';
import { actionListSchema, decisionInputSchema } from '../domain/job-input.js';
import type { Action } from '../domain/job-records.js';
import type { ActionStore } from '../store/action-store.js';
import type { JobStore } from '../store/job-store.js';
import { seesAll } from './jobs.js';

export interface ExecutionQueue {
  /** Hands an approved action to a worker for execution (never on the request path). */
  enqueueExecution(actionId: string): Promise<void>;
}

/**
 * Reviewers decide proposed actions: one decision per action, server-owned and audited
 * (who, the token's subject, comment, time, and the hash of the parameters decided on).
 */
export function createActionService(deps: { actions: ActionStore; jobs: JobStore; queue: ExecutionQueue }) {
  const { actions } = deps;

  async function visible(principal: Principal, id: string): Promise<Action> {
    const action = await actions.get(id);
    if (action && !seesAll(principal)) {
      const job = await deps.jobs.get(action.jobId);
      if (job?.owner !== principal.subject) throw new SvcError('NOT_FOUND', `No action ${JSON.stringify(id)}`);
    }
    if (!action) throw new SvcError('NOT_FOUND', `No action ${JSON.stringify(id)}`);
    return action;
  }

  async function decide(principal: Principal | undefined, id: string, status: 'APPROVED' | 'REJECTED', input: unknown): Promise<Action> {
    const p = requireRole(principal, 'reviewer');
    const body = parseInput(decisionInputSchema, input ?? {});
    const current = await visible(p, id);
    if (current.status === 'PROPOSED' && current.expiresAt.getTime() <= Date.now()) await actions.expireDue();
    // The decision is bound to the parameters as proposed: changed ones cannot be approved.
    if (paramsHash(current.kind, current.targetId, current.params) !== current.paramsHash) {
      throw new SvcError('CONFLICT', `Action ${id} cannot be ${status.toLowerCase()}: its parameters changed since it was proposed`, { details: { status: current.status } });
    }
    const decided = await actions.decide(id, {
      params: current.params,
      status,
      reviewedBy: body.reviewedBy ?? p.subject,
      reviewerSubject: p.subject,
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
    approve: (principal: Principal | undefined, id: string, input: unknown) => decide(principal, id, 'APPROVED', input),
    reject: (principal: Principal | undefined, id: string, input: unknown) => decide(principal, id, 'REJECTED', input),

    async get(principal: Principal | undefined, id: string): Promise<Action> {
      return visible(requireRole(principal, 'analyst', 'reviewer'), id);
    },

    async list(principal: Principal | undefined, filter: unknown): Promise<Action[]> {
      const p = requireRole(principal, 'analyst', 'reviewer');
      const q = parseInput(actionListSchema, filter ?? {});
      return actions.list({ status: q.status as ActionStatus | undefined, jobId: q.jobId, owner: seesAll(p) ? undefined : p.subject, limit: q.first });
    },

    async ofJob(jobId: string): Promise<Action[]> {
      return actions.ofJob(jobId);
    },
  };
}

export type ActionService = ReturnType<typeof createActionService>;
