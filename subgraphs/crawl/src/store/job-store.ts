import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { applyOnce, isUuid, nativeSql, type IdempotentCall, type MikroORM } from '@svc/kit';
import type { CrawlJobInput, CrawlSelectors, RagConfig, WebhookEvent } from '../domain/crawl-job-input.js';
import type { DemoCrawl } from '../domain/demo-crawl.js';
import type { StoredFingerprints } from '../domain/fingerprint.js';
import { MAX_BLOCKED_PAGES_KEPT, type BlockedPage, type ChangedItem, type GoneItem, type ExecutionRow, type ExecutionStatus, type ItemDay, type JobRow, type JobStatus, type SelectorVersionRow } from '../domain/crawl-job.js';
import { date, json, type Row } from './columns.js';


function toJob(r: Row): JobRow {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    jobName: String(r.job_name),
    targetUrl: String(r.target_url),
    cronExpression: (r.cron_expression as string | null) ?? null,
    runAt: date(r.run_at),
    selectors: json<CrawlSelectors>(r.selectors),
    selectorVersion: Number(r.selector_version),
    fingerprints: r.fingerprints ? json<StoredFingerprints>(r.fingerprints) : null,
    enableRagSync: r.enable_rag_sync === true,
    ragConfig: r.rag_config ? json<RagConfig>(r.rag_config) : null,
    robotsTxt: r.robots_txt === 'ignore' ? 'ignore' : 'respect',
    dayFirst: r.day_first !== false,
    webhook: r.webhook ? json<{ url: string; events: WebhookEvent[] }>(r.webhook) : null,
    volatileSelectors: r.volatile_selectors ? json<string[]>(r.volatile_selectors) : [],
    status: r.status as JobStatus,
    nextRunAt: date(r.next_run_at),
    createdAt: new Date(String(r.created_at)),
    updatedAt: new Date(String(r.updated_at)),
  };
}

/**
 * When each webhook event applies to an ended execution `h` (a crawl_execution row joined with
 * its job): completed and failed by status; blocked when the run was BLOCKED or found blocked
 * pages; changed when a completed run found items changed or gone, or new ones after the job's
 * first completed run.
 */
const WEBHOOK_EVENT_RULES = `
  (ev.event = 'completed' and h.status = 'COMPLETED') or
  (ev.event = 'failed' and h.status = 'FAILED') or
  (ev.event = 'blocked' and (h.status = 'BLOCKED' or h.blocked_count > 0)) or
  (ev.event = 'changed' and h.status = 'COMPLETED' and (h.changed_count > 0 or h.gone_count > 0 or (h.new_count > 0 and exists (
    select 1 from crawl.crawl_execution p where p.tenant_id = h.tenant_id and p.job_id = h.job_id and p.status = 'COMPLETED' and p.id <> h.id))))`;

const FINISH_SQL = `
with done as (
  update crawl.crawl_execution set status = ?, finished_at = now(), elapsed_ms = greatest(0, (extract(epoch from now() - coalesce(started_at, queued_at)) * 1000)::int),
         total_count = ?, self_healing_occurred = ?, error = ?, blocked_count = ?, blocked = ?::jsonb
   where tenant_id = ? and id = ?
  returning *
),
events as (
  select h.*, j.job_name, j.webhook, ev.event
    from done h
    join crawl.crawl_job j on j.tenant_id = h.tenant_id and j.id = h.job_id
   cross join (values ('completed'), ('failed'), ('blocked'), ('changed')) as ev(event)
   where j.webhook is not null and (j.webhook -> 'events') @> jsonb_build_array(ev.event) and (${WEBHOOK_EVENT_RULES})
)
insert into crawl.webhook_delivery (id, tenant_id, job_id, execution_id, event, url, payload)
select gen_random_uuid(), h.tenant_id, h.job_id, h.id, h.event, h.webhook ->> 'url',
       jsonb_build_object(
         'event', 'crawl.' || h.event, 'jobId', h.job_id, 'jobName', h.job_name, 'executionId', h.id, 'status', h.status,
         'startedAt', h.started_at, 'finishedAt', h.finished_at, 'totalCount', h.total_count, 'error', h.error,
         'blockedCount', h.blocked_count, 'blockedPages', h.blocked,
         'changes', jsonb_build_object('new', h.new_count, 'changed', h.changed_count, 'unchanged', h.unchanged_count, 'gone', h.gone_count),
         'changedItems', h.changed_sample, 'goneItems', h.gone)
  from events h
on conflict (execution_id, event) do nothing
returning id`;

