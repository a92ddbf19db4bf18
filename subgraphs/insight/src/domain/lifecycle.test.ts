import { describe, expect, it } from '@jest/globals';
import { ACTION_STATUSES, canMoveAction, canonicalJson, paramsHash } from './action.js';
import { canMoveJob, describeFailure, isFinal, JOB_STATUSES } from './job.js';

describe('job lifecycle', () => {
  it('moves PENDING → RUNNING → a final state, never back', () => {
    expect(canMoveJob('PENDING', 'RUNNING')).toBe(true);
    expect(canMoveJob('RUNNING', 'COMPLETED')).toBe(true);
    expect(canMoveJob('RUNNING', 'CANCELLED')).toBe(true);
    expect(canMoveJob('COMPLETED', 'RUNNING')).toBe(false);
    expect(canMoveJob('PENDING', 'COMPLETED')).toBe(false);
    expect(JOB_STATUSES.filter(isFinal)).toEqual(['COMPLETED', 'FAILED', 'CANCELLED']);
  });

  it('explains a budget failure with the agent and what the gateway said', () => {
    const text = describeFailure({ kind: 'BUDGET', agentCode: 'insight', message: 'Monthly budget of $1.00 is used up ($0.00 left)' });
    expect(text).toContain('"insight"');
    expect(text).toContain('$0.00 left');
    expect(describeFailure({ kind: 'STEP_LIMIT', limit: 12 })).toContain('12 steps');
  });
});

describe('action lifecycle', () => {
  it('allows one decision from PROPOSED and one outcome from APPROVED', () => {
    expect(canMoveAction('PROPOSED', 'APPROVED')).toBe(true);
    expect(canMoveAction('PROPOSED', 'REJECTED')).toBe(true);
    expect(canMoveAction('PROPOSED', 'EXPIRED')).toBe(true);
    expect(canMoveAction('APPROVED', 'EXECUTED')).toBe(true);
    expect(canMoveAction('APPROVED', 'REJECTED')).toBe(false);
    expect(canMoveAction('REJECTED', 'APPROVED')).toBe(false);
    expect(canMoveAction('EXPIRED', 'APPROVED')).toBe(false);
    const finals = ACTION_STATUSES.filter((s) => ACTION_STATUSES.every((t) => !canMoveAction(s, t)));
    expect(finals).toEqual(['REJECTED', 'EXPIRED', 'EXECUTED', 'EXECUTION_FAILED']);
  });

  it('hashes parameters canonically: key order does not matter, values do', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    const h = paramsHash('BUDGET_CHANGE', 'marketing', { monthlyBudgetUsd: 30, hardLimitEnabled: true });
    expect(paramsHash('BUDGET_CHANGE', 'marketing', { hardLimitEnabled: true, monthlyBudgetUsd: 30 })).toBe(h);
    expect(paramsHash('BUDGET_CHANGE', 'marketing', { hardLimitEnabled: true, monthlyBudgetUsd: 31 })).not.toBe(h);
    expect(paramsHash('BUDGET_CHANGE', 'sales', { hardLimitEnabled: true, monthlyBudgetUsd: 30 })).not.toBe(h);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
  });
});
