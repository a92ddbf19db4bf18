import { describe, expect, it } from '@jest/globals';
import { planAnalysis, spell, type CatalogItem } from './planner.js';

const catalog: CatalogItem[] = [
  { name: 'revenue', labels: {}, unit: 'USD' },
  { name: 'sessions', labels: {}, unit: 'visits' },
  { name: 'conversion_rate', labels: {}, unit: 'ratio' },
  ...['search', 'social', 'display'].map((channel) => ({ name: 'ad_spend', labels: { channel }, unit: 'USD' })),
  { name: 'llm.cost_usd', labels: { agent: 'insight' }, unit: 'USD' },
];
const now = Date.parse('2026-11-23T12:00:00Z');
const plan = (prompt: string, crossService = true) => planAnalysis(prompt, catalog, { siteKey: 'demo', now, crossService });
const tools = (prompt: string, crossService = true) => plan(prompt, crossService).tasks.map((t) => t.tool);

describe('analysis playbook', () => {
  it('explains a change of revenue through its drivers, forecasts it and reads the knowledge base', () => {
    const p = plan('Why did revenue drop last week?');
    expect(p.target).toBe('revenue');
    expect(p.tasks.filter((t) => t.tool === 'lookup_metric').map((t) => t.args.name)).toEqual(['revenue', 'sessions', 'conversion_rate', 'ad_spend']);
    expect(p.tasks[1]!.args).toMatchObject({ from: '2026-10-19', to: '2026-11-23', step: '1d' });
    expect(tools('Why did revenue drop last week?')).toEqual(['list_metrics', 'lookup_metric', 'lookup_metric', 'lookup_metric', 'lookup_metric', 'forecast_metric', 'search_knowledge']);
  });

  it('simulates a stated change of a driver on the named channel, with the sign the words give', () => {
    const up = plan('What if we increase search ad spend by 20% next month?').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(up.args).toMatchObject({ target_metric: 'revenue', driver_metric: 'ad_spend', driver_labels: 'channel=search', change_percent: 20, horizon: 30 });
    const down = plan('What happens to revenue if we cut social ads by 15%?').tasks.find((t) => t.tool === 'simulate_scenario')!;
    expect(down.args).toMatchObject({ driver_labels: 'channel=social', change_percent: -15 });
    expect(tools('How is revenue doing?')).not.toContain('simulate_scenario');
  });

  it('reads budgets when the question is about model spend, and content when it is about pages', () => {
    const spend = plan('Why did our model spend jump last week?');
    expect(spend.target).toBe('llm.cost_usd');
    expect(spend.tasks.map((t) => t.tool)).toContain('read_budgets');
    expect(tools('Is the pricing page hurting conversion?')).toContain('read_content');
    expect(tools('Is the pricing page hurting conversion?', false)).not.toContain('read_content');
  });

  it('spells every argument out in the instruction, so a model can fill them', () => {
    for (const t of plan('What if we raise search ads by 10%? Forecast revenue for the next 60 days').tasks) {
      for (const [k, v] of Object.entries(t.args)) expect(t.instruction).toContain(`${k}: ${spell(v)}`);
    }
    expect(plan('Forecast revenue for the next 60 days').tasks.find((t) => t.tool === 'forecast_metric')!.args.horizon).toBe(60);
    expect(spell('channel=search')).toBe('channel=search');
    expect(spell('Why did revenue drop?')).toBe('"Why did revenue drop?"');
    expect(spell('')).toBe('""');
  });

  it('only lists metrics when there are none', () => {
    expect(planAnalysis('Why did revenue drop?', [], { siteKey: 'demo', now, crossService: true })).toEqual({ target: '', alsoMatched: [], tasks: [expect.objectContaining({ tool: 'list_metrics' })] });
  });
});