function toExecution(r: Row): ExecutionRow {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    jobId: String(r.job_id),
    status: r.status as ExecutionStatus,
    allocatedAgent: (r.allocated_agent as string | null) ?? null,
    queuedAt: new Date(String(r.queued_at)),
    startedAt: date(r.started_at),
    finishedAt: date(r.finished_at),
    elapsedMs: r.elapsed_ms === null || r.elapsed_ms === undefined ? null : Number(r.elapsed_ms),
    totalCount: Number(r.total_count ?? 0),
    selfHealingOccurred: r.self_healing_occurred === true,
    error: (r.error as string | null) ?? null,
    blockedCount: Number(r.blocked_count ?? 0),
    blockedPages: r.blocked ? json<BlockedPage[]>(r.blocked) : [],
    changes: { new: Number(r.new_count ?? 0), changed: Number(r.changed_count ?? 0), unchanged: Number(r.unchanged_count ?? 0), gone: Number(r.gone_count ?? 0) },
    changedItems: r.changed_sample ? json<ChangedItem[]>(r.changed_sample) : [],
    goneItems: r.gone ? json<GoneItem[]>(r.gone) : [],
  };
}

const NO_JOB = Symbol('no such job');

async function jobIn(em: EntityManager, tenantId: string, jobId: string): Promise<JobRow | undefined> {
  if (!isUuid(jobId)) return undefined;
  const rows = await em.execute<Row[]>(`select * from crawl.crawl_job where tenant_id = ? and id = ? and status <> 'DELETED'`, [tenantId, jobId]);
  return rows[0] ? toJob(rows[0]) : undefined;
}

async function insertExecution(em: EntityManager, tenantId: string, jobId: string): Promise<ExecutionRow> {
  const rows = await em.execute<Row[]>(`insert into crawl.crawl_execution (id, tenant_id, job_id, status) values (?, ?, ?, 'QUEUED') returning *`, [randomUUID(), tenantId, jobId]);
  return toExecution(rows[0]!);
}

async function execution(em: EntityManager, tenantId: string, executionId: string): Promise<ExecutionRow | undefined> {
  if (!isUuid(executionId)) return undefined;
  const rows = await em.execute<Row[]>('select * from crawl.crawl_execution where tenant_id = ? and id = ?', [tenantId, executionId]);
  return rows[0] ? toExecution(rows[0]) : undefined;
}

