import { type MikroORM, nativeSql } from '@svc/kit';
import type pg from 'pg';
import { admits } from '../domain/budget.js';
import type { UsageEntry } from '../domain/usage.js';
import { LEDGER_INSERT_LINES } from './usage-store.js';

/**
 * A slice of an agent's period budget held by one gateway instance. Its id is its fencing
 * token: ids are never reused, and a lease the sweep has charged is gone for good, so nothing
 * done under its id afterwards (a settlement, a grow, a renewal) can move money again.
 */
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

export interface SettleResult {
  /** Each agent's spending after the flush, with its allocation and alert threshold. */
  spent: { agentCode: string; period: string; allocatedUsd: number; spentUsd: number; alertThresholdPercent: number }[];
  /** Leases that were gone (swept: charged in full already): their lines were written at no cost. */
  fenced: string[];
}

/** What a grow came to: the money moved, the hard limit refused it, or the lease is gone (swept). */
export type GrowOutcome = 'grown' | 'refused' | 'gone';

const num = (value: unknown) => Number(value ?? 0);
const periodKey = (agentCode: string, period: string) => `${agentCode}|${period}`;

/**
 * Budget leases in PostgreSQL. Growing a lease moves money from the period's free budget to
 * `reserved_usd` under the hard limit; settling moves answered requests' cost from the lease to
 * `spent_usd` and writes their ledger lines, in one transaction per flush; giving a lease back
 * frees what it still holds. Every statement that moves money locks the period row before the
 * lease row, so they never deadlock, and a renewal, which touches lease rows only, never waits
 * behind a settlement that waits for a period row. Expiry times are the database's clock.
 *
 * `renewals`: a pool of its own for renewals (one connection), so they never queue behind
 * settlements for a connection of the main pool. Statements run with bind parameters on the
 * ORM's pool (kit `nativeSql`): this is the gateway's per-flush hot path.
 */
