import { describe, expect, it } from '@jest/globals';
import { problemsOf } from '@svc/kit';
import { withDefaults } from '../engine/catalog.js';
import { DEMO_DEFINITIONS, demoSeries } from './demo-series.js';
import { ingestDefinitionsSchema, metricDefinitionSchema, namedDefinitionSchema } from './metric-definition.js';
import { eventInputSchema, eventListSchema, eventWindow } from './timeline-event.js';

/** Pointers of every problem of `value` under `schema` (none when it is valid). */
const problems = (schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : problemsOf(parsed.error as never).map((p) => p.pointer).sort();
};

describe('metric definitions', () => {
  it('accepts every member of the engine\'s catalog entry and keeps it as declared', () => {
    const definition = {
      unit: { kind: 'currency', code: 'EUR' }, aggregation: { ratio: { numerator: 'revenue_eur', denominator: 'orders' } }, upIsGood: true,
      formula: { product: ['orders', 'basket'] }, drivers: [{ metric: 'ad.spend', labels: { channel: 'search' }, lagDays: 90, elasticity: -0.5 }],
      synonyms: ['basket value'], description: 'Revenue per order',
    };
    expect(namedDefinitionSchema.parse({ name: 'order_value', definition })).toEqual({ name: 'order_value', definition });
    expect(metricDefinitionSchema.parse({})).toEqual({});
    for (const unit of [{ kind: 'count' }, { kind: 'count', noun: 'visits' }, { kind: 'ratio' }, { kind: 'percent' }]) expect(problems(metricDefinitionSchema, { unit })).toEqual([]);
    for (const aggregation of ['sum', 'mean', 'last']) expect(problems(metricDefinitionSchema, { aggregation })).toEqual([]);
    expect(metricDefinitionSchema.parse({ formula: { sum: ['a', 'b'] } })).toEqual({ formula: { sum: ['a', 'b'] } });
  });

  it('names each bad field: names, units, aggregation, formula, lag, elasticity, unknown members', () => {
    expect(problems(metricDefinitionSchema, { unit: { kind: 'currency', code: 'usd' } })).toEqual(['/unit/code']);
    expect(problems(metricDefinitionSchema, { unit: { kind: 'weight' } })).toEqual(['/unit/kind']);
    expect(problems(metricDefinitionSchema, { unit: { kind: 'ratio', noun: 'x' } })).toEqual(['/unit']);
    expect(problems(metricDefinitionSchema, { aggregation: 'sum of squares' })).toEqual(['/aggregation']);
    expect(problems(metricDefinitionSchema, { formula: { product: ['a', 'Not A Name'] } })).toEqual(['/formula/product/1']);
    expect(problems(metricDefinitionSchema, { formula: { product: ['a'] } })).toEqual(['/formula/product']);
    expect(problems(metricDefinitionSchema, { formula: { product: ['a', 'b'], sum: ['c', 'd'] } })).toEqual(['/formula']);
    expect(problems(metricDefinitionSchema, { formula: {} })).toEqual(['/formula']);
    expect(problems(metricDefinitionSchema, { drivers: [{ metric: 'a', lagDays: 91 }, { metric: 'b', lagDays: -1 }, { metric: 'c', lagDays: 1.5 }] })).toEqual(['/drivers/0/lagDays', '/drivers/1/lagDays', '/drivers/2/lagDays']);
    expect(problems(metricDefinitionSchema, { drivers: [{ metric: 'a', elasticity: Number.POSITIVE_INFINITY }, { metric: 'b', elasticity: Number.NaN }, { metric: 'c', elasticity: '0.3' }] })).toEqual(['/drivers/0/elasticity', '/drivers/1/elasticity', '/drivers/2/elasticity']);
    expect(problems(metricDefinitionSchema, { drivers: [{ metric: 'a', labels: { 'Bad-Key': 'x', ok: '' } }] })).toEqual(['/drivers/0/labels/Bad-Key', '/drivers/0/labels/ok']);
    expect(problems(metricDefinitionSchema, { drivers: [{ metric: 'a', weight: 2 }] })).toEqual(['/drivers/0']);
    expect(problems(metricDefinitionSchema, { colour: 'red', synonyms: [''] })).toEqual(['/', '/synonyms/0']);
    expect(problems(metricDefinitionSchema, { upIsGood: 'yes', description: 'x'.repeat(501) })).toEqual(['/description', '/upIsGood']);
    expect(problems(metricDefinitionSchema, { display: { name: '', labels: { channel: 'x'.repeat(81) }, values: { channel: { search: 7 } }, colour: 'red' } })).toEqual(['/display', '/display/labels/channel', '/display/name', '/display/values/channel/search']);
    expect(problems(metricDefinitionSchema, { display: { values: { channel: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`v${i}`, 'x'])) } } })).toEqual(['/display/values/channel']);
    expect(problems(metricDefinitionSchema, { display: { name: 'Conversion rate', labels: { channel: 'Channel' }, values: { channel: { search: 'Search ads' } } } })).toEqual([]);
  });

  it('refuses a definition that refers to its own metric', () => {
    expect(problems(namedDefinitionSchema, { name: 'orders', definition: { formula: { product: ['visits', 'orders'] }, drivers: [{ metric: 'orders' }] } })).toEqual(['/definition/drivers/0/metric', '/definition/formula/product/1']);
    expect(problems(namedDefinitionSchema, { name: 'rate', definition: { aggregation: { ratio: { numerator: 'rate', denominator: 'rate' } } } })).toEqual(['/definition/aggregation/ratio/denominator', '/definition/aggregation/ratio/denominator', '/definition/aggregation/ratio/numerator']);
    expect(problems(namedDefinitionSchema, { name: 'rate', definition: { aggregation: { ratio: { numerator: 'a', denominator: 'a' } } } })).toEqual(['/definition/aggregation/ratio/denominator']);
    expect(problems(namedDefinitionSchema, { name: 'Orders', definition: {} })).toEqual(['/name']);
    expect(problems(ingestDefinitionsSchema, [{ name: 'a', drivers: [{ metric: 'a' }] }, { name: 'b' }, { name: 'b' }])).toEqual(['/0/drivers/0/metric', '/2/name']);
  });

  it('seeds demo definitions that hold: valid, and revenue is the product of its factors day by day', () => {
    for (const d of DEMO_DEFINITIONS) expect(problems(namedDefinitionSchema, d)).toEqual([]);
    const series = demoSeries(new Date('2026-11-23T00:00:00Z'), () => 0.37);
    const values = (name: string) => series.find((s) => s.name === name)!.points.map((p) => p.value);
    const revenue = DEMO_DEFINITIONS.find((d) => d.name === 'revenue')!.definition;
    const factors = (revenue.formula as { product: string[] }).product.map(values);
    for (const f of factors) expect(f).toHaveLength(730);
    values('revenue').forEach((r, i) => expect(Math.abs(r - factors.reduce((p, f) => p * f[i]!, 1))).toBeLessThan(1e-6));
    values('orders').forEach((o) => expect(Number.isInteger(o) && o > 0).toBe(true));
    expect(withDefaults({ name: 'conversion_rate', ...DEMO_DEFINITIONS.find((d) => d.name === 'conversion_rate')!.definition } as never).aggregation).toEqual({ ratio: { numerator: 'orders', denominator: 'sessions' } });
  });
});

