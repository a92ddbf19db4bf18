import type { Logger } from '@svc/kit';
import type { BudgetService } from '../service/budget-service.js';

/**
 * The sweep of budget holds and leases whose requests never settled (their instance crashed or
 * stalled past the lease TTL): each is charged in full (service/budget-service.ts,
 * `sweepExpired`), once now and then every `everyMs`. Returns what stops it.
 */
export async function startExpiredLeaseSweep(budgets: Pick<BudgetService, 'sweepExpired'>, everyMs: number, log: Logger): Promise<() => void> {
  await budgets.sweepExpired();
  const timer = setInterval(() => void budgets.sweepExpired().catch((error: unknown) => log.error({ err: error }, 'reservation sweep failed')), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
