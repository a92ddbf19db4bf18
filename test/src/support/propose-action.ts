import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { paramsHash, type ActionKind } from '@svc/insight/domain/action';

/**
 * Inserts a PROPOSED action for a job, as the job's report would propose it (in the job's
 * tenant, bound to the hash of its parameters, expiring in an hour); returns its id.
 */
export async function proposeAction(db: pg.Client, jobId: string, kind: ActionKind, targetType: string, targetId: string, params: Record<string, unknown>): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into insight.action (id, tenant_id, job_id, kind, title, rationale, target_type, target_id, params, params_hash, expires_at)
     select $1, j.tenant_id, j.id, $3, $4, 'test', $5, $6, $7, $8, now() + interval '1 hour' from insight.job j where j.id = $2`,
    [id, jobId, kind, `${kind} ${targetId}`, targetType, targetId, JSON.stringify(params), paramsHash(kind, targetId, params)],
  );
  return id;
}
