import { hasRole, parseInput, requireRole, SvcError, tenantOf, type Principal, type Role, type TenantRequest } from '@svc/kit';
import type { JobStatus } from '../domain/job.js';
import type { Job, Step } from '../domain/job-records.js';
import { idempotencyKeySchema, jobInputSchema, jobListSchema } from '../domain/job-input.js';
import { decodeCursor, type JobPage, type JobStore } from '../store/job-store.js';

export interface JobQueue {
  /** Hands a job to a worker (durably; a job left PENDING is re-queued by the sweeper). */
  enqueue(jobId: string): Promise<void>;
}

export interface JobServiceDeps {
  store: JobStore;
  queue: JobQueue;
  /** Prompts of these requesters go to the gateway with piiStrict. */
  piiStrict: (principal: Principal) => boolean;
}

/**
 * Every job belongs to the tenant it was created in and is reached only through it (the
 * `X-Svc-Tenant-Id` rule). Within a tenant analysts see their own jobs; reviewers read every
 * job of the tenant (they decide on proposals from anyone's report) and admins may do everything.
 */
export const seesAll = (p: Principal) => hasRole(p, 'reviewer');

/** The caller's principal (with one of `roles`) and the tenant the call acts for. */
export function scoped(request: TenantRequest, ...roles: Role[]): { principal: Principal; tenantId: string } {
  const principal = requireRole(request.principal, ...roles);
  return { principal, tenantId: tenantOf(request) };
}

export function createJobService(deps: JobServiceDeps) {
  const { store } = deps;

  function visible(scope: { principal: Principal; tenantId: string }, job: Job | undefined, id: string): Job {
    const { principal } = scope;
    if (!job || job.tenantId !== scope.tenantId || (!seesAll(principal) && job.owner !== principal.subject)) throw new SvcError('NOT_FOUND', `No analysis job ${JSON.stringify(id)}`);
    return job;
  }

  async function readable(request: TenantRequest, id: string): Promise<Job> {
    return visible(scoped(request, 'analyst', 'reviewer'), await store.get(id), id);
  }

  return {
    /** A PENDING job, queued; the same idempotency key gives back the same job. */
    async create(request: TenantRequest, input: unknown, idempotencyKey: string | undefined): Promise<{ job: Job; created: boolean }> {
      const { principal: p, tenantId } = scoped(request, 'analyst');
      const body = parseInput(jobInputSchema, input);
      const key = idempotencyKey === undefined ? null : parseInput(idempotencyKeySchema, idempotencyKey, '/idempotencyKey');
      const result = await store.create({
        tenantId,
        owner: p.subject,
        requesterId: body.requesterId ?? p.subject,
        prompt: body.prompt,
        idempotencyKey: key,
        authority: { subject: p.subject, roles: p.roles, tenants: p.tenants, sites: p.sites },
        piiStrict: deps.piiStrict(p),
      });
      if (result.created) await deps.queue.enqueue(result.job.id);
      return result;
    },

    get: readable,

    async steps(request: TenantRequest, id: string, afterSeq = 0): Promise<Step[]> {
      await readable(request, id);
      return store.steps(id, afterSeq);
    },

    /**
     * A reader of one job's progress for a stream: visibility is checked once, here, and the
     * reader then costs one query per poll (the stream polls several times a second).
     */
    async follow(request: TenantRequest, id: string): Promise<{ stepsAfter(after: number): Promise<Step[]>; status(): Promise<JobStatus | undefined> }> {
      await readable(request, id);
      return { stepsAfter: (after) => store.steps(id, after), status: async () => (await store.get(id))?.status };
    },

    /** The caller's jobs of the tenant newest first (every job of the tenant for reviewers), by cursor. */
    async list(request: TenantRequest, filter: unknown): Promise<JobPage> {
      const { principal: p, tenantId } = scoped(request, 'analyst', 'reviewer');
      const q = parseInput(jobListSchema, filter);
      const after = q.after === undefined ? undefined : decodeCursor(q.after);
      if (q.after !== undefined && !after) throw new SvcError('BAD_USER_INPUT', `after ${JSON.stringify(q.after)} is not a cursor this API returned`, { errors: [{ pointer: '/after', detail: 'not a valid cursor' }] });
      return store.list({ tenantId, owner: seesAll(p) ? undefined : p.subject, status: q.status as JobStatus | undefined, after, limit: q.first });
    },

    /** PENDING → CANCELLED at once; RUNNING stops at its next step. 409 once final. */
    async cancel(request: TenantRequest, id: string): Promise<Job> {
      const job = visible(scoped(request, 'analyst'), await store.get(id), id);
      if (job.status !== 'PENDING' && job.status !== 'RUNNING') throw new SvcError('CONFLICT', `Job ${id} is already ${job.status}`, { details: { status: job.status } });
      return (await store.requestCancel(id))!;
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
