import type { EntityManager } from '@mikro-orm/postgresql';
import { applyOnce, nativeSql, type IdempotentCall, type MikroORM } from '@svc/kit';
import { budgetOf, type Budget, type BudgetChange } from '../domain/budget.js';
import type { UsageEntry } from '../domain/usage.js';
import { LEDGER_INSERT, ledgerValues } from './usage-store.js';

type Row = Record<string, unknown>;
const num = (v: unknown) => Number(v ?? 0);
/** Ledger lines per insert when seeding. */
const SEED_BATCH = 200;

/** Each agent with its period row (absent before the month's first request); `period` is the placeholder of the period parameter. */
const budgetsIn = (period: string) => `select a.code, a.tenant_id, a.tenant_managed, a.monthly_budget_usd, a.hard_limit_enabled, a.alert_webhook_url, a.alert_threshold_percent,
              coalesce(bp.spent_usd, 0) as spent_usd, coalesce(bp.reserved_usd, 0) as reserved_usd
         from llm.agent a left join llm.budget_period bp on bp.agent_code = a.code and bp.period = ${period}`;
/** The same, with the ORM's placeholder. */
const BUDGETS = budgetsIn('?');

function toBudget(row: Row): Budget {
  return budgetOf({
    agentCode: String(row.code),
    allocatedUsd: num(row.monthly_budget_usd),
    spentUsd: num(row.spent_usd),
    reservedUsd: num(row.reserved_usd),
    alertThresholdPercent: num(row.alert_threshold_percent),
    hardLimitEnabled: row.hard_limit_enabled === true,
    alertWebhookUrl: (row.alert_webhook_url as string | null) ?? null,
    tenantId: (row.tenant_id as string | null) ?? null,
    tenantManaged: row.tenant_managed === true,
  });
}