describe('events', () => {
  it('takes RFC 3339 or epoch milliseconds, a short kind and a title, and names each bad field', () => {
    expect(eventInputSchema.parse({ at: '2026-11-14T09:00:00+01:00', kind: 'price_change', title: ' Pricing ' })).toEqual({ at: Date.UTC(2026, 10, 14, 8), kind: 'price_change', title: 'Pricing' });
    expect(eventInputSchema.parse({ at: 1_700_000_000_000, kind: 'deploy', title: 'v2', ref: 'r' }).at).toBe(1_700_000_000_000);
    expect(problems(eventInputSchema, { at: 'yesterday', kind: 'Price-Change', title: '   ', ref: '' })).toEqual(['/at', '/kind', '/ref', '/title']);
    expect(problems(eventInputSchema, { at: 1.5, kind: 'k'.repeat(41), title: 't', source: 'platform' })).toEqual(['/', '/at', '/kind']);
    expect(problems(eventInputSchema, { at: '2300-01-01', kind: 'a', title: 't' })).toEqual(['/at']);
  });

  it('defaults the window to the last 90 days and refuses a reversed or too long one', () => {
    const now = Date.UTC(2026, 10, 25);
    expect(eventWindow(eventListSchema.parse({}), now)).toEqual({ from: now - 90 * 86_400_000, to: now, kind: undefined });
    expect(eventWindow(eventListSchema.parse({ from: '2026-11-01', kind: 'deploy' }), now)).toEqual({ from: Date.UTC(2026, 10, 1), to: now, kind: 'deploy' });
    expect(eventWindow(eventListSchema.parse({ from: '2020-01-01' }), now)).toEqual({ pointer: '/from', detail: expect.stringContaining('longer than 1100 days') });
    expect(problems(eventListSchema, { from: '2026-11-02', to: '2026-11-01' })).toEqual(['/from']);
  });
});
