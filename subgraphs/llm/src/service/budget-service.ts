import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SvcError, validationError, type FieldProblem, type Logger } from '@svc/kit';
import { budgetRecord, type BudgetRecord } from '../domain/budget-status.js';
import { periodOf } from '../domain/period.js';

export interface Reservation {
  id: string;
  agentCode: string;
  period: string;
  amountUsd: number;
}

export interface UsageEntry {
  kind: 'chat' | 'embedding';
  requestedModel: string;
  model?: string;
  deployment?: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  cached: boolean;
  outcome: 'ok' | 'error' | 'aborted' | 'refused';
  requestId?: string;
}

export type AlertEvent = 'THRESHOLD_CROSSED' | 'HARD_LIMIT_REACHED';

export interface AlertQueue {
  /** Durably queues delivery of a stored alert. */
  enqueue(agentCode: string, period: string, event: AlertEvent): Promise<void>;
}

export interface BudgetSettings {
  agentCode: string;
  monthlyBudgetUsd: number;
  hardLimitEnabled: boolean;
  alertWebhookUrl: string | null;
  alertThresholdPercent: number;
}

export interface BudgetView extends BudgetRecord {
  hardLimitEnabled: boolean;
  alertWebhookUrl: string | null;
  reservedUsd: number;
  remainingUsd: number;
}

/** How long a reservation may stay open before the sweeper releases it (a crashed request). */
export const RESERVATION_TTL_MS = 15 * 60_000;
const AGENT_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const num = (v: unknown) => Number(v ?? 0);

