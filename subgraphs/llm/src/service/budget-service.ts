import { randomUUID } from 'node:crypto';
import { checkIdempotencyKey, openAiErrors, type Logger, type MikroORM } from '@svc/kit';
import type { Agent } from '../domain/agent.js';
import { parseBudgetChange, RESERVATION_TTL_MS, type Budget, type BudgetSettings, type Reservation } from '../domain/budget.js';
import { budgetRecord, pastThreshold } from '../domain/budget-status.js';
import { periodBounds, periodOf } from '../domain/period.js';
import type { UsageEntry, UsageFilter, UsageRow } from '../domain/usage.js';
import { createAlertStore } from '../store/alert-store.js';
import { createBudgetStore } from '../store/budget-store.js';
import { createUsageStore } from '../store/usage-store.js';
import { createBudgetAlerts, type AlertQueue } from './budget-alerts.js';

export type { AlertQueue } from './budget-alerts.js';

/**
 * Money never leaks: before an upstream call the worst-case cost is reserved with one
 * conditional UPDATE on the agent's period row (the row lock serialises concurrent requests
 * and the condition is re-checked after the lock), then settled to the actual cost or
 * released, in the same statement as the ledger entry.
 */
export function createBudgetService(orm: MikroORM, queue: AlertQueue, log: Logger, clock: () => Date = () => new Date()) {
  const budgets = createBudgetStore(orm);
  const usage = createUsageStore(orm);
  const alerts = createBudgetAlerts({ budgets, alerts: createAlertStore(orm), queue, log, clock });

  const settling = new Set<Promise<unknown>>();
  const view = (agentCode: string, period = periodOf(clock())): Promise<Budget | undefined> => budgets.budget(agentCode, period);

  return {
    view,

    list: (): Promise<Budget[]> => budgets.budgets(periodOf(clock())),

    /** The agent with its budget and this month's usage; null when unknown. */
    async agent(code: string): Promise<Agent | null> {
      const budget = await view(code);
      if (!budget) return null;
      return { code, budget, usage: await usage.daily({ agentCode: code, from: periodBounds(periodOf(clock())).start }) };
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
        await alerts.checkThreshold(change.agentCode, period);
        log.info({ agentCode: change.agentCode, monthlyBudgetUsd: change.monthlyBudgetUsd, hardLimitEnabled: change.hardLimitEnabled, idempotencyKey: key }, 'budget set');
      }
      return (await view(change.agentCode, period))!;
    },

    /**
     * Holds `amountUsd` for one request, or refuses with 429 insufficient_quota when the hard
     * limit would be passed.
     */
    async reserve(agentCode: string, amountUsd: number, requestId?: string): Promise<Reservation> {
      const period = periodOf(clock());
      const reservation: Reservation = { id: randomUUID(), agentCode, period, amountUsd };
      const hold = () => budgets.hold(reservation, requestId, new Date(clock().getTime() + RESERVATION_TTL_MS));
      let held = await hold();
      if (!held) {
        // Maybe the month's row does not exist yet (first requests of a month, possibly many at
        // once): make sure it does, then try once more whoever created it.
        await budgets.openPeriod(agentCode, period);
        held = await hold();
      }
      if (!held) {
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

    /** Replaces the hold by the actual cost and records the usage, atomically (one statement). */
    async settle(reservation: Reservation, entry: UsageEntry): Promise<void> {
      if (entry.costUsd > reservation.amountUsd) {
        // Reservations bound prompts by bytes and output by max_tokens, so only an upstream that
        // ignores max_tokens or over-reports lands here: charged truthfully, and said loudly.
        log.error({ agentCode: reservation.agentCode, reservedUsd: reservation.amountUsd, costUsd: entry.costUsd, model: entry.model }, 'actual cost exceeded the reservation');
      }
      const spent = await budgets.settle(reservation, entry);
      if (!spent || entry.costUsd <= 0) return;
      if (pastThreshold(budgetRecord(reservation.agentCode, spent.allocatedUsd, spent.spentUsd, spent.alertThresholdPercent))) await alerts.raise(reservation.agentCode, reservation.period, 'THRESHOLD_CROSSED');
    },

    /**
     * Settles after the answer has gone: nothing on the request path waits for it. Should it
     * fail (the database unreachable), the hold stays and the sweep charges it in full, so the
     * agent may be over-charged by at most that hold, never under-charged.
     */
    settleAfter(reservation: Reservation, entry: UsageEntry): void {
      const pending = this.settle(reservation, entry)
        .catch((error: unknown) => log.error({ agentCode: reservation.agentCode, reservationId: reservation.id, reason: (error as Error).message }, 'settlement failed; the sweep will charge the hold in full'))
        .finally(() => settling.delete(pending));
      settling.add(pending);
    },

    /** Waits for the settlements still in flight (a graceful stop, before the pool closes). */
    async drain(): Promise<void> {
      await Promise.all([...settling]);
    },

    /** Frees a hold without charging (the request failed before any output). */
    async release(reservation: Reservation, entry?: UsageEntry): Promise<void> {
      await budgets.release(reservation);
      if (entry) await usage.record(reservation.agentCode, reservation.period, entry);
    },

    /** Records usage that held no money (cache hits). */
    async record(agentCode: string, entry: UsageEntry): Promise<void> {
      await usage.record(agentCode, periodOf(clock()), entry);
    },

    /**
     * Charges holds whose request never settled (a crashed process) in full: a crash may
     * over-charge, never under-charge. Returns how many.
     */
    async sweepExpired(): Promise<number> {
      const charged = await budgets.chargeExpired(clock());
      if (charged) log.warn({ charged }, 'charged expired budget holds in full (their requests never settled)');
      return charged;
    },

    usage: (filter: UsageFilter): Promise<UsageRow[]> => usage.daily(filter),
  };
}

export type BudgetService = ReturnType<typeof createBudgetService>;
