import type { MikroORM } from '@svc/kit';
import type { UsageEntry } from '../domain/usage.js';
import { LEDGER_INSERT, ledgerValues } from './usage-store.js';

/** A slice of an agent's period budget held by one gateway instance. */
export interface LeaseKey {
  id: string;
  agentCode: string;
  period: string;
  instance: string;
}

/** What one flush settles on one lease: the summed cost of its answered requests, and their ledger lines. */
export interface LeaseSettlement {
  lease: LeaseKey;
  costUsd: number;
  entries: UsageEntry[];
}

const num = (value: unknown) => Number(value ?? 0);

/**
 * Budget leases in PostgreSQL. Growing a lease moves money from the period's free budget to
 * `reserved_usd` under the hard limit, in one statement (the row lock serialises instances);
 * settling moves answered requests' cost from the lease to `spent_usd` and writes their ledger
 * lines, in one transaction per flush; giving a lease back frees what it still holds.
 */
export function createLeaseStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** Adds `amountUsd` to the lease (creating it), unless the hard limit would be passed or the period row is missing. */
    async grow(lease: LeaseKey, amountUsd: number, expiresAt: Date): Promise<boolean> {
      const rows = await em().execute<unknown[]>(
        `with held as (
             update llm.budget_period bp set reserved_usd = bp.reserved_usd + ?
               from llm.agent a
              where a.code = bp.agent_code and bp.agent_code = ? and bp.period = ?
                and (not a.hard_limit_enabled or bp.spent_usd + bp.reserved_usd + ? <= a.monthly_budget_usd)
              returning bp.agent_code)
           insert into llm.budget_lease (id, agent_code, period, instance, amount_usd, expires_at)
           select ?, agent_code, ?, ?, ?, ? from held
           on conflict (id) do update set amount_usd = llm.budget_lease.amount_usd + excluded.amount_usd, expires_at = excluded.expires_at
           returning id`,
        [amountUsd, lease.agentCode, lease.period, amountUsd, lease.id, lease.period, lease.instance, amountUsd, expiresAt],
      );
      return rows.length > 0;
    },

    /**
     * Charges each lease's answered requests: the cost moves from the lease (as far as it holds
     * it) to the period's spending, and the ledger lines are written, in one transaction.
     * Returns each agent's spending after it, with its allocation and alert threshold.
     */
    async settle(batch: readonly LeaseSettlement[], expiresAt: Date): Promise<{ agentCode: string; period: string; allocatedUsd: number; spentUsd: number; alertThresholdPercent: number }[]> {
      return orm.em.fork().transactional(async (tx) => {
        const spent = [];
        for (const { lease, costUsd, entries } of batch) {
          const [row] = await tx.execute<Record<string, unknown>[]>(
            `with before as (select amount_usd from llm.budget_lease where id = ?),
                  shrunk as (update llm.budget_lease set amount_usd = greatest(0, amount_usd - ?), expires_at = ? where id = ? returning id)
             update llm.budget_period bp set spent_usd = bp.spent_usd + ?, reserved_usd = greatest(0, bp.reserved_usd - least(?, coalesce((select amount_usd from before), 0)))
               from llm.agent a
              where a.code = bp.agent_code and bp.agent_code = ? and bp.period = ?
              returning bp.spent_usd, a.monthly_budget_usd, a.alert_threshold_percent`,
            // (All parts of one statement see the lease as it was: \`before\` reads the amount \`shrunk\` reduces.)
            [lease.id, costUsd, expiresAt, lease.id, costUsd, costUsd, lease.agentCode, lease.period],
          );
          // One statement for the batch's ledger lines (chunks keep it under PostgreSQL's parameter limit).
          for (let i = 0; i < entries.length; i += 1000) {
            const chunk = entries.slice(i, i + 1000);
            await tx.execute(`${LEDGER_INSERT}${', (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'.repeat(chunk.length - 1)}`, chunk.flatMap((entry) => ledgerValues(lease.agentCode, lease.period, entry)));
          }
          if (row) spent.push({ agentCode: lease.agentCode, period: lease.period, allocatedUsd: num(row.monthly_budget_usd), spentUsd: num(row.spent_usd), alertThresholdPercent: num(row.alert_threshold_percent) });
        }
        return spent;
      });
    },

    /** Gives back what a lease still holds and removes it, in one statement. */
    async giveBack(leaseId: string): Promise<void> {
      await em().execute(
        `with gone as (delete from llm.budget_lease where id = ? returning agent_code, period, amount_usd)
         update llm.budget_period bp set reserved_usd = greatest(0, bp.reserved_usd - gone.amount_usd)
           from gone where bp.agent_code = gone.agent_code and bp.period = gone.period`,
        [leaseId],
      );
    },

    /** Keeps the instance's leases alive (a lease not touched before it expires is charged in full by the sweep). */
    async touch(leaseIds: readonly string[], expiresAt: Date): Promise<void> {
      if (!leaseIds.length) return;
      await em().execute('update llm.budget_lease set expires_at = ? where id in (select jsonb_array_elements_text(?::jsonb)::uuid)', [expiresAt, JSON.stringify(leaseIds)]);
    },
  };
}

export type LeaseStore = ReturnType<typeof createLeaseStore>;
