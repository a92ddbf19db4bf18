import { describe, expect, it } from '@jest/globals';
import { figuresOf, ungroundedFigures } from '../domain/report.js';
import { analyse } from '../engine/analyse.js';
import { addDays } from '../engine/days.js';
import { narrate } from '../engine/narrative.js';
import { generateDaily } from '../engine/synthetic-series.js';
import { composeReport, type ToolOutcome } from './compose-report.js';

const lookup: ToolOutcome = {
  step: 3,
  tool: 'lookup_metric',
  data: { name: 'revenue', step: '1d', series: [{ labels: {}, unit: 'USD', source: 'store', stats: { points: 35, total: 100000, mean: 2857.14, min: 2000, max: 3500, first: 2800, last: 2500, lastWeekTotal: 18000.5, previousWeekTotal: 20000, weekOverWeekChangePercent: -10 }, points: [{ t: '2026-10-19', value: 2800 }, { t: '2026-11-22', value: 2500 }] }] },
  summary: 'revenue: 35 points, total 100000, mean 2857.14; last week 18000.5 vs 20000 the week before (-10%).',
};
const forecast: ToolOutcome<'forecast_metric'> = {
  step: 5,
  tool: 'forecast_metric',
  data: { name: 'revenue', labels: {}, model: 'MSTL(7)+AutoETS', horizon: 30, calibration: 1, combinedSeries: 1, total: { p10: 80000, p50: 85000.25, p90: 90000 }, previousPeriodTotal: 83000, history: [{ t: '2026-11-22', value: 2500 }], forecast: [{ t: '2026-11-23', p10: 2400, p50: 2600, p90: 2800 }] },
  summary: 'revenue over the next 30 days: 85000.25 expected',
};
const budgets: ToolOutcome = {
  step: 7,
  tool: 'read_budgets',
  data: { month: '2026-11', daysInMonth: 30, budgets: [{ agentCode: 'insight', allocatedUsd: 10, currentUsageUsd: 9, burnRatePercent: 90, alertThresholdPercent: 80, status: 'WARNING_THRESHOLD_EXCEEDED', hardLimitEnabled: true, projectedMonthUsd: 12.5 }] },
  summary: 'insight: $9 of $10',
};
const contents: ToolOutcome<'read_content'> = {
  step: 9,
  tool: 'read_content',
  data: { siteKey: 'demo', contents: [{ contentId: 'c1', siteKey: 'demo', slug: 'pricing', title: 'Pricing', status: 'PUBLISHED', publishedVersion: 2, latestVersion: 3, latestVersionStatus: 'DRAFT', publishedAt: null }] },
  summary: '1 contents',
};

