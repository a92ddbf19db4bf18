import { isUuid, type MikroORM } from '@svc/kit';
import type { WebhookEvent } from '../domain/crawl-job-input.js';
import { date, json, type Row } from './columns.js';


export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['PENDING', 'DELIVERED', 'FAILED'];

/** One webhook delivery of an execution's event (the outbox row; FAILED ones are the dead letters). */
export interface WebhookDelivery {
  id: string;
  tenantId: string;
  jobId: string;
  executionId: string;
  event: WebhookEvent;
  url: string;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

function toDelivery(r: Row): WebhookDelivery {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    jobId: String(r.job_id),
    executionId: String(r.execution_id),
    event: r.event as WebhookEvent,
    url: String(r.url),
    payload: json<Record<string, unknown>>(r.payload),
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    lastError: (r.last_error as string | null) ?? null,
    nextAttemptAt: r.status === 'PENDING' ? date(r.next_attempt_at) : null,
    deliveredAt: date(r.delivered_at),
    createdAt: new Date(String(r.created_at)),
  };
}

/**
 * The crawl webhook outbox (rows are queued by job-store `finish`): claiming a due delivery for
 * one attempt (a lease, so a nudge and a sweep never post the same attempt twice, and a worker
 * that dies mid-attempt leaves it to another once the lease ends), recording attempts, and
 * listing a job's deliveries.
 */
export function createWebhookStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** Takes a due PENDING delivery for `leaseMs`, with its job's signing secret; undefined when not due or taken. */
    async claim(id: string, leaseMs: number): Promise<{ delivery: WebhookDelivery; secret: string | null } | undefined> {
      if (!isUuid(id)) return undefined;
      const rows = await em().execute<Row[]>(
        `update crawl.webhook_delivery d set lease_until = now() + make_interval(secs => ?)
          where d.id = ? and d.status = 'PENDING' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
          returning d.*, (select j.webhook_secret from crawl.crawl_job j where j.tenant_id = d.tenant_id and j.id = d.job_id) as secret`,
        [leaseMs / 1000, id],
      );
      return rows[0] ? { delivery: toDelivery(rows[0]), secret: (rows[0].secret as string | null) ?? null } : undefined;
    },

    async recordAttempt(id: string, attempt: { attempts: number; status: DeliveryStatus; lastError: string | null; nextAttemptAt: Date | null }): Promise<void> {
      await em().execute(
        `update crawl.webhook_delivery set attempts = ?, status = ?, last_error = ?, next_attempt_at = coalesce(?, next_attempt_at), lease_until = null,
                delivered_at = case when ? = 'DELIVERED' then now() else delivered_at end
          where id = ?`,
        [attempt.attempts, attempt.status, attempt.lastError, attempt.nextAttemptAt, attempt.status, id],
      );
    },

    /** Ids of PENDING deliveries due now and not leased, oldest first. */
    async due(limit: number): Promise<string[]> {
      const rows = await em().execute<Row[]>(
        `select id from crawl.webhook_delivery where status = 'PENDING' and next_attempt_at <= now() and (lease_until is null or lease_until < now()) order by next_attempt_at limit ?`,
        [limit],
      );
      return rows.map((r) => String(r.id));
    },

    /** A job's deliveries, newest first, optionally of one status. */
    async ofJob(tenantId: string, jobId: string, status: DeliveryStatus | null, limit: number): Promise<WebhookDelivery[]> {
      if (!isUuid(jobId)) return [];
      const rows = await em().execute<Row[]>(
        `select * from crawl.webhook_delivery where tenant_id = ? and job_id = ? and (?::text is null or status = ?) order by created_at desc, event limit ?`,
        [tenantId, jobId, status, status, limit],
      );
      return rows.map(toDelivery);
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