export function createLeaseStore(orm: MikroORM, options: { ttlMs: number; renewals?: pg.Pool }) {
  const sql = nativeSql(orm);
  // clock_timestamp(), not now(): a transaction that waited for a period row must not set an expiry already past.
  const ttl = `clock_timestamp() + ${Math.max(1, Math.round(options.ttlMs))} * interval '1 millisecond'`;

  return {
    /** How long a lease lives unrenewed, ms: then the sweep charges it in full. */
    ttlMs: options.ttlMs,

    /**
     * Adds `amountUsd` to the lease (creating it when `fresh`), unless the hard limit does not
     * admit it (domain/budget.ts, `admits`, on the period row locked here) or the period row is
     * missing ('refused'), or an existing lease is gone ('gone').
     */
    async grow(lease: LeaseKey, amountUsd: number, fresh: boolean): Promise<GrowOutcome> {
      return sql.transaction(async (tx) => {
        const [period] = await tx(
          `select bp.spent_usd, bp.reserved_usd, a.monthly_budget_usd, a.hard_limit_enabled
             from llm.budget_period bp join llm.agent a on a.code = bp.agent_code
            where bp.agent_code = $1 and bp.period = $2 for update of bp`,
          [lease.agentCode, lease.period],
        );
        if (!period) return 'refused';
        if (!fresh && !(await tx('select 1 from llm.budget_lease where id = $1 for update', [lease.id])).length) return 'gone';
        const budget = { hardLimitEnabled: period.hard_limit_enabled === true, allocatedUsd: num(period.monthly_budget_usd), spentUsd: num(period.spent_usd), reservedUsd: num(period.reserved_usd) };
        if (!admits(budget, amountUsd)) return 'refused';
        await tx('update llm.budget_period set reserved_usd = reserved_usd + $1 where agent_code = $2 and period = $3', [amountUsd, lease.agentCode, lease.period]);
        if (fresh) {
          await tx(`insert into llm.budget_lease (id, agent_code, period, instance, amount_usd, expires_at) values ($1, $2, $3, $4, $5, ${ttl})`, [lease.id, lease.agentCode, lease.period, lease.instance, amountUsd]);
        } else {
          await tx(`update llm.budget_lease set amount_usd = amount_usd + $1, expires_at = ${ttl} where id = $2`, [amountUsd, lease.id]);
        }
        return 'grown';
      });
    },

    /**
     * Charges each lease's answered requests: the cost moves from the lease (as far as it holds
     * it) to the period's spending, with the ledger lines, in one transaction. A lease that is
     * gone was charged in full by the sweep: its lines are written at no cost (the sweep's
     * `unsettled` line holds their money), so no lease is ever charged twice.
     */
    async settle(batch: readonly LeaseSettlement[]): Promise<SettleResult> {
      return sql.transaction(async (tx) => {
        const periods = [...new Map(batch.map(({ lease }) => [periodKey(lease.agentCode, lease.period), lease])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
        await tx(
          `select 1 from llm.budget_period where agent_code || '|' || period in (select jsonb_array_elements_text($1::jsonb)) order by agent_code, period for update`,
          [JSON.stringify(periods.map(([key]) => key))],
        );
        const result: SettleResult = { spent: [], fenced: [] };
        for (const { lease, costUsd, entries } of batch) {
          const [row] = await tx(
            `with held as (select id, amount_usd as old from llm.budget_lease where id = $1 for update),
                  shrunk as (update llm.budget_lease b set amount_usd = greatest(0, b.amount_usd - $2), expires_at = ${ttl} from held where b.id = held.id returning held.old)
             update llm.budget_period bp set spent_usd = bp.spent_usd + $2, reserved_usd = greatest(0, bp.reserved_usd - least($2, shrunk.old))
               from shrunk, llm.agent a
              where a.code = bp.agent_code and bp.agent_code = $3 and bp.period = $4
              returning bp.spent_usd, a.monthly_budget_usd, a.alert_threshold_percent`,
            [lease.id, costUsd, lease.agentCode, lease.period],
          );
          if (!row) result.fenced.push(lease.id);
          const lines = row ? entries : entries.map((entry) => ({ ...entry, costUsd: 0 }));
          if (lines.length) await tx(LEDGER_INSERT_LINES, [lease.agentCode, lease.period, lease.id, JSON.stringify(lines)]);
          if (row) result.spent.push({ agentCode: lease.agentCode, period: lease.period, allocatedUsd: num(row.monthly_budget_usd), spentUsd: num(row.spent_usd), alertThresholdPercent: num(row.alert_threshold_percent) });
        }
        return result;
      });
    },

    /** Gives back what a lease still holds and removes it (the period row locked first). */
    async giveBack(lease: LeaseKey): Promise<void> {
      await sql.transaction(async (tx) => {
        await tx('select 1 from llm.budget_period where agent_code = $1 and period = $2 for update', [lease.agentCode, lease.period]);
        await tx(
          `with gone as (delete from llm.budget_lease where id = $1 returning agent_code, period, amount_usd)
           update llm.budget_period bp set reserved_usd = greatest(0, bp.reserved_usd - gone.amount_usd)
             from gone where bp.agent_code = gone.agent_code and bp.period = gone.period`,
          [lease.id],
        );
      });
    },

    /**
     * Keeps leases alive, on the renewal pool: each one still there expires a TTL from now.
     * Returns the ids that are still there (the others were swept).
     */
    async renew(leaseIds: readonly string[]): Promise<Set<string>> {
      if (!leaseIds.length) return new Set();
      const text = `update llm.budget_lease set expires_at = ${ttl} where id in (select jsonb_array_elements_text($1::jsonb)::uuid) returning id`;
      const ids = [JSON.stringify(leaseIds)];
      const rows = options.renewals ? (await options.renewals.query<{ id: string }>(text, ids)).rows : await sql.query<{ id: string }>(text, ids);
      return new Set(rows.map((r) => String(r.id)));
    },
  };
}

export type LeaseStore = ReturnType<typeof createLeaseStore>;