const LEDGER_INSERT = `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, model, deployment, prompt_tokens, completion_tokens, cost_usd, cached, outcome, request_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function ledgerValues(agentCode: string, period: string, usage: UsageEntry): unknown[] {
  return [randomUUID(), agentCode, period, usage.kind, usage.requestedModel, usage.model ?? null, usage.deployment ?? null, usage.promptTokens, usage.completionTokens, usage.costUsd, usage.cached, usage.outcome, usage.requestId ?? null];
}

/**
 * Money never leaks: before an upstream call the worst-case cost is reserved with one
 * conditional UPDATE on the agent's period row (the row lock serialises concurrent requests
 * and the condition is re-checked after the lock), then settled to the actual cost or
 * released, in the same transaction as the ledger entry.
 */
export function createBudgetService(orm: MikroORM, alerts: AlertQueue, log: Logger, clock: () => Date = () => new Date()) {
  const em = () => orm.em.fork();

  async function ensureAgent(agentCode: string): Promise<void> {
    await em().execute('insert into llm.agent (code) values (?) on conflict do nothing', [agentCode]);
  }

  async function view(agentCode: string, period = periodOf(clock())): Promise<BudgetView | undefined> {
    const rows = await em().execute<Record<string, unknown>[]>(
      `select a.code, a.monthly_budget_usd, a.hard_limit_enabled, a.alert_webhook_url, a.alert_threshold_percent,
              coalesce(bp.spent_usd, 0) as spent_usd, coalesce(bp.reserved_usd, 0) as reserved_usd
         from llm.agent a left join llm.budget_period bp on bp.agent_code = a.code and bp.period = ?
        where a.code = ?`,
      [period, agentCode],
    );
    const row = rows[0];
    return row ? toView(row) : undefined;
  }

  function toView(row: Record<string, unknown>): BudgetView {
    const allocated = num(row.monthly_budget_usd);
    const spent = num(row.spent_usd);
    const reserved = num(row.reserved_usd);
    return {
      ...budgetRecord(String(row.code), allocated, spent, num(row.alert_threshold_percent)),
      hardLimitEnabled: row.hard_limit_enabled === true,
      alertWebhookUrl: (row.alert_webhook_url as string | null) ?? null,
      reservedUsd: Math.round(reserved * 1e6) / 1e6,
      remainingUsd: Math.max(0, Math.round((allocated - spent - reserved) * 1e6) / 1e6),
    };
  }

  /** (agent, period, event) already stored, so hot paths skip the database after the first time. */
  const raised = new Set<string>();

  /** Stores the alert once per (agent, period, event) and queues its webhook. */
  async function raise(agentCode: string, period: string, event: AlertEvent): Promise<void> {
    const key = `${agentCode}\u0000${period}\u0000${event}`;
    if (raised.has(key)) return;
    const budget = await view(agentCode, period);
    if (!budget) return;
    const payload = {
      agentCode,
      period,
      allocatedUsd: budget.allocatedUsd,
      currentUsageUsd: budget.currentUsageUsd,
      burnRatePercent: budget.burnRatePercent,
      alertThresholdPercent: budget.alertThresholdPercent,
      event,
      occurredAt: clock().toISOString(),
    };
    const inserted = await em().execute<unknown[]>(
      `insert into llm.alert_event (agent_code, period, event, payload, delivery_status) values (?, ?, ?, ?::jsonb, ?)
       on conflict do nothing returning event`,
      [agentCode, period, event, JSON.stringify(payload), budget.alertWebhookUrl ? 'PENDING' : 'NONE'],
    );
    raised.add(key);
    if (!inserted.length) return;
    log.warn({ agentCode, period, event, burnRatePercent: budget.burnRatePercent }, 'budget alert');
    if (budget.alertWebhookUrl) await alerts.enqueue(agentCode, period, event).catch((error: unknown) => log.error({ err: error, agentCode, event }, 'could not queue budget alert'));
  }

  async function checkThreshold(agentCode: string, period: string): Promise<void> {
    const budget = await view(agentCode, period);
    if (budget && budget.allocatedUsd > 0 && budget.status === 'WARNING_THRESHOLD_EXCEEDED') await raise(agentCode, period, 'THRESHOLD_CROSSED');
  }

  return {
    ensureAgent,
    view,

    async list(): Promise<BudgetView[]> {
      const rows = await em().execute<Record<string, unknown>[]>(
        `select a.code, a.monthly_budget_usd, a.hard_limit_enabled, a.alert_webhook_url, a.alert_threshold_percent,
                coalesce(bp.spent_usd, 0) as spent_usd, coalesce(bp.reserved_usd, 0) as reserved_usd
           from llm.agent a left join llm.budget_period bp on bp.agent_code = a.code and bp.period = ?
          order by a.code`,
        [periodOf(clock())],
      );
      return rows.map(toView);
    },

    async set(input: Partial<BudgetSettings> & { agentCode?: unknown }): Promise<BudgetView> {
      const problems: FieldProblem[] = [];
      const { agentCode, monthlyBudgetUsd, hardLimitEnabled, alertWebhookUrl, alertThresholdPercent } = input as Record<string, unknown>;
      if (typeof agentCode !== 'string' || !AGENT_CODE.test(agentCode)) problems.push({ pointer: '/agentCode', detail: `agentCode is required: letters, digits, . _ - (at most 64); got ${JSON.stringify(agentCode)}` });
      if (typeof monthlyBudgetUsd !== 'number' || !Number.isFinite(monthlyBudgetUsd) || monthlyBudgetUsd < 0 || monthlyBudgetUsd > 1e9) problems.push({ pointer: '/monthlyBudgetUsd', detail: `monthlyBudgetUsd is required: a number of USD from 0 to 1e9; got ${JSON.stringify(monthlyBudgetUsd)}` });
      if (hardLimitEnabled !== undefined && hardLimitEnabled !== null && typeof hardLimitEnabled !== 'boolean') problems.push({ pointer: '/hardLimitEnabled', detail: `hardLimitEnabled must be a boolean; got ${JSON.stringify(hardLimitEnabled)}` });
      if (alertWebhookUrl !== undefined && alertWebhookUrl !== null && (typeof alertWebhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(alertWebhookUrl))) problems.push({ pointer: '/alertWebhookUrl', detail: `alertWebhookUrl must be an http(s) URL; got ${JSON.stringify(alertWebhookUrl)}` });
      if (alertThresholdPercent !== undefined && alertThresholdPercent !== null && (typeof alertThresholdPercent !== 'number' || alertThresholdPercent <= 0 || alertThresholdPercent > 100)) problems.push({ pointer: '/alertThresholdPercent', detail: `alertThresholdPercent must be a number above 0 and at most 100; got ${JSON.stringify(alertThresholdPercent)}` });
      if (problems.length) throw validationError(problems);
      await em().execute(
        `insert into llm.agent (code, monthly_budget_usd, hard_limit_enabled, alert_webhook_url, alert_threshold_percent)
         values (?, ?, ?, ?, ?)
         on conflict (code) do update set monthly_budget_usd = excluded.monthly_budget_usd,
           hard_limit_enabled = coalesce(?, llm.agent.hard_limit_enabled),
           alert_webhook_url = case when ? then excluded.alert_webhook_url else llm.agent.alert_webhook_url end,
           alert_threshold_percent = coalesce(?, llm.agent.alert_threshold_percent),
           updated_at = now()`,
        [
          agentCode, monthlyBudgetUsd, hardLimitEnabled ?? false, alertWebhookUrl ?? null, alertThresholdPercent ?? 80,
          hardLimitEnabled ?? null, alertWebhookUrl !== undefined, alertThresholdPercent ?? null,
        ],
      );
      const period = periodOf(clock());
      await checkThreshold(agentCode as string, period);
      log.info({ agentCode, monthlyBudgetUsd, hardLimitEnabled }, 'budget set');
      return (await view(agentCode as string, period))!;
    },

    /**
     * Holds `amountUsd` for one request, or refuses with 429 insufficient_quota when the hard
     * limit would be passed. One statement: the period row is locked only while it runs.
     */
    async reserve(agentCode: string, amountUsd: number, requestId?: string): Promise<Reservation> {
      const period = periodOf(clock());
      const id = randomUUID();
      const hold = () =>
        em().execute<unknown[]>(
          `with held as (
             update llm.budget_period bp set reserved_usd = bp.reserved_usd + ?
               from llm.agent a
              where a.code = bp.agent_code and bp.agent_code = ? and bp.period = ?
                and (not a.hard_limit_enabled or bp.spent_usd + bp.reserved_usd + ? <= a.monthly_budget_usd)
              returning bp.agent_code)
           insert into llm.reservation (id, agent_code, period, amount_usd, request_id, expires_at)
           select ?, agent_code, ?, ?, ?, ? from held returning id`,
          [amountUsd, agentCode, period, amountUsd, id, period, amountUsd, requestId ?? null, new Date(clock().getTime() + RESERVATION_TTL_MS)],
        );
      let held = (await hold()).length > 0;
      if (!held) {
        // Maybe the month's row does not exist yet (first requests of a month, possibly many at
        // once): make sure it does, then try once more whoever created it.
        await em().execute('insert into llm.budget_period (agent_code, period) values (?, ?) on conflict do nothing', [agentCode, period]);
        held = (await hold()).length > 0;
      }
      if (!held) {
        const budget = await view(agentCode, period);
        await em().execute(
          `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, outcome, request_id) values (?, ?, ?, 'chat', '-', 'refused', ?)`,
          [randomUUID(), agentCode, period, requestId ?? null],
        );
        await raise(agentCode, period, 'HARD_LIMIT_REACHED');
        const left = budget?.remainingUsd ?? 0;
        throw new SvcError('BUDGET_EXCEEDED', `Budget exceeded for agent ${agentCode}: $${left.toFixed(6)} of $${(budget?.allocatedUsd ?? 0).toFixed(2)} left this month (${period}), and this request may cost up to $${amountUsd.toFixed(6)}`, {
          retryAfter: 3600,
          details: { type: 'insufficient_quota', param: null, openaiCode: 'insufficient_quota', agentCode, remainingUsd: left },
        });
      }
      return { id, agentCode, period, amountUsd };
    },

    /** Replaces the hold by the actual cost and records the usage, atomically (one statement). */
    async settle(reservation: Reservation, usage: UsageEntry): Promise<void> {
      if (usage.costUsd > reservation.amountUsd) {
        // Reservations bound prompts by bytes and output by max_tokens, so only an upstream that
        // ignores max_tokens or over-reports lands here: charged truthfully, and said loudly.
        log.error({ agentCode: reservation.agentCode, reservedUsd: reservation.amountUsd, costUsd: usage.costUsd, model: usage.model }, 'actual cost exceeded the reservation');
      }
      const rows = await em().execute<{ spent_usd: string; monthly_budget_usd: string; alert_threshold_percent: string }[]>(
        `with released as (delete from llm.reservation where id = ? returning amount_usd),
              charged as (
                update llm.budget_period set reserved_usd = greatest(0, reserved_usd - coalesce((select amount_usd from released), 0)), spent_usd = spent_usd + ?
                 where agent_code = ? and period = ? returning spent_usd),
              ledger as (${LEDGER_INSERT})
         select c.spent_usd, a.monthly_budget_usd, a.alert_threshold_percent from charged c join llm.agent a on a.code = ?`,
        [reservation.id, usage.costUsd, reservation.agentCode, reservation.period, ...ledgerValues(reservation.agentCode, reservation.period, usage), reservation.agentCode],
      );
      const row = rows[0];
      if (!row || usage.costUsd <= 0) return;
      const record = budgetRecord(reservation.agentCode, num(row.monthly_budget_usd), num(row.spent_usd), num(row.alert_threshold_percent));
      if (record.allocatedUsd > 0 && record.status === 'WARNING_THRESHOLD_EXCEEDED') await raise(reservation.agentCode, reservation.period, 'THRESHOLD_CROSSED');
    },

    /** Frees a hold without charging (the request failed before any output). */
    async release(reservation: Reservation, usage?: UsageEntry): Promise<void> {
      await em().execute(
        `with released as (delete from llm.reservation where id = ? returning amount_usd)
         update llm.budget_period set reserved_usd = greatest(0, reserved_usd - (select amount_usd from released))
          where agent_code = ? and period = ? and exists (select 1 from released)`,
        [reservation.id, reservation.agentCode, reservation.period],
      );
      if (usage) await insertUsage(em(), reservation.agentCode, reservation.period, usage);
    },

    /** Records usage that held no money (cache hits). */
    async record(agentCode: string, usage: UsageEntry): Promise<void> {
      await insertUsage(orm.em.fork(), agentCode, periodOf(clock()), usage);
    },

    /** Releases holds whose request never settled (crashed process). Returns how many. */
    async sweepExpired(): Promise<number> {
      return orm.em.fork().transactional(async (tx) => {
        const rows = await tx.execute<{ agent_code: string; period: string; amount_usd: string }[]>(
          'delete from llm.reservation where expires_at < ? returning agent_code, period, amount_usd',
          [clock()],
        );
        for (const row of rows) {
          await tx.execute('update llm.budget_period set reserved_usd = greatest(0, reserved_usd - ?) where agent_code = ? and period = ?', [num(row.amount_usd), row.agent_code, row.period]);
        }
        if (rows.length) log.warn({ released: rows.length }, 'released expired budget reservations');
        return rows.length;
      });
    },

    async usage(filter: { agentCode?: string; from?: Date; to?: Date }) {
      const rows = await em().execute<Record<string, unknown>[]>(
        `select agent_code, coalesce(model, requested_model) as model, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day,
                count(*)::int as requests, sum(prompt_tokens)::int as prompt_tokens, sum(completion_tokens)::int as completion_tokens,
                sum(cost_usd) as cost_usd, sum(case when cached then 1 else 0 end)::int as cache_hits
           from llm.usage_ledger
          where (?::text is null or agent_code = ?) and (?::timestamptz is null or created_at >= ?) and (?::timestamptz is null or created_at < ?)
            and outcome <> 'refused'
          group by 1, 2, 3 order by 3, 1, 2`,
        [filter.agentCode ?? null, filter.agentCode ?? null, filter.from ?? null, filter.from ?? null, filter.to ?? null, filter.to ?? null],
      );
      return rows.map((r) => ({
        agentCode: String(r.agent_code),
        model: String(r.model),
        day: String(r.day),
        requests: num(r.requests),
        promptTokens: num(r.prompt_tokens),
        completionTokens: num(r.completion_tokens),
        costUsd: Math.round(num(r.cost_usd) * 1e6) / 1e6,
        cacheHits: num(r.cache_hits),
      }));
    },
  };

  async function insertUsage(tx: { execute: MikroORM['em']['execute'] }, agentCode: string, period: string, usage: UsageEntry): Promise<void> {
    await tx.execute(LEDGER_INSERT, ledgerValues(agentCode, period, usage));
  }
}

export type BudgetService = ReturnType<typeof createBudgetService>;
