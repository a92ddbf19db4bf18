import { hostname } from 'node:os';
import { checkIdempotencyKey, openAiErrors, parseInput, type Logger } from '@svc/kit';
import type { Agent } from '../domain/agent.js';
import type { Budget, BudgetChange, BudgetSettings, Reservation } from '../domain/budget.js';
import { budgetChangeSchema } from '../contract.js';
import { budgetRecord, pastThreshold } from '../domain/budget-status.js';
import { periodBounds, periodOf } from '../domain/period.js';
import type { UsageEntry, UsageFilter, UsageRow } from '../domain/usage.js';
import type { AlertStore } from '../store/alert-store.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { LeaseStore } from '../store/lease-store.js';
import type { UsageStore } from '../store/usage-store.js';
import { createLeaseBook } from './budget-leases.js';
import { createBudgetAlerts, type AlertQueue } from './budget-alerts.js';

export type { AlertQueue } from './budget-alerts.js';

/** The stores the budget service works on, built by the wiring (llm-subgraph.ts). */
export interface BudgetStores {
  budgets: BudgetStore;
  usage: UsageStore;
  alerts: AlertStore;
  /** Its TTL is also how long this instance's leases live unrenewed. */
  leases: LeaseStore;
}

/**
 * Money never leaks: before an upstream call the worst-case cost is held against this
 * instance's lease on the agent's period budget (see budget-leases.ts: leases grow in one
 * transaction on the locked period row, as far as the hard limit admits, domain/budget.ts),
 * then settled to the actual cost in batches after the answer, or released.
 */
