import { budgetRecord, type BudgetRecord } from './budget-status.js';

/** An agent's budget this month: the record, its settings and the money held (gateway instances' leases, covering requests in flight). */
export interface Budget extends BudgetRecord {
  hardLimitEnabled: boolean;
  alertWebhookUrl: string | null;
  reservedUsd: number;
  remainingUsd: number;
  /** The tenant the agent belongs to, or a platform share is charged for; null for the platform's own (agent-owner.ts). */
  tenantId: string | null;
  /** TENANT: its tenant's admins manage it; PLATFORM: the master key and platform admins. */
  managedBy: 'TENANT' | 'PLATFORM';
}

export interface BudgetSettings {
  agentCode: string;
  monthlyBudgetUsd: number;
  hardLimitEnabled: boolean;
  alertWebhookUrl: string | null;
  alertThresholdPercent: number;
}

/**
 * A checked budget change. Members left undefined keep the stored value (or take the
 * default for a new agent); alertWebhookUrl null removes the webhook.
 */
export interface BudgetChange {
  agentCode: string;
  monthlyBudgetUsd: number;
  hardLimitEnabled?: boolean | null;
  alertWebhookUrl?: string | null;
  alertThresholdPercent?: number | null;
}

/** Money held for one request until it settles or is released. */
export interface Reservation {
  id: string;
  agentCode: string;
  period: string;
  amountUsd: number;
  /** The budget lease that holds it. */
  leaseId: string;
}

const micro = (usd: number) => Math.round(usd * 1e6) / 1e6;

/** What the hard limit weighs: the month's allocation, and what is spent and held against it. */
export interface HardLimitState {
  hardLimitEnabled: boolean;
  allocatedUsd: number;
  spentUsd: number;
  reservedUsd: number;
}

/** Money is counted in micro-dollars and float sums of it drift by ~1e-17: a nano-dollar over is still within. */
const WITHIN_USD = 1e-9;

/**
 * The hard limit: may `amountUsd` more be held against this budget? Always when the limit is off;
 * else only while what is spent, what is held (every instance's leases) and the new hold
 * together stay within the allocation. store/lease-store.ts (`grow`) applies it to the period
 * row it has locked, so concurrent holds are weighed one after another.
 */
export function admits(budget: HardLimitState, amountUsd: number): boolean {
  return !budget.hardLimitEnabled || budget.spentUsd + budget.reservedUsd + amountUsd <= budget.allocatedUsd + WITHIN_USD;
}

/** The budget of stored amounts; what remains never goes below 0. */
export function budgetOf(stored: {
  agentCode: string; allocatedUsd: number; spentUsd: number; reservedUsd: number; alertThresholdPercent: number; hardLimitEnabled: boolean; alertWebhookUrl: string | null;
  tenantId?: string | null; tenantManaged?: boolean;
}): Budget {
  const { allocatedUsd, spentUsd, reservedUsd } = stored;
  return {
    ...budgetRecord(stored.agentCode, allocatedUsd, spentUsd, stored.alertThresholdPercent),
    hardLimitEnabled: stored.hardLimitEnabled,
    alertWebhookUrl: stored.alertWebhookUrl,
    reservedUsd: micro(reservedUsd),
    remainingUsd: Math.max(0, micro(allocatedUsd - spentUsd - reservedUsd)),
    tenantId: stored.tenantId ?? null,
    managedBy: stored.tenantManaged ? 'TENANT' : 'PLATFORM',
  };
}
