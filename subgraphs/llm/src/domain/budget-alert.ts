import type { Budget } from './budget.js';

export type AlertEvent = 'THRESHOLD_CROSSED' | 'HARD_LIMIT_REACHED';

/** Deliveries of one alert before it is marked FAILED. */
export const ALERT_MAX_ATTEMPTS = 6;

/** Which stored alert: at most one per agent, period and event. */
export interface AlertKey {
  agentCode: string;
  period: string;
  event: string;
}

/** The webhook body of a budget alert. */
export function alertPayload(budget: Budget, agentCode: string, period: string, event: AlertEvent, at: Date) {
  return {
    agentCode,
    period,
    allocatedUsd: budget.allocatedUsd,
    currentUsageUsd: budget.currentUsageUsd,
    burnRatePercent: budget.burnRatePercent,
    alertThresholdPercent: budget.alertThresholdPercent,
    event,
    occurredAt: at.toISOString(),
  };
}

/** Exponential backoff: the n-th failed attempt waits base x 2^(n-1). */
export const alertRetryDelayMs = (attempt: number, baseMs: number): number => baseMs * 2 ** (attempt - 1);
