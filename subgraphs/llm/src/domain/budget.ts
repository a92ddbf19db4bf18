import { validationError, type FieldProblem } from '@svc/kit';
import { AGENT_CODE } from './agent.js';
import { budgetRecord, type BudgetRecord } from './budget-status.js';

/** An agent's budget this month: the record, its settings and the money held (gateway instances' leases, covering requests in flight). */
export interface Budget extends BudgetRecord {
  hardLimitEnabled: boolean;
  alertWebhookUrl: string | null;
  reservedUsd: number;
  remainingUsd: number;
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

/** The budget of stored amounts; what remains never goes below 0. */
export function budgetOf(stored: { agentCode: string; allocatedUsd: number; spentUsd: number; reservedUsd: number; alertThresholdPercent: number; hardLimitEnabled: boolean; alertWebhookUrl: string | null }): Budget {
  const { allocatedUsd, spentUsd, reservedUsd } = stored;
  return {
    ...budgetRecord(stored.agentCode, allocatedUsd, spentUsd, stored.alertThresholdPercent),
    hardLimitEnabled: stored.hardLimitEnabled,
    alertWebhookUrl: stored.alertWebhookUrl,
    reservedUsd: micro(reservedUsd),
    remainingUsd: Math.max(0, micro(allocatedUsd - spentUsd - reservedUsd)),
  };
}

/** Checks every member of a budget change, so a 422 names each offending one. */
export function parseBudgetChange(input: Partial<BudgetSettings> & { agentCode?: unknown }): BudgetChange {
  const problems: FieldProblem[] = [];
  const { agentCode, monthlyBudgetUsd, hardLimitEnabled, alertWebhookUrl, alertThresholdPercent } = input as Record<string, unknown>;
  if (typeof agentCode !== 'string' || !AGENT_CODE.test(agentCode)) problems.push({ pointer: '/agentCode', detail: `agentCode is required: letters, digits, . _ - (at most 64); got ${JSON.stringify(agentCode)}` });
  if (typeof monthlyBudgetUsd !== 'number' || !Number.isFinite(monthlyBudgetUsd) || monthlyBudgetUsd < 0 || monthlyBudgetUsd > 1e9) problems.push({ pointer: '/monthlyBudgetUsd', detail: `monthlyBudgetUsd is required: a number of USD from 0 to 1e9; got ${JSON.stringify(monthlyBudgetUsd)}` });
  if (hardLimitEnabled !== undefined && hardLimitEnabled !== null && typeof hardLimitEnabled !== 'boolean') problems.push({ pointer: '/hardLimitEnabled', detail: `hardLimitEnabled must be a boolean; got ${JSON.stringify(hardLimitEnabled)}` });
  if (alertWebhookUrl !== undefined && alertWebhookUrl !== null && (typeof alertWebhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(alertWebhookUrl))) problems.push({ pointer: '/alertWebhookUrl', detail: `alertWebhookUrl must be an http(s) URL; got ${JSON.stringify(alertWebhookUrl)}` });
  if (alertThresholdPercent !== undefined && alertThresholdPercent !== null && (typeof alertThresholdPercent !== 'number' || alertThresholdPercent <= 0 || alertThresholdPercent > 100)) problems.push({ pointer: '/alertThresholdPercent', detail: `alertThresholdPercent must be a number above 0 and at most 100; got ${JSON.stringify(alertThresholdPercent)}` });
  if (problems.length) throw validationError(problems);
  return input as BudgetChange;
}