/** Creates the agent or changes its settings; undefined members keep what is stored. */
async function saveSettings(em: EntityManager, change: BudgetChange): Promise<void> {
  const { agentCode, monthlyBudgetUsd, hardLimitEnabled, alertWebhookUrl, alertThresholdPercent } = change;
  await em.execute(
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
}

/**
 * Agents, their monthly period rows and the reservations held against them. Every statement
 * that moves money is ONE statement: the period row is locked only while it runs, and its
 * condition is re-checked after the lock, so concurrent requests never overspend.
 */
export function createBudgetStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  // Reads on the federated hot path (Agent references): prepared, on the pool directly (no ORM fork or query formatting).
  const budgetsOfCodes = nativeSql(orm).prepared<Row>(`${budgetsIn('$1')}\n        where a.code = any($2::text[])`);
  return {
    async budget(agentCode: string, period: string): Promise<Budget | undefined> {
      const rows = await em().execute<Row[]>(`${BUDGETS}\n        where a.code = ?`, [period, agentCode]);
      return rows[0] ? toBudget(rows[0]) : undefined;
    },

    /** The budgets of these agents (unknown codes left out), in one statement. */
    async budgetsOf(agentCodes: readonly string[], period: string): Promise<Budget[]> {
      if (!agentCodes.length) return [];
      const rows = await budgetsOfCodes([period, agentCodes]);
      return rows.map(toBudget);
    },

    async budgets(period: string): Promise<Budget[]> {
      const rows = await em().execute<Row[]>(`${BUDGETS}\n          order by a.code`, [period]);
      return rows.map(toBudget);
    },

    /**
     * Creates the agent or changes its settings; undefined members keep what is stored. With an
     * idempotency call, in one short transaction with the key, and a repeated key changes
     * nothing. True when this call changed the budget.
     */
    async save(change: BudgetChange, call?: IdempotentCall): Promise<boolean> {
      if (!call) {
        await saveSettings(em(), change);
        return true;
      }
      return orm.em.fork().transactional(async (tx) => {
        const { replayed } = await applyOnce(tx, 'llm', call, {
          apply: async () => {
            await saveSettings(tx, change);
            return { result: undefined, entityId: change.agentCode };
          },
          replay: async () => undefined,
        });
        return !replayed;
      });
    },

    /**
     * Seeds a tenant's agent with requests already made (the embedded demo's, domain/demo-usage.ts):
     * the agent, its ledger lines at their own times and the period's spend, in one transaction,
     * and only when the agent does not exist yet. True when it was seeded.
     */
    async seedAgent(change: BudgetChange & { tenantId: string }, period: string, requests: readonly { at: Date; entry: UsageEntry }[]): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        const exists = await tx.execute<Row[]>('select 1 from llm.agent where code = ? for update', [change.agentCode]);
        if (exists.length) return false;
        await saveSettings(tx, change);
        await tx.execute('update llm.agent set tenant_id = ?, tenant_managed = true where code = ?', [change.tenantId, change.agentCode]);
        for (let i = 0; i < requests.length; i += SEED_BATCH) {
          const batch = requests.slice(i, i + SEED_BATCH);
          await tx.execute(
            `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, model, deployment, prompt_tokens, completion_tokens, cost_usd, cached, outcome, request_id, lease_id, created_at)
             values ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
            batch.flatMap((r) => [...ledgerValues(change.agentCode, period, r.entry), r.at]),
          );
        }
        const spent = requests.reduce((sum, r) => sum + r.entry.costUsd, 0);
        await tx.execute('insert into llm.budget_period (agent_code, period, spent_usd) values (?, ?, ?)', [change.agentCode, period, spent]);
        return true;
      });
    },

    /** Creates the agent's row for the period unless it exists. */
    async openPeriod(agentCode: string, period: string): Promise<void> {
      await em().execute('insert into llm.budget_period (agent_code, period) values (?, ?) on conflict do nothing', [agentCode, period]);
    },

    /**
     * Charges every hold and lease that expired before `now` (default: the database's clock) in
     * full (its requests were answered, or not, by a process that died or stalled before
     * settling), with an `unsettled` ledger row each naming the lease, in one transaction that
     * locks the period rows first (as every money statement does). A swept lease is gone for good:
     * its instance's later settlements find it missing and charge nothing (lease-store.ts).
     * Returns how many.
     */
    async chargeExpired(now?: Date): Promise<number> {
      return orm.em.fork().transactional(async (tx) => {
        const at = now ?? null;
        const due = await tx.execute<{ key: string }[]>(
          `select distinct agent_code || '|' || period as key from llm.reservation where expires_at < coalesce(?::timestamptz, now())
           union select distinct agent_code || '|' || period from llm.budget_lease where expires_at < coalesce(?::timestamptz, now())`,
          [at, at],
        );
        if (!due.length) return 0;
        const keys = JSON.stringify(due.map((d) => d.key));
        const mine = `agent_code || '|' || period in (select jsonb_array_elements_text(?::jsonb))`;
        await tx.execute(`select 1 from llm.budget_period where ${mine} order by agent_code, period for update`, [keys]);
        const rows = await tx.execute<{ agent_code: string; period: string; amount_usd: string; request_id: string | null; lease_id: string | null }[]>(
          `delete from llm.reservation where expires_at < coalesce(?::timestamptz, now()) and ${mine} returning agent_code, period, amount_usd, request_id, null as lease_id`,
          [at, keys],
        );
        // Leases of instances that stopped renewing them (dead, or stalled past the TTL) are charged the same way.
        rows.push(...(await tx.execute<typeof rows>(`delete from llm.budget_lease where expires_at < coalesce(?::timestamptz, now()) and ${mine} returning agent_code, period, amount_usd, null as request_id, id as lease_id`, [at, keys])));
        for (const row of rows) {
          const amount = num(row.amount_usd);
          await tx.execute('update llm.budget_period set reserved_usd = greatest(0, reserved_usd - ?), spent_usd = spent_usd + ? where agent_code = ? and period = ?', [amount, amount, row.agent_code, row.period]);
          await tx.execute(LEDGER_INSERT, ledgerValues(row.agent_code, row.period, { kind: 'chat', requestedModel: '-', promptTokens: 0, completionTokens: 0, costUsd: amount, cached: false, outcome: 'unsettled', requestId: row.request_id ?? undefined }, row.lease_id ?? undefined));
        }
        return rows.length;
      });
    },
  };
}

export type BudgetStore = ReturnType<typeof createBudgetStore>;
