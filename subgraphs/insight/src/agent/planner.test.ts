import { describe, expect, it } from '@jest/globals';
import { asksAboutPages, planAnalysis, spell, type CatalogItem } from './planner.js';

// Names the demo shop does not use: the plan must come from the catalog, not from the code.
const catalog: CatalogItem[] = [
  { name: 'bookings', unit: { kind: 'currency', code: 'EUR' }, synonyms: ['reservations'] },
  { name: 'visits', unit: { kind: 'count', noun: 'visits' } },
  { name: 'checkout_ratio', unit: { kind: 'ratio' } },
  { name: 'marketing_spend', unit: { kind: 'currency', code: 'EUR' }, labels: ['channel'], labelValues: { channel: ['display', 'search', 'social'] } },
  { name: 'cdn_traffic_bytes', unit: { kind: 'count', noun: 'bytes' }, labels: ['region'], labelValues: { region: ['eu'] } },
  { name: 'llm.cost_usd', unit: { kind: 'currency', code: 'USD' }, labels: ['agent'], synonyms: ['model spend'] },
];
const now = Date.parse('2026-11-23T12:00:00Z');
const plan = (prompt: string, crossService = true) => planAnalysis(prompt, catalog, { siteKey: 'demo', now, crossService });
const tools = (prompt: string, crossService = true) => plan(prompt, crossService).tasks.map((t) => t.tool);

describe('analysis playbook', () => {
  it('analyses the metric the question names, first, and reads the knowledge base', () => {
    const p = plan('Why did bookings drop last week?');
    expect(p.target).toBe('bookings');
    expect(tools('Why did bookings drop last week?')).toEqual(['list_metrics', 'analyse_change', 'search_knowledge']);
    expect(p.tasks[1]!.args).toEqual({ question: 'Why did bookings drop last week?' });
  });

  it('takes a declared synonym and a metric named by its words, and says what else matched', () => {
    expect(plan('Why did reservations fall yesterday?').target).toBe('bookings');
    expect(plan('Why did CDN traffic drop yesterday?').target).toBe('cdn_traffic_bytes');
    expect(plan('Why did our model spend jump last week?').target).toBe('llm.cost_usd');
  });

  it('simulates a stated change of a lever on the named label value, with the sign the words give', () => {
    const up = plan('What would happen to bookings if we increase search marketing spend by 20% next month?').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(up.args).toMatchObject({ target_metric: 'bookings', driver_metric: 'marketing_spend', driver_labels: 'channel=search', change_percent: 20, horizon: 30 });
    const down = plan('What happens to bookings if we cut social marketing spend by 15%?').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(down.args).toMatchObject({ driver_labels: 'channel=social', change_percent: -15 });
    expect(tools('How are bookings doing?')).not.toContain('simulate_scenario');
  });

  it('answers every clause: a forecast, a what-if with the amount first, and a proposal, in phrasings of its own', () => {
    for (const prompt of [
      'Forecast bookings for the next 30 days, simulate 20% more marketing spend, and propose a budget change',
      'Project bookings over the next 2 weeks; what would 15 percent less search marketing spend do? Suggest what to change.',
      'Where are bookings heading next month, and what if we raise marketing spend 10%?',
    ]) {
      const p = plan(prompt);
      expect([prompt, p.target]).toEqual([prompt, 'bookings']);
      expect([prompt, p.tasks.map((t) => t.tool)]).toEqual([prompt, expect.arrayContaining(['analyse_change', 'simulate_scenario', 'forecast_metric'])]);
    }
    const simulated = plan('Forecast bookings for the next 30 days, simulate 20% more marketing spend, and propose a budget change').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(simulated.args).toMatchObject({ target_metric: 'bookings', driver_metric: 'marketing_spend', driver_labels: '', change_percent: 20, horizon: 30 });
    const less = plan('Project bookings over the next 2 weeks; what would 15 percent less search marketing spend do? Suggest what to change.').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(less.args).toMatchObject({ driver_metric: 'marketing_spend', driver_labels: 'channel=search', change_percent: -15 });
  });

  it('reads budgets when the question is about model spend, and content when it is about pages', () => {
    expect(tools('Why did our model spend jump last week?')).toContain('read_budgets');
    // An ad or marketing budget is not the model gateway's.
    expect(tools('Why did bookings drop after the ad budget cut?')).not.toContain('read_budgets');
    expect(tools('Did the marketing budget pay off for bookings?')).not.toContain('read_budgets');
    expect(tools('Is the pricing page hurting the checkout ratio?')).toContain('read_content');
    expect(tools('Is the pricing page hurting the checkout ratio?', false)).not.toContain('read_content');
    // Conversion reads the pages (they may move it), but only a question about them asks for a waiting draft's publication.
    expect(tools('Did the conversion rate change last month?')).toContain('read_content');
    expect(asksAboutPages('Did the conversion rate change last month?')).toBe(false);
    expect(asksAboutPages('Is the Pricing page hurting conversion?')).toBe(true);
    expect(asksAboutPages('Should we publish the new landing copy?')).toBe(true);
  });

  it('spells every argument out in the instruction, so a model can fill them', () => {
    for (const t of plan('What if we raise search marketing spend by 10%? Forecast bookings for the next 60 days').tasks) {
      for (const [k, v] of Object.entries(t.args)) expect(t.instruction).toContain(`${k}: ${spell(v)}`);
    }
    expect(plan('Forecast bookings for the next 60 days').tasks.find((t) => t.tool === 'forecast_metric')!.args.horizon).toBe(60);
    expect(spell('channel=search')).toBe('channel=search');
    expect(spell('Why did bookings drop?')).toBe('"Why did bookings drop?"');
    expect(spell('')).toBe('""');
  });

  it('only lists metrics when there are none, and lets the engine say so when the question names none of them', () => {
    expect(planAnalysis('Why did revenue drop?', [], { siteKey: 'demo', now, crossService: true })).toEqual({ target: '', alsoMatched: [], tasks: [expect.objectContaining({ tool: 'list_metrics' })] });
    const unknown = plan('Why did churn rise?');
    expect(unknown.target).toBe('');
    expect(unknown.tasks.map((t) => t.tool)).toEqual(['list_metrics', 'analyse_change', 'search_knowledge']);
    // A question about the budgets names no metric, and still reads them.
    expect(tools('Is our budget enough this month?')).toEqual(['list_metrics', 'analyse_change', 'search_knowledge', 'read_budgets']);
  });
});