describe('report composition', () => {
  it('writes findings whose every figure comes from a tool result', () => {
    const { report } = composeReport({ prompt: 'Why did revenue drop last week?', outcomes: [lookup, forecast, budgets], contentAsked: false });
    const sources = [lookup, forecast, budgets].map((o) => `${JSON.stringify(o.data)} ${o.summary}`);
    const text = [report.judgment, ...report.findings.flatMap((f) => [f.title, f.detail])].join('\n');
    expect(figuresOf(text).length).toBeGreaterThan(5);
    expect(ungroundedFigures(text, sources)).toEqual([]);
    expect(report.judgmentSource).toBe('composed');
    expect(report.findings[0]!.detail).toContain('18000.5');
    expect(report.charts.map((c) => c.kind)).toEqual(['SERIES', 'FORECAST']);
    expect(report.confidence.value).toBeGreaterThan(0);
    expect(report.confidence.value).toBeLessThanOrEqual(1);
  });

  it('keeps a model judgment only when every figure in it is grounded', () => {
    const grounded = composeReport({ prompt: 'q', outcomes: [lookup], model: { judgment: 'Revenue fell 10% to 18000.5 last week as sessions softened.', confidence: 0.7, confidenceReason: 'one metric' }, contentAsked: false });
    expect(grounded.report.judgmentSource).toBe('model');
    expect(grounded.report.confidence).toEqual({ value: 0.7, reason: 'one metric' });
    const invented = composeReport({ prompt: 'q', outcomes: [lookup], model: { judgment: 'Revenue fell 37% because of a 4200 drop in mobile visits.' }, contentAsked: false });
    expect(invented.report.judgmentSource).toBe('composed');
    expect(invented.ungrounded).toEqual(['37', '4200']);
  });

  it('proposes a run of a job that feeds an empty knowledge base only for a question the metrics did not answer', () => {
    const empty: ToolOutcome<'search_knowledge'> = {
      step: 4,
      tool: 'search_knowledge',
      data: { query: 'What do suppliers say about delivery times?', hits: [], crawlJobs: [{ jobId: 'j1', jobName: 'supplier news', targetUrl: 'https://news.example/', status: 'SCHEDULED', tenantId: 't1' }] },
      summary: 'Nothing in the knowledge base matches "What do suppliers say about delivery times?".',
    };
    const unanswered = composeReport({ prompt: 'What do suppliers say about delivery times?', outcomes: [empty], contentAsked: false });
    expect(unanswered.actions.map((a) => [a.kind, a.targetId, a.finding?.title])).toEqual([['CRAWL_TRIGGER', 'j1', 'No knowledge-base passage matches']]);
    const points = generateDaily({ start: addDays('2026-11-24', -199), days: 200, level: 900, seed: 17 });
    const finding = analyse({ question: 'Why did revenue drop last week?', catalog: [{ name: 'revenue' }], series: [{ name: 'revenue', labels: {}, points }], now: Date.parse('2026-11-25T10:00:00Z') });
    expect(finding.status).toBe('analysed');
    const analysed: ToolOutcome = { step: 2, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' };
    const answered = composeReport({ prompt: 'Why did revenue drop last week?', outcomes: [analysed, { ...empty, data: { ...empty.data, query: 'Why did revenue drop last week?' } }], contentAsked: false });
    expect(answered.actions.filter((a) => a.kind === 'CRAWL_TRIGGER')).toEqual([]);
  });

  it('proposes a budget raise when the month-end projection exceeds the allocation, and a publish for a waiting draft', () => {
    const { actions } = composeReport({ prompt: 'Is the pricing page hurting conversion?', outcomes: [budgets, contents], contentAsked: true });
    expect(actions.map((a) => [a.kind, a.targetType, a.targetId])).toEqual([['BUDGET_CHANGE', 'Agent', 'insight'], ['CONTENT_PUBLISH', 'Content', 'c1']]);
    expect(actions[0]!.params).toEqual({ monthlyBudgetUsd: 15, hardLimitEnabled: true });
    expect(actions[1]!.params).toEqual({ siteKey: 'demo', version: 3 });
    expect(composeReport({ prompt: 'q', outcomes: [contents], contentAsked: false }).actions).toEqual([]);
  });

  it('names each proposal\'s target in the report\'s words from what the tools read', () => {
    const { actions } = composeReport({ prompt: 'Is the pricing page hurting conversion?', outcomes: [budgets, contents], contentAsked: true });
    expect(actions.map((a) => [a.targetId, a.targetName])).toEqual([['insight', 'agent insight'], ['c1', '“Pricing”, page "pricing" (site demo)']]);
  });

  it('proposes publishing only the pages a question names, when it names any', () => {
    const two: ToolOutcome = { ...contents, data: { siteKey: 'demo', contents: [...contents.data.contents, { contentId: 'c2', siteKey: 'demo', slug: 'about-us', title: 'About', status: 'PUBLISHED', publishedVersion: 1, latestVersion: 2, latestVersionStatus: 'DRAFT', publishedAt: null }] } };
    const target = (prompt: string) => composeReport({ prompt, outcomes: [two], contentAsked: true }).actions.map((a) => a.targetId);
    expect(target('Is the pricing page hurting conversion?')).toEqual(['c1']);
    expect(target('Should the About us page change?')).toEqual(['c2']);
    expect(target('Which pages wait to be published?')).toEqual(['c1', 'c2']);
  });

  it('proposes one change of a target once', () => {
    const twice = composeReport({ prompt: 'Is the pricing page hurting conversion?', outcomes: [contents, { ...contents, step: 11 }], contentAsked: true });
    expect(twice.actions.map((a) => [a.kind, a.targetId])).toEqual([['CONTENT_PUBLISH', 'c1']]);
  });

  it('reads figures as written, without years', () => {
    expect(figuresOf('Revenue 1,234.5 (+12%) in 2026, down -3.2')).toEqual(['1234.5', '12', '3.2']);
    // An amount with a grouping comma is a figure even when its digits could be a year.
    expect(figuresOf('spend fell by −€2,146 in 2026')).toEqual(['2146']);
  });

  it('answers a question about the budgets with them first, leaving a metric that could not be compared to the findings', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    // Spend recorded only this month: nothing in the month before to compare it with.
    const points = generateDaily({ start: '2026-11-01', days: 24, level: 2, seed: 3 });
    const finding = analyse({ question: 'Is the budget enough for our model spend this month?', catalog: [{ name: 'model_spend', synonyms: ['model spend'] }], series: [{ name: 'model_spend', labels: {}, points }], now });
    expect(finding).toMatchObject({ status: 'no-data', missing: 'comparison' });
    const analysed: ToolOutcome = { step: 2, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' };
    const { report, actions } = composeReport({ prompt: finding.question, outcomes: [analysed, budgets], contentAsked: false });
    expect(report.judgment).toBe("No: agent insight has spent $9.00 of its $10.00 budget this month and at this pace spends $12.50 by the month's end, so the budget runs out around day 24 of 30 and the agent stops then (its hard limit is on). Actions are proposed for review below.");
    expect(actions.map((a) => a.kind)).toEqual(['BUDGET_CHANGE']);
    // As sure as the budgets' projection ($9.00 of $12.50 spent: day 22 of 30), not as the analysis that measured nothing.
    expect(report.confidence).toEqual({ value: 0.77, reason: "A straight-line projection of this month's spend after day 22 of 30: the later in the month, the less the rest of it can change the answer." });
    expect(composeReport({ prompt: finding.question, outcomes: [analysed], contentAsked: false }).report.confidence.value).toBeLessThan(0.5);
    // About another budget, the metric's analysis keeps the lead.
    const other = composeReport({ prompt: 'Why did revenue drop after the ad budget cut?', outcomes: [lookup, budgets], contentAsked: false }).report;
    expect(other.judgment).not.toMatch(/^No: agent/);
    expect(other.confidence.reason).not.toMatch(/straight-line/);
  });

  it('states one forecast when the engine forecast the subject too, and draws no waterfall for a question only about the future', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    const points = generateDaily({ start: addDays('2026-11-24', -199), days: 200, level: 900, seed: 17 });
    const finding = analyse({ question: 'Where are renewals heading over the next 30 days?', catalog: [{ name: 'renewals' }], series: [{ name: 'renewals', labels: {}, points }], now });
    expect(finding.forecast).toBeDefined();
    const analysed: ToolOutcome = { step: 2, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' };
    const tool: ToolOutcome = { ...forecast, step: 4, data: { ...forecast.data, name: 'renewals' }, summary: 'renewals over the next 30 days' };
    const { report } = composeReport({ prompt: finding.question, outcomes: [analysed, tool], contentAsked: false });
    expect(report.findings.map((f) => f.title)).not.toContain('renewals forecast for the next 30 days');
    expect(report.findings.filter((f) => f.title === 'Where it is heading')).toHaveLength(1);
    expect(report.charts.map((c) => c.kind)).toEqual(['SERIES', 'FORECAST']);
    const band = report.charts[1]!.band!;
    expect(band).toHaveLength(finding.forecast!.points.length);
    expect(band[0]).toEqual({ t: finding.forecast!.points[0]!.day, p10: finding.forecast!.points[0]!.p10, p50: finding.forecast!.points[0]!.p50, p90: finding.forecast!.points[0]!.p90 });
  });

  it('states the engine\'s what-if once: the simulation tool\'s own figures over another horizon go, its chart stays', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    const spend = generateDaily({ start: addDays('2026-11-24', -199), days: 200, level: 1000, seed: 5, noise: 0.2 });
    const income = spend.map((p) => ({ t: p.t, value: 20 * p.value ** 0.6 }));
    const catalog = [{ name: 'fees', drivers: [{ metric: 'promo_spend' }] }, { name: 'promo_spend' }];
    const finding = analyse({ question: 'What if we cut promo spend by 20%?', catalog, series: [{ name: 'fees', labels: {}, points: income }, { name: 'promo_spend', labels: {}, points: spend }], now });
    expect(finding.whatIf?.effect).toBeDefined();
    const analysed: ToolOutcome = { step: 2, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' };
    const simulated: ToolOutcome = {
      step: 4, tool: 'simulate_scenario', summary: 'fees under -20% promo_spend',
      data: { target: 'fees', driver: 'promo_spend{channel=search}', changePercent: -20, horizon: 30, seed: 1, runs: 2000, elasticity: { value: 0.6, standardError: 0.1, source: 'estimated' }, total: { p10: 16100, p50: 16300, p90: 16500 }, impact: { p10: -900, p50: -700, p90: -500 }, impactPercent: -4.1, baselineTotal: 17000, band: [{ t: '2026-11-25', p10: 1, p50: 2, p90: 3 }] },
    };
    const { report } = composeReport({ prompt: finding.question, outcomes: [analysed, simulated], contentAsked: false });
    expect(report.findings.filter((f) => f.title.includes('promo_spend →'))).toEqual([]);
    expect(report.findings.filter((f) => f.title === 'What the change would do').length).toBeGreaterThan(0);
    expect(report.charts.map((c) => c.kind)).toEqual(['SERIES', 'SIMULATION']);
  });

  it('states no effect from a simulation whose estimated elasticity is 1.25 standard errors from zero, and draws none', () => {
    const simulated: ToolOutcome = {
      step: 1, tool: 'simulate_scenario', summary: 'berth_bookings under +25% fuel_sales',
      data: { target: 'berth_bookings', driver: 'fuel_sales', changePercent: 25, horizon: 30, seed: 1, runs: 2000, elasticity: { value: 0.17, standardError: 0.136, source: 'estimated' }, total: { p10: 9100, p50: 9400, p90: 9700 }, impact: { p10: 100, p50: 380, p90: 650 }, impactPercent: 4.2, baselineTotal: 9020, band: [{ t: '2026-11-25', p10: 1, p50: 2, p90: 3 }] },
    };
    const { report, actions } = composeReport({ prompt: 'What if we raise fuel sales by 25%?', outcomes: [simulated], contentAsked: false });
    const said = report.findings.find((f) => f.title === 'No reliable relation between fuel_sales and berth_bookings');
    expect(said?.detail).toContain('95 % interval of -0.1 to 0.44, which holds zero');
    expect(JSON.stringify(report.findings)).not.toContain('+380');
    expect(report.charts.filter((c) => c.kind === 'SIMULATION')).toEqual([]);
    expect(actions).toEqual([]);
  });
});
