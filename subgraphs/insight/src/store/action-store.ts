import { isUuid, nativeSql, type MikroORM } from '@svc/kit';
import type { ActionStatus } from '../domain/action.js';
import type { Action } from '../domain/action.js';
import { toAction, type Row } from './rows.js';

export interface DecisionInput {
  status: 'APPROVED' | 'REJECTED';
  reviewedBy: string;
  reviewerSubject: string;
  reviewerGrants: { tenants: readonly string[] | '*'; sites: readonly string[] | '*' };
  comment: string | null;
  /** The parameters' hash the reviewer saw; the decision holds only while it is still the action's. */
  paramsHash: string;
  /** The parameters as read: the decision holds only while they are unchanged. */
  params: Record<string, unknown>;
}

/** Proposed actions, their one decision and their one outcome. */
export function createActionStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  // A page of actions is read for every action list and every federated page of action cards: prepared, on the pool directly.
  const page = nativeSql(orm).prepared<Row>(
    `select a.* from insight.action a join insight.job j on j.id = a.job_id
      where a.tenant_id = $1 and ($2::text is null or a.status = $2) and ($3::uuid is null or a.job_id = $3::uuid) and ($4::text is null or j.owner = $4)
        and ($6::uuid[] is null or a.id = any($6::uuid[]))
      order by a.proposed_at desc, a.id limit $5`,
  );

  async function get(id: string): Promise<Action | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await em().execute<Row[]>('select * from insight.action where id = ?', [id]);
    return row ? toAction(row) : undefined;
  }

  /** PROPOSED actions past their time become EXPIRED; returns how many. */
  async function expireDue(): Promise<number> {
    const rows = await em().execute<Row[]>(`update insight.action set status = 'EXPIRED' where status = 'PROPOSED' and expires_at <= now() returning id`);
    return rows.length;
  }

  return {
    get,

    /** A page of the tenant's actions, newest first; `ids` (UUIDs) narrows it to those actions. */
    async list(filter: { tenantId: string; status?: ActionStatus | undefined; jobId?: string | undefined; owner?: string | undefined; ids?: readonly string[] | undefined; limit: number }): Promise<Action[]> {
      const rows = await page([filter.tenantId, filter.status ?? null, filter.jobId ?? null, filter.owner ?? null, filter.limit, filter.ids ? `{${filter.ids.join(',')}}` : null]);
      return rows.map(toAction);
    },

    /**
     * Claims the target checks of those of `ids` that are PROPOSED, not known gone, and not
     * checked within `everyMs` (0: any not known gone): one UPDATE, so of concurrent reads one
     * checks each action. Returns the ids claimed.
     */
    async claimTargetChecks(ids: readonly string[], everyMs: number): Promise<string[]> {
      const valid = ids.filter(isUuid);
      if (!valid.length) return [];
      const rows = await em().execute<Row[]>(
        `update insight.action set target_checked_at = now()
          where id = any(?::uuid[]) and status = 'PROPOSED' and target_gone_at is null and (target_checked_at is null or target_checked_at <= now() - make_interval(secs => ?))
          returning id`,
        [`{${valid.join(',')}}`, everyMs / 1000],
      );
      return rows.map((r) => String(r.id));
    },

    /**
     * Records that the targets of these PROPOSED actions no longer exist: each is due at once and
     * the expiry (the sweep's own statement) moves it to EXPIRED, with the reason as its outcome.
     * Returns the actions as they now are.
     */
    async markTargetsGone(ids: readonly string[]): Promise<Action[]> {
      if (!ids.length) return [];
      const list = `{${ids.join(',')}}`;
      await em().execute(
        `update insight.action set target_gone_at = now(), expires_at = least(expires_at, now()),
            outcome = jsonb_build_object('reason', 'Its target no longer exists: the proposal expired and cannot be approved')
          where id = any(?::uuid[]) and status = 'PROPOSED' and target_gone_at is null`,
        [list],
      );
      await expireDue();
      const rows = await em().execute<Row[]>('select * from insight.action where id = any(?::uuid[])', [list]);
      return rows.map(toAction);
    },

    async ofJob(jobId: string): Promise<Action[]> {
      const rows = await em().execute<Row[]>('select * from insight.action where job_id = ? order by proposed_at, id', [jobId]);
      return rows.map(toAction);
    },

    /**
     * Records the one decision of a PROPOSED, unexpired action whose parameters are still the
     * ones reviewed: a single conditional UPDATE, so of any number of simultaneous decisions
     * exactly one wins. Undefined when this decision lost (the caller reports the current state).
     */
    async decide(id: string, input: DecisionInput): Promise<Action | undefined> {
      const [row] = await em().execute<Row[]>(
        `update insight.action set status = ?, reviewed_by = ?, reviewer_subject = ?, reviewer_grants = ?::jsonb, review_comment = ?, decided_at = now(), decision_hash = params_hash
          where id = ? and status = 'PROPOSED' and expires_at > now() and params_hash = ? and params = ?::jsonb returning *`,
        [input.status, input.reviewedBy, input.reviewerSubject, JSON.stringify(input.reviewerGrants), input.comment, id, input.paramsHash, JSON.stringify(input.params)],
      );
      return row ? toAction(row) : undefined;
    },

    expireDue,

    /** Counts an execution attempt of an APPROVED action; undefined when it is no longer APPROVED. */
    async beginExecution(id: string): Promise<Action | undefined> {
      const [row] = await em().execute<Row[]>(`update insight.action set execution_attempts = execution_attempts + 1 where id = ? and status = 'APPROVED' returning *`, [id]);
      return row ? toAction(row) : undefined;
    },

    /** The outcome, once: only an APPROVED action moves to EXECUTED or EXECUTION_FAILED. */
    async recordOutcome(id: string, status: 'EXECUTED' | 'EXECUTION_FAILED', outcome: Record<string, unknown>): Promise<Action | undefined> {
      const [row] = await em().execute<Row[]>(
        `update insight.action set status = ?, outcome = ?::jsonb, executed_at = now() where id = ? and status = 'APPROVED' returning *`,
        [status, JSON.stringify(outcome), id],
      );
      return row ? toAction(row) : undefined;
    },

    /** Actions APPROVED more than `olderThanMs` ago without an outcome (their queue entry was lost); handed-off EXTERNAL ones wait for their delivery instead. */
    async awaitingExecution(olderThanMs: number): Promise<string[]> {
      const rows = await em().execute<Row[]>(`select a.id from insight.action a where a.status = 'APPROVED' and a.decided_at < now() - make_interval(secs => ?)
          and not exists (select 1 from insight.external_delivery d where d.action_id = a.id) limit 100`, [olderThanMs / 1000]);
      return rows.map((r) => String(r.id));
    },
  };
}

export type ActionStore = ReturnType<typeof createActionStore>;
