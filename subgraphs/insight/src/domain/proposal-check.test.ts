import { describe, expect, it } from '@jest/globals';
import { checkedProposals, proposalProblems } from './proposal-check.js';
import type { ProposedAction } from './report.js';

const restore: ProposedAction = {
  kind: 'CONTENT_RESTORE',
  title: 'Restore version 6 of "pricing"',
  rationale: 'Version 7 went live the day the fall started.',
  targetType: 'Content',
  targetId: 'c-42',
  params: { siteKey: 'shop', version: 6 },
  expectedImpact: { metric: 'signups', horizon: 7, horizonDays: 7, p10: 0, p50: 100, p90: 200, method: 'if the version caused it', unit: 'signups' },
  finding: { index: 2, title: 'When it started', detail: 'On Thu 12 Nov, when version 7 was published.' },
};

describe('the proposal check', () => {
  it('passes a complete proposal', () => {
    expect(proposalProblems(restore, 5)).toEqual([]);
    expect(checkedProposals([restore], 5)).toEqual({ kept: [restore], refused: [] });
  });

  it('keeps an impact without floating-point dust, and its small figures whole', () => {
    const move = 8711.48;
    const dusty = { ...restore, expectedImpact: { ...restore.expectedImpact!, p10: 0.1 + 0.2, p50: (0 + move) / 2 + 1e-12, p90: 123_456_789.123 } };
    expect(dusty.expectedImpact.p10).not.toBe(0.3);
    expect(checkedProposals([dusty], 5).kept[0]!.expectedImpact).toEqual({ ...dusty.expectedImpact, p10: 0.3, p50: 4355.74, p90: 123_456_789.1 });
    const small = { ...restore, expectedImpact: { ...restore.expectedImpact!, p10: -0.000123456789012, p50: 0, p90: 0.0000123 } };
    expect(checkedProposals([small], 5).kept[0]!.expectedImpact).toMatchObject({ p10: -0.0001234567890, p50: 0, p90: 0.0000123 });
  });

  it('names each problem: an unknown kind, a wrong target type, an impact out of order, a finding the report lacks', () => {
    expect(proposalProblems({ ...restore, kind: 'DELETE_EVERYTHING' }).join(' ')).toMatch(/kind must be one of BUDGET_CHANGE/);
    expect(proposalProblems({ ...restore, targetType: 'Agent' })).toEqual(['targetType must be Content for CONTENT_RESTORE, not "Agent"']);
    expect(proposalProblems({ ...restore, expectedImpact: { ...restore.expectedImpact!, p10: 300 } })).toEqual(['expectedImpact must have p10 ≤ p50 ≤ p90']);
    expect(proposalProblems({ ...restore, expectedImpact: { ...restore.expectedImpact!, horizon: 0 } }).join(' ')).toMatch(/expectedImpact.horizon must be at least 1/);
    expect(proposalProblems(restore, 2)).toEqual(['finding.index 2 is not a finding of the report (it has 2)']);
    expect(proposalProblems({ ...restore, params: { siteKey: 'shop' } })).toEqual(['params.version: version is required and must be a number']);
    expect(proposalProblems({ ...restore, colour: 'red' }).join(' ')).toMatch(/colour/);
  });

  it('holds the kinds the target validates at execution to complete parameters', () => {
    const budget = { ...restore, kind: 'BUDGET_CHANGE', targetType: 'Agent', targetId: 'insight', params: { monthlyBudgetUsd: 15, hardLimitEnabled: true } };
    expect(proposalProblems(budget)).toEqual([]);
    expect(proposalProblems({ ...budget, params: { monthlyBudgetUsd: -5 } })).toEqual(['params.monthlyBudgetUsd: monthlyBudgetUsd must be above 0']);
    expect(proposalProblems({ ...budget, params: { monthlyBudgetUsd: 5, agentCode: 'other' } }).join(' ')).toMatch(/agentCode/);
    const draft = { ...restore, kind: 'CONTENT_DRAFT_UPDATE', params: { siteKey: 'shop', input: { fields: { ctaText: 'Buy now' } }, baseVersion: 8 } };
    expect(proposalProblems(draft)).toEqual([]);
    expect(proposalProblems({ ...draft, params: { siteKey: 'shop', input: {} } })).toEqual(['params.input: input must change the title, a field or an seo member']);
    const selectors = { ...restore, kind: 'CRAWL_SELECTOR_CHANGE', targetType: 'CrawlJob', targetId: 'j1', params: { selectors: { listRow: 'ul > li' } } };
    expect(proposalProblems(selectors)).toEqual([]);
    expect(proposalProblems({ ...selectors, params: { selectors: {} } })).toEqual(['params.selectors: selectors must not be empty']);
  });

  it('keeps the good proposals and says why each bad one was left out', () => {
    const bad = { ...restore, title: 'Restore nothing', params: {} } as ProposedAction;
    const { kept, refused } = checkedProposals([restore, bad], 5);
    expect(kept).toEqual([restore]);
    expect(refused).toEqual([expect.stringMatching(/^"Restore nothing" \(CONTENT_RESTORE\) was left out: params\.siteKey: .*version/)]);
  });
});
