export type BudgetStatus = 'HEALTHY' | 'WARNING_THRESHOLD_EXCEEDED';

export interface BudgetRecord {
  agentCode: string;
  period: 'MONTHLY';
  allocatedUsd: number;
  currentUsageUsd: number;
  burnRatePercent: number;
  alertThresholdPercent: number;
  status: BudgetStatus;
}

/**
 * burnRatePercent = usage / allocated x 100, rounded to two decimals. With nothing allocated
 * it is 0 while nothing is spent and 100 once anything is. The status turns
 * WARNING_THRESHOLD_EXCEEDED when the burn rate is AT or above the threshold.
 */
export function budgetRecord(agentCode: string, allocatedUsd: number, currentUsageUsd: number, alertThresholdPercent: number): BudgetRecord {
  const raw = allocatedUsd > 0 ? (currentUsageUsd / allocatedUsd) * 100 : currentUsageUsd > 0 ? 100 : 0;
  const burnRatePercent = Math.round(raw * 100) / 100;
  return {
    agentCode,
    period: 'MONTHLY',
    allocatedUsd,
    currentUsageUsd: Math.round(currentUsageUsd * 1e6) / 1e6,
    burnRatePercent,
    alertThresholdPercent,
    status: burnRatePercent >= alertThresholdPercent ? 'WARNING_THRESHOLD_EXCEEDED' : 'HEALTHY',
  };
}

/** Whether a budget is at or past its alert threshold (an empty budget never is). */
export function pastThreshold(record: BudgetRecord): boolean {
  return record.allocatedUsd > 0 && record.status === 'WARNING_THRESHOLD_EXCEEDED';
}