/** Jobs, selector versions and executions; every query is scoped to a tenant. */
export function createJobStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  // Reads on the federated hot path (entity references): prepared, on the pool directly (no ORM fork or query formatting).
  const liveJobsByIds = nativeSql(orm).prepared<Row>(`select * from crawl.crawl_job where tenant_id = $1 and id = any($2::uuid[]) and status <> 'DELETED'`);
  return {
    async insertJob(tenantId: string, input: CrawlJobInput, nextRunAt: Date): Promise<JobRow> {
      const id = randomUUID();
      const rows = await em().execute<Row[]>(
        `insert into crawl.crawl_job (id, tenant_id, job_name, target_url, cron_expression, run_at, selectors, enable_rag_sync, rag_config, robots_txt, day_first, status, next_run_at, webhook, webhook_secret, volatile_selectors)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?, 'SCHEDULED', ?, ?::jsonb, ?, ?::jsonb) returning *`,
        [
          id, tenantId, input.jobName, input.targetUrl, input.cronExpression ?? null, input.runAt ?? null, JSON.stringify(input.selectors), input.enableRagSync,
          input.ragConfig ? JSON.stringify(input.ragConfig) : null, input.robotsTxt, input.dayFirst, nextRunAt,
          input.webhook ? JSON.stringify({ url: input.webhook.url, events: input.webhook.events }) : null, input.webhook?.secret ?? null,
          JSON.stringify(input.volatileSelectors),
        ],
      );
      await em().execute(`insert into crawl.selector_version (tenant_id, job_id, version, selectors, reason) values (?, ?, 1, ?::jsonb, 'created')`, [tenantId, id, JSON.stringify(input.selectors)]);
      return toJob(rows[0]!);
    },

    /**
     * Writes the embedded demo's job with its selector history and past runs (domain/demo-crawl.ts)
     * in one transaction, paused, unless the tenant has a job of that name. The healed version's
     * reason names the run that healed, as a real run's does. Undefined when it was there already.
     */
    async seedJob(demo: DemoCrawl): Promise<string | undefined> {
      return orm.em.fork().transactional(async (tx) => {
        const there = await tx.execute<Row[]>('select id from crawl.crawl_job where tenant_id = ? and job_name = ? for update', [demo.tenantId, demo.jobName]);
        if (there.length) return undefined;
        const id = randomUUID();
        const runs = demo.runs.map((run) => ({ ...run, id: randomUUID() }));
        const healedBy = runs.find((r) => r.healed)?.id;
        const current = demo.versions[demo.versions.length - 1]!;
        await tx.execute(
          `insert into crawl.crawl_job (id, tenant_id, job_name, target_url, cron_expression, selectors, selector_version, status, next_run_at, created_at, updated_at)
           values (?, ?, ?, ?, ?, ?::jsonb, ?, 'PAUSED', null, ?, ?)`,
          [id, demo.tenantId, demo.jobName, demo.targetUrl, demo.cronExpression, JSON.stringify(current.selectors), demo.versions.length, demo.createdAt, current.at],
        );
        for (const [i, v] of demo.versions.entries()) {
          const reason = v.reason === 'healed' && healedBy ? `healed during execution ${healedBy}` : v.reason;
          await tx.execute('insert into crawl.selector_version (tenant_id, job_id, version, selectors, reason, created_at) values (?, ?, ?, ?::jsonb, ?, ?)', [demo.tenantId, id, i + 1, JSON.stringify(v.selectors), reason, v.at]);
        }
        for (let i = 0; i < runs.length; i += 100) {
          const batch = runs.slice(i, i + 100);
          await tx.execute(
            `insert into crawl.crawl_execution (id, tenant_id, job_id, status, allocated_agent, queued_at, started_at, finished_at, elapsed_ms, total_count, self_healing_occurred, error)
             values ${batch.map(() => "(?, ?, ?, ?, 'demo-seed', ?, ?, ?, ?, ?, ?, ?)").join(', ')}`,
            batch.flatMap((r) => [r.id, demo.tenantId, id, r.error ? 'FAILED' : 'COMPLETED', r.startedAt, r.startedAt, r.finishedAt, r.finishedAt.getTime() - r.startedAt.getTime(), r.totalCount, r.healed, r.error ?? null]),
          );
        }
        return id;
      });
    },

    job: (tenantId: string, jobId: string): Promise<JobRow | undefined> => jobIn(em(), tenantId, jobId),

    /** The tenant's live jobs among `jobIds`, by id, in one query (ids that are not UUIDs are skipped). */
    async jobsByIds(tenantId: string, jobIds: readonly string[]): Promise<Map<string, JobRow>> {
      const ids = jobIds.filter(isUuid);
      if (!ids.length) return new Map();
      const rows = await liveJobsByIds([tenantId, ids]);
      return new Map(rows.map((r) => [String(r.id), toJob(r)]));
    },

    /** The tenant's executions among `executionIds`, by id, in one query. */
    async executionsByIds(tenantId: string, executionIds: readonly string[]): Promise<Map<string, ExecutionRow>> {
      const ids = executionIds.filter(isUuid);
      if (!ids.length) return new Map();
      const rows = await em().execute<Row[]>('select * from crawl.crawl_execution where tenant_id = ? and id = any(?::uuid[])', [tenantId, `{${ids.join(',')}}`]);
      return new Map(rows.map((r) => [String(r.id), toExecution(r)]));
    },

    async jobs(tenantId: string, limit: number): Promise<JobRow[]> {
      const rows = await em().execute<Row[]>(`select * from crawl.crawl_job where tenant_id = ? and status <> 'DELETED' order by created_at desc limit ?`, [tenantId, limit]);
      return rows.map(toJob);
    },

    async setStatus(tenantId: string, jobId: string, status: JobStatus, nextRunAt?: Date | null): Promise<JobRow | undefined> {
      const rows = await em().execute<Row[]>(
        `update crawl.crawl_job set status = ?, next_run_at = case when ? then ? else next_run_at end, updated_at = now()
          where tenant_id = ? and id = ? and status <> 'DELETED' returning *`,
        [status, nextRunAt !== undefined, nextRunAt ?? null, tenantId, jobId],
      );
      return rows[0] ? toJob(rows[0]) : undefined;
    },

    /**
     * After a scheduled run: a cron job gets its next time, a one-time job becomes COMPLETED;
     * only while the job is still SCHEDULED, so a pause or delete during the run stands.
     */
    async afterScheduledRun(tenantId: string, jobId: string, next: Date | null): Promise<void> {
      await em().execute(
        `update crawl.crawl_job set status = case when ?::timestamptz is null then 'COMPLETED' else status end, next_run_at = ?, updated_at = now()
          where tenant_id = ? and id = ? and status = 'SCHEDULED'`,
        [next, next, tenantId, jobId],
      );
    },

    /**
     * Replaces a job's selectors by a person's new set: the next selector version (reason
     * 'changed'), and no fingerprints, which described what the old selectors matched (the next
     * good run stores new ones). With an idempotency call, once per key in the same transaction;
     * a repeated key changes nothing. Undefined when the job does not exist (or was deleted).
     */
    async changeSelectors(tenantId: string, jobId: string, selectors: CrawlSelectors, call?: IdempotentCall): Promise<JobRow | undefined> {
      return orm.em.fork().transactional(async (tx) => {
        const { result } = await applyOnce(tx, 'crawl', call, {
          apply: async () => {
            const rows = await tx.execute<Row[]>(
              `update crawl.crawl_job set selectors = ?::jsonb, selector_version = selector_version + 1, fingerprints = null, updated_at = now()
                where tenant_id = ? and id = ? and status <> 'DELETED' returning *`,
              [JSON.stringify(selectors), tenantId, jobId],
            );
            if (!rows[0]) throw NO_JOB; // rolls back: no key is recorded for a job that is not there
            const job = toJob(rows[0]);
            await tx.execute(`insert into crawl.selector_version (tenant_id, job_id, version, selectors, reason) values (?, ?, ?, ?::jsonb, 'changed')`, [tenantId, jobId, job.selectorVersion, JSON.stringify(selectors)]);
            return { result: job, entityId: jobId };
          },
          replay: () => jobIn(tx, tenantId, jobId),
        });
        return result;
      }).catch((error: unknown) => {
        if (error === NO_JOB) return undefined;
        throw error;
      });
    },

    /** Adopts healed selectors as a new version, and stores the fingerprints of the last good run. */
    async saveSelectors(tenantId: string, jobId: string, selectors: CrawlSelectors | null, fingerprints: StoredFingerprints, reason: string): Promise<void> {
      if (selectors) {
        await em().execute(
          `with bumped as (update crawl.crawl_job set selectors = ?::jsonb, selector_version = selector_version + 1, updated_at = now() where tenant_id = ? and id = ? returning selector_version)
           insert into crawl.selector_version (tenant_id, job_id, version, selectors, reason) select ?, ?, selector_version, ?::jsonb, ? from bumped`,
          [JSON.stringify(selectors), tenantId, jobId, tenantId, jobId, JSON.stringify(selectors), reason],
        );
      }
      await em().execute('update crawl.crawl_job set fingerprints = ?::jsonb where tenant_id = ? and id = ?', [JSON.stringify(fingerprints), tenantId, jobId]);
    },

    insertExecution: (tenantId: string, jobId: string): Promise<ExecutionRow> => insertExecution(em(), tenantId, jobId),

    /**
     * A new QUEUED execution, once per idempotency key (recorded in the same transaction); a
     * repeated key answers the execution the first call created, as it is now.
     */
    async insertExecutionOnce(tenantId: string, jobId: string, call: IdempotentCall): Promise<{ execution: ExecutionRow; replayed: boolean }> {
      return orm.em.fork().transactional(async (tx) => {
        const { result, replayed } = await applyOnce(tx, 'crawl', call, {
          apply: async () => {
            const execution = await insertExecution(tx, tenantId, jobId);
            return { result: execution, entityId: execution.id };
          },
          replay: async (executionId) => (await execution(tx, tenantId, executionId))!,
        });
        return { execution: result, replayed };
      });
    },

    execution: (tenantId: string, executionId: string): Promise<ExecutionRow | undefined> => execution(em(), tenantId, executionId),

    async executionsOfJob(tenantId: string, jobId: string, limit: number): Promise<ExecutionRow[]> {
      const rows = await em().execute<Row[]>('select * from crawl.crawl_execution where tenant_id = ? and job_id = ? order by queued_at desc limit ?', [tenantId, jobId, limit]);
      return rows.map(toExecution);
    },

    /** The selector sets a job has used, newest first. */
    async selectorVersions(tenantId: string, jobId: string, limit: number): Promise<SelectorVersionRow[]> {
      const rows = await em().execute<Row[]>('select version, selectors, reason, created_at from crawl.selector_version where tenant_id = ? and job_id = ? order by version desc limit ?', [tenantId, jobId, limit]);
      return rows.map((r) => ({ version: Number(r.version), selectors: json<Record<string, string>>(r.selectors), reason: String(r.reason), createdAt: new Date(String(r.created_at)) }));
    },

    /**
     * Per job and UTC day in [from, to): items of completed runs, items first seen, completed and
     * failed runs (blocked ones too, also counted apart), pages found blocked; a day whose runs all failed collected 0 items (a day without runs has no row);
     * `tenants` '*' for all.
     */
    async dailyItems(tenants: readonly string[] | '*', window: { from: Date; to: Date; jobId?: string | undefined }): Promise<ItemDay[]> {
      const scope = [window.from, window.to, tenants === '*', JSON.stringify(tenants === '*' ? [] : tenants), window.jobId ?? null, window.jobId ?? null];
      const rows = await em().execute<Row[]>(
        `with runs as (
           select tenant_id, job_id, to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD') as day,
                  (sum(total_count) filter (where status = 'COMPLETED'))::int as items,
                  (count(*) filter (where status = 'COMPLETED'))::int as executions,
                  (count(*) filter (where status in ('FAILED', 'BLOCKED')))::int as failed,
                  (count(*) filter (where status = 'BLOCKED'))::int as blocked_runs,
                  sum(blocked_count)::int as blocked_pages
             from crawl.crawl_execution
            where status in ('COMPLETED', 'FAILED', 'BLOCKED') and finished_at >= ? and finished_at < ? and (?::boolean or tenant_id in (select jsonb_array_elements_text(?::jsonb))) and (?::uuid is null or job_id = ?)
            group by 1, 2, 3),
         fresh as (
           select tenant_id, job_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as new_items
             from crawl.crawl_item
            where created_at >= ? and created_at < ? and (?::boolean or tenant_id in (select jsonb_array_elements_text(?::jsonb))) and (?::uuid is null or job_id = ?)
            group by 1, 2, 3)
         select coalesce(r.tenant_id, f.tenant_id) as tenant_id, coalesce(r.job_id, f.job_id) as job_id, j.job_name, coalesce(r.day, f.day) as day,
                coalesce(r.items, 0) as items, coalesce(f.new_items, 0) as new_items, coalesce(r.executions, 0) as executions, coalesce(r.failed, 0) as failed,
                coalesce(r.blocked_runs, 0) as blocked_runs, coalesce(r.blocked_pages, 0) as blocked_pages
           from runs r full join fresh f on f.tenant_id = r.tenant_id and f.job_id = r.job_id and f.day = r.day
           join crawl.crawl_job j on j.tenant_id = coalesce(r.tenant_id, f.tenant_id) and j.id = coalesce(r.job_id, f.job_id)
          order by 4, 1, 2`,
        [...scope, ...scope],
      );
      return rows.map((r) => ({
        tenantId: String(r.tenant_id),
        jobId: String(r.job_id),
        jobName: String(r.job_name),
        day: String(r.day),
        items: Number(r.items),
        newItems: Number(r.new_items),
        executions: Number(r.executions),
        failedRuns: Number(r.failed),
        blockedRuns: Number(r.blocked_runs),
        blockedPages: Number(r.blocked_pages),
      }));
    },

    /** A worker took the run (also a takeover after another worker died): RUNNING with its name. */
    async markRunning(tenantId: string, executionId: string, agent: string): Promise<ExecutionRow | undefined> {
      const rows = await em().execute<Row[]>(
        `update crawl.crawl_execution set status = 'RUNNING', allocated_agent = ?, started_at = coalesce(started_at, now())
          where tenant_id = ? and id = ? and status in ('QUEUED', 'RUNNING') returning *`,
        [agent, tenantId, executionId],
      );
      return rows[0] ? toExecution(rows[0]) : undefined;
    },

    /**
     * Ends an execution, and in the same statement queues its webhook deliveries (the job's
     * events that apply: see WEBHOOK_EVENT_RULES); answers their ids.
     */
    async finish(
      tenantId: string,
      executionId: string,
      outcome: { status: 'COMPLETED' | 'FAILED' | 'BLOCKED'; totalCount: number; selfHealingOccurred: boolean; error?: string; blocked?: readonly BlockedPage[] },
    ): Promise<string[]> {
      const blocked = outcome.blocked ?? [];
      const rows = await em().execute<Row[]>(FINISH_SQL, [
        outcome.status, outcome.totalCount, outcome.selfHealingOccurred, outcome.error ?? null, blocked.length, JSON.stringify(blocked.slice(0, MAX_BLOCKED_PAGES_KEPT)), tenantId, executionId,
      ]);
      return rows.map((r) => String(r.id));
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
