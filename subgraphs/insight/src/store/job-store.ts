import { randomUUID } from 'node:crypto';
import { isUuid, type MikroORM } from '@svc/kit';
import { paramsHash } from '../domain/action.js';
import type { JobStatus } from '../domain/job.js';
import type { Authority, Job, NewStep, Step } from '../domain/job-records.js';
import type { ProposedAction, Report } from '../domain/report.js';
import { toStep, toJob, type Row } from './rows.js';

export interface NewJob {
  tenantId: string;
  owner: string;
  requesterId: string;
  prompt: string;
  idempotencyKey: string | null;
  authority: Authority;
  piiStrict: boolean;
}

export interface JobPage {
  jobs: Job[];
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A cursor is the last row's (createdAt, id), opaque to clients. */
function encodeCursor(job: Job): string {
  return Buffer.from(`${job.createdAt.toISOString()}|${job.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  return id && isUuid(id) && !Number.isNaN(createdAt.getTime()) ? { createdAt, id } : undefined;
}

/** The final step of a job: its new status, so the event stream ends with it. */
const STATUS_STEP = `insert into insight.job_step (job_id, seq, kind, title, detail, status, started_at) values (?, ?, 'STATUS', ?, ?, ?, now())
  on conflict (job_id, seq) do nothing`;

/** Jobs and their append-only step log in the `insight` schema. */
export function createJobStore(orm: MikroORM) {
  const em = () => orm.em.fork();

  async function get(id: string): Promise<Job | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await em().execute<Row[]>('select * from insight.job where id = ?', [id]);
    return row ? toJob(row) : undefined;
  }

  return {
    get,

    /**
     * Creates a PENDING job, or returns the owner's job with the same idempotency key
     * (`created` false) instead of a second one.
     */
    async create(input: NewJob): Promise<{ job: Job; created: boolean }> {
      const id = randomUUID();
      const rows = await em().execute<Row[]>(
        `insert into insight.job (id, tenant_id, owner, requester_id, prompt, idempotency_key, authority, pii_strict)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?)
         on conflict (tenant_id, owner, idempotency_key) do nothing returning *`,
        [id, input.tenantId, input.owner, input.requesterId, input.prompt, input.idempotencyKey, JSON.stringify(input.authority), input.piiStrict],
      );
      if (rows[0]) return { job: toJob(rows[0]), created: true };
      const [existing] = await em().execute<Row[]>('select * from insight.job where tenant_id = ? and owner = ? and idempotency_key = ?', [input.tenantId, input.owner, input.idempotencyKey]);
      return { job: toJob(existing!), created: false };
    },

    /** The tenant's jobs newest first; `owner` undefined lists everyone's in the tenant (reviewers). */
    async list(filter: { tenantId: string; owner?: string | undefined; status?: JobStatus | undefined; after?: { createdAt: Date; id: string } | undefined; limit: number }): Promise<JobPage> {
      const rows = await em().execute<Row[]>(
        `select * from insight.job
          where tenant_id = ? and (?::text is null or owner = ?)
            and (?::text is null or status = ?)
            and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?::uuid))
          order by created_at desc, id desc limit ?`,
        [filter.tenantId, filter.owner ?? null, filter.owner ?? null, filter.status ?? null, filter.status ?? null, filter.after?.createdAt ?? null, filter.after?.createdAt ?? null, filter.after?.id ?? null, filter.limit + 1],
      );
      const jobs = rows.slice(0, filter.limit).map(toJob);
      return { jobs, nextCursor: rows.length > filter.limit ? encodeCursor(jobs[jobs.length - 1]!) : null };
    },

    /** PENDING or RUNNING (a resumed job) → RUNNING under `worker`; undefined when the job is final. */
    async start(id: string, worker: string): Promise<Job | undefined> {
      const [row] = await em().execute<Row[]>(
        `update insight.job set status = 'RUNNING', worker = ?, attempts = attempts + 1, started_at = coalesce(started_at, now())
          where id = ? and status in ('PENDING', 'RUNNING') returning *`,
        [worker, id],
      );
      return row ? toJob(row) : undefined;
    },

    /**
     * Appends step `seq` and moves the job's progress in one statement. Returns false when the
     * step already exists (another worker wrote it: this one lost the job), the job is final, or
     * its cancellation was asked for (the caller reads the job to tell which).
     */
    async appendStep(jobId: string, seq: number, step: NewStep): Promise<boolean> {
      const rows = await em().execute<Row[]>(
        `with ins as (
           insert into insight.job_step (job_id, seq, kind, title, detail, tool_name, tool_call_id, tool_args, result, result_summary, status, started_at, duration_ms, tokens, cost_usd)
           select j.id, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?
             from insight.job j where j.id = ? and j.status in ('PENDING', 'RUNNING') and not j.cancel_requested
           on conflict (job_id, seq) do nothing returning seq
         ), progress as (
           update insight.job set steps_done = ?, current_step = ?, tokens = tokens + ?, cost_usd = cost_usd + ?
            where id = ? and exists (select 1 from ins) returning id
         )
         select seq from ins`,
        [
          seq, step.kind, step.title, step.detail ?? null, step.toolName ?? null, step.toolCallId ?? null,
          step.toolArgs === undefined || step.toolArgs === null ? null : JSON.stringify(step.toolArgs),
          step.result === undefined ? null : JSON.stringify(step.result),
          step.resultSummary ?? null, step.status ?? null, step.startedAt ?? new Date(), step.durationMs ?? null, step.tokens ?? null, step.costUsd ?? null,
          jobId,
          seq, step.title, step.tokens ?? 0, step.costUsd ?? 0, jobId,
        ],
      );
      return rows.length === 1;
    },

    /** Steps after `afterSeq`, in order (the SSE stream reads these). */
    async steps(jobId: string, afterSeq = 0, limit = 1000): Promise<Step[]> {
      if (!isUuid(jobId)) return [];
      const rows = await em().execute<Row[]>('select * from insight.job_step where job_id = ? and seq > ? order by seq limit ?', [jobId, afterSeq, limit]);
      return rows.map(toStep);
    },

    /**
     * Ends a RUNNING job COMPLETED with its report, its proposed actions, a final STATUS step
     * `finalSeq` and (with `notifyReviewers` and proposals) a reviewer notice, in one
     * transaction: a job has at most one report. Returns the action ids, or
     * undefined when the job was no longer RUNNING (cancelled, or finished by another worker).
     * A tenant has one pending proposal per change (kind, target and parameters): the same
     * change still waiting from an earlier analysis expires now, its outcome naming this one
     * (fresher figures; and two approvals would make the change twice, an EXTERNAL hand-off
     * too). A lock per change serialises two analyses completing at once.
     */
    async complete(jobId: string, report: Report, actions: readonly ProposedAction[], finalSeq: number, options: { ttlHours: number; notifyReviewers: boolean }): Promise<string[] | undefined> {
      return orm.em.fork().transactional(async (tx) => {
        const [row] = await tx.execute<Row[]>(
          `update insight.job set status = 'COMPLETED', report = ?::jsonb, finished_at = now(), current_step = null, steps_done = ?
            where id = ? and status = 'RUNNING' and not cancel_requested returning id, tenant_id`,
          [JSON.stringify(report), finalSeq, jobId],
        );
        if (!row) return undefined;
        await tx.execute(STATUS_STEP, [jobId, finalSeq, 'Completed', null, 'COMPLETED']);
        const ids: string[] = [];
        const hashes = actions.map((a) => paramsHash(a.kind, a.targetId, a.params));
        // Every change's lock first, in one order, so two analyses ending at once with the same changes cannot deadlock.
        for (const hash of [...new Set(hashes)].sort()) await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`insight.action:${String(row.tenant_id)}:${hash}`]);
        for (const [position, a] of actions.entries()) {
          const id = randomUUID();
          const hash = hashes[position]!;
          await tx.execute(
            `update insight.action set status = 'EXPIRED', expires_at = now(), outcome = ?::jsonb
              where tenant_id = ? and params_hash = ? and status = 'PROPOSED' and expires_at > now()`,
            [JSON.stringify({ reason: `Proposed again by a newer analysis (job ${jobId}) as action ${id}; decide on that one.`, supersededBy: id, jobId }), row.tenant_id, hash],
          );
          // One microsecond apart, so a job's actions list in the report's order (proposed_at, id).
          await tx.execute(
            `insert into insight.action (id, tenant_id, job_id, kind, title, rationale, target_type, target_id, target_name, params, params_hash, expected_impact, undoable, undo, finding, expires_at, proposed_at)
             select ?, j.tenant_id, j.id, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?, ?::jsonb, now() + make_interval(hours => ?), now() + make_interval(secs => ? / 1000000.0) from insight.job j where j.id = ?`,
            [id, a.kind, a.title, a.rationale, a.targetType, a.targetId, a.targetName ?? null, JSON.stringify(a.params), hash, a.expectedImpact ? JSON.stringify(a.expectedImpact) : null, a.undoable ?? null, a.undo ?? null, a.finding ? JSON.stringify(a.finding) : null, options.ttlHours, position, jobId],
          );
          ids.push(id);
        }
        // The reviewers' webhook notice is written with the proposals, so a crash cannot lose it.
        if (options.notifyReviewers && ids.length > 0) await tx.execute('insert into insight.review_notice (job_id) values (?) on conflict do nothing', [jobId]);
        return ids;
      });
    },

    /** Ends a job FAILED or CANCELLED with a reason and a final STATUS step; false when it was already final. */
    async end(jobId: string, status: 'FAILED' | 'CANCELLED', error: string, finalSeq: number): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        const rows = await tx.execute<Row[]>(
          `update insight.job set status = ?, error = ?, finished_at = now(), current_step = null, steps_done = greatest(steps_done, ?)
            where id = ? and status in ('PENDING', 'RUNNING') returning id`,
          [status, error, finalSeq, jobId],
        );
        if (rows.length === 0) return false;
        await tx.execute(STATUS_STEP, [jobId, finalSeq, status === 'FAILED' ? 'Failed' : 'Cancelled', error, status]);
        return true;
      });
    },

    /** Asks a RUNNING job to stop at its next step; a PENDING one is cancelled at once. */
    async requestCancel(jobId: string): Promise<Job | undefined> {
      await orm.em.fork().transactional(async (tx) => {
        const rows = await tx.execute<Row[]>(`update insight.job set status = 'CANCELLED', error = 'Cancelled on request', finished_at = now() where id = ? and status = 'PENDING' returning steps_done`, [jobId]);
        if (rows[0]) await tx.execute(STATUS_STEP, [jobId, Number(rows[0].steps_done) + 1, 'Cancelled', 'Cancelled on request', 'CANCELLED']);
      });
      await em().execute(`update insight.job set cancel_requested = true where id = ? and status = 'RUNNING'`, [jobId]);
      return get(jobId);
    },

    /** Jobs still PENDING `olderThanMs` after creation: their queue entry was lost (a crash between the two writes). */
    async waiting(olderThanMs: number): Promise<string[]> {
      const rows = await em().execute<Row[]>(`select id from insight.job where status = 'PENDING' and created_at < now() - make_interval(secs => ?) order by created_at limit 100`, [olderThanMs / 1000]);
      return rows.map((r) => String(r.id));
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
