import { describe, expect, it } from '@jest/globals';
import { ACTION_KINDS, reversibilityOf } from './action.js';
import { actionParamProblems } from './action-params.js';
import { settingsInputSchema } from './settings-input.js';

describe('action parameters', () => {
  it('accepts a CONTENT_RESTORE with a site and a version, and names what is missing or wrong', () => {
    expect(actionParamProblems('CONTENT_RESTORE', { siteKey: 'demo', version: 3 })).toEqual([]);
    expect(actionParamProblems('CONTENT_RESTORE', { siteKey: 'demo', version: 0 })).toEqual(['version: version must be at least 1']);
    expect(actionParamProblems('CONTENT_RESTORE', { version: 2.5 }).join(' ')).toMatch(/siteKey.*version must be a whole number/);
  });

  it('accepts an EXTERNAL lever change with a summary, and names each bad field', () => {
    expect(actionParamProblems('EXTERNAL', { lever: 'ads.search', change: { metric: 'ad_spend', labels: { channel: 'search' }, changePercent: 20 }, summary: 'Raise search spend 20 %' })).toEqual([]);
    const problems = actionParamProblems('EXTERNAL', { lever: ' ', change: { metric: 'ad_spend', changePercent: -150 } });
    expect(problems).toEqual(expect.arrayContaining(['lever: lever must not be empty', 'change.changePercent: change.changePercent must be at least -100', expect.stringMatching(/^summary: /)]));
  });

  it('accepts an EXTERNAL revert of a tenant\'s change, and refuses a change that is neither shape', () => {
    expect(actionParamProblems('EXTERNAL', { lever: 'release-2.0', change: { revert: { ref: 'release-2.0', kind: 'deploy', title: 'Checkout v2', at: '2026-11-12T14:30:00.000Z' } }, summary: 'Review the deploy' })).toEqual([]);
    expect(actionParamProblems('EXTERNAL', { lever: 'x', change: { revert: { ref: '' } }, summary: 's' })).toEqual(expect.arrayContaining(['change.revert.ref: change.revert.ref must not be empty', 'change.revert.kind: change.revert.kind is required and must be a string']));
    expect(actionParamProblems('EXTERNAL', { lever: 'x', summary: 's' })).toEqual([expect.stringMatching(/^change: change is required: \{metric, labels\?, changePercent\} or \{revert/)]);
  });

  it('leaves the kinds their target subgraph validates alone', () => {
    expect(actionParamProblems('BUDGET_CHANGE', { anything: true })).toEqual([]);
  });

  it('says for every kind whether and how it can be undone', () => {
    for (const kind of Object.keys(ACTION_KINDS) as (keyof typeof ACTION_KINDS)[]) expect(reversibilityOf(kind).undo.length).toBeGreaterThan(10);
    expect(reversibilityOf('EXTERNAL').undoable).toBe(false);
    expect(reversibilityOf('CONTENT_RESTORE').undoable).toBe(true);
  });
});

describe('operator webhook settings input', () => {
  it('takes an http(s) URL with a long enough secret, or null to clear', () => {
    expect(settingsInputSchema.safeParse({ operatorWebhookUrl: 'https://ops.example.com/h', operatorWebhookSecret: 'x'.repeat(16) }).success).toBe(true);
    expect(settingsInputSchema.safeParse({ operatorWebhookUrl: null }).success).toBe(true);
    expect(settingsInputSchema.safeParse({ operatorWebhookUrl: 'https://ops.example.com/h', operatorWebhookSecret: 'short' }).error?.issues[0]?.message).toContain('at least 16');
    expect(settingsInputSchema.safeParse({ operatorWebhookUrl: 'javascript:alert(1)' }).error?.issues[0]?.message).toContain('absolute http(s) URL');
    expect(settingsInputSchema.safeParse({ operatorWebhookUrl: 'https://a.example/h', extra: 1 }).success).toBe(false);
  });
});