export function createBudgetService(stores: BudgetStores, queue: AlertQueue, log: Logger, options: { clock?: () => Date; instance?: string } = {}) {
  const clock = options.clock ?? (() => new Date());
  const { budgets, usage } = stores;
  const alerts = createBudgetAlerts({ budgets, alerts: stores.alerts, queue, log, clock });
  const recording = new Set<Promise<unknown>>();
  const leases = createLeaseBook({
    store: stores.leases,
    instance: options.instance ?? `${hostname()}:${process.pid}`,
    log,
    ttlMs: stores.leases.ttlMs,
    onSettled: (spent) => {
      if (pastThreshold(budgetRecord(spent.agentCode, spent.allocatedUsd, spent.spentUsd, spent.alertThresholdPercent))) {
        void alerts.raise(spent.agentCode, spent.period, 'THRESHOLD_CROSSED').catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'could not raise a budget alert'));
      }
    },
  });

  const view = (agentCode: string, period = periodOf(clock())): Promise<Budget | undefined> => budgets.budget(agentCode, period);
  /** An agent with its budget; its usage since `from` is read only when asked for. */
  const agentOf = (budget: Budget, from: Date): Agent => ({
    code: budget.agentCode,
    budget,
    get usage() {
      return usage.daily({ agentCode: budget.agentCode, from });
    },
  });

  return {
    view,

    list: (): Promise<Budget[]> => budgets.budgets(periodOf(clock())),

    /** The agent with its budget, and this month's usage when asked for; null when unknown. */
    async agent(code: string): Promise<Agent | null> {
      const period = periodOf(clock());
      const budget = await view(code, period);
      return budget ? agentOf(budget, periodBounds(period).start) : null;
    },

    /** The agents of these codes with their budgets, by code (unknown ones left out): one read for all. */
    async agents(codes: readonly string[]): Promise<Map<string, Agent>> {
      const period = periodOf(clock());
      const from = periodBounds(period).start;
      const found = await budgets.budgetsOf(codes, period);
      return new Map(found.map((budget) => [budget.agentCode, agentOf(budget, from)]));
    },

    /**
     * With an idempotency key, the first call changes the budget and a repeated one answers the
     * budget as it is now, changing nothing.
     */
    async set(input: Partial<BudgetSettings> & { agentCode?: unknown }, idempotencyKey?: string | null): Promise<Budget> {
      const change = parseBudgetChange(input);
      const key = checkIdempotencyKey(idempotencyKey);
      const changed = await budgets.save(change, key ? { key, operation: 'setBudget', target: change.agentCode } : undefined);
      const period = periodOf(clock());
      if (changed) {
        // New limits apply to this instance's next request at once; other instances' leases are
        // given back within idleMs of their last use (each covers at most a slice of requests).
        await leases.retire(change.agentCode);
        await alerts.checkThreshold(change.agentCode, period);
        log.info({ agentCode: change.agentCode, monthlyBudgetUsd: change.monthlyBudgetUsd, hardLimitEnabled: change.hardLimitEnabled, idempotencyKey: key }, 'budget set');
      }
      return (await view(change.agentCode, period))!;
    },

    /**
     * Holds `amountUsd` for one request against this instance's lease on the agent's budget
     * (growing it under the hard limit when needed), or refuses with 429 insufficient_quota
     * when the hard limit would be passed.
     */
    async reserve(agentCode: string, amountUsd: number, requestId?: string): Promise<Reservation> {
      const period = periodOf(clock());
      const reservation = await leases.admit(agentCode, period, amountUsd, () => budgets.openPeriod(agentCode, period));
      if (!reservation) {
        await leases.flush(); // what was answered counts in what the refusal reports
        const budget = await view(agentCode, period);
        await usage.recordRefusal(agentCode, period, requestId);
        await alerts.raise(agentCode, period, 'HARD_LIMIT_REACHED');
        const left = budget?.remainingUsd ?? 0;
        throw openAiErrors.insufficientQuota(`Budget exceeded for agent ${agentCode}: $${left.toFixed(6)} of $${(budget?.allocatedUsd ?? 0).toFixed(2)} left this month (${period}), and this request may cost up to $${amountUsd.toFixed(6)}`, {
          retryAfter: 3600,
          details: { agentCode, remainingUsd: left },
        });
      }
      return reservation;
    },

    /**
     * The request was answered: its cost replaces its hold and is written with its ledger line in
     * the next batch, after the answer has gone (nothing on the request path waits for it).
     */
    settle(reservation: Reservation, entry: UsageEntry): void {
      if (entry.costUsd > reservation.amountUsd) {
        // Reservations bound prompts and output, so only an upstream that ignores max_tokens or
        // over-reports lands here: charged truthfully (the agent may then be blocked), and said loudly.
        log.error({ agentCode: reservation.agentCode, reservedUsd: reservation.amountUsd, costUsd: entry.costUsd, model: entry.model }, 'actual cost exceeded the reservation');
      }
      leases.settle(reservation, entry);
    },

    /** Frees a hold without charging (the request failed before any output). */
    release(reservation: Reservation, entry?: UsageEntry): void {
      leases.release(reservation, entry);
    },

    /** Writes what was answered and gives this instance's leases back (a graceful stop). */
    async drain(): Promise<void> {
      await leases.close();
      await Promise.all([...recording]);
    },

    /** Records usage that held no money (cache hits), after the answer: nothing waits for it. */
    record(agentCode: string, entry: UsageEntry): void {
      const pending = usage
        .record(agentCode, periodOf(clock()), entry)
        .catch((error: unknown) => log.warn({ agentCode, reason: (error as Error).message }, 'could not record a cache hit in the ledger'))
        .finally(() => recording.delete(pending));
      recording.add(pending);
    },

    /**
     * Charges holds whose request never settled (a crashed or stalled process) in full, by the
     * database's clock: a crash may over-charge, never under-charge. Returns how many.
     */
    async sweepExpired(): Promise<number> {
      const charged = await budgets.chargeExpired();
      if (charged) log.warn({ charged }, 'charged expired budget holds in full (their requests never settled)');
      return charged;
    },

    usage: (filter: UsageFilter): Promise<UsageRow[]> => usage.daily(filter),
  };
}

export type BudgetService = ReturnType<typeof createBudgetService>;

/** Checks every member of a budget change (the contract's budgetChangeSchema), so a 422 names each offending one. */
export function parseBudgetChange(input: Partial<BudgetSettings> & { agentCode?: unknown }): BudgetChange {
  return parseInput(budgetChangeSchema, dropUndefined(input), '', { describe: true });
}

/** A GraphQL input object carries its unset members as undefined; they mean "absent". */
const dropUndefined = (input: object) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
