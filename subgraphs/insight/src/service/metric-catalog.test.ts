import { describe, expect, it } from '@jest/globals';
import type { Principal } from '@svc/kit';
import type { StoredDefinition } from '../domain/metric-definition.js';
import type { DefinitionStore } from '../store/definition-store.js';
import { createCatalogService, LABEL_VALUES_LISTED, unitOfText } from './metric-catalog.js';
import type { MetricService } from './metrics.js';
import type { CatalogEntry } from './sources/metric-source.js';

const caller = (roles: Principal['roles']) => ({ principal: { subject: 'ana', roles, tenants: ['acme'], sites: [] } as Principal, tenantId: 'acme', headers: {} });

function catalogWith(series: CatalogEntry[], declared: StoredDefinition[]) {
  const definitions = { list: async (tenantId: string) => (tenantId === 'acme' ? declared : []) } as unknown as DefinitionStore;
  const metrics = { names: async () => series } as unknown as MetricService;
  return createCatalogService({ definitions, metrics });
}

const stored = (name: string, definition: StoredDefinition['definition']): StoredDefinition => ({ name, definition, updatedAt: new Date(0), updatedBy: 'ana' });

describe('the catalog the analysis reads', () => {
  it('reads a series\' unit text as a unit', () => {
    expect(unitOfText('EUR')).toEqual({ kind: 'currency', code: 'EUR' });
    expect(unitOfText('ratio')).toEqual({ kind: 'ratio' });
    expect(unitOfText('%')).toEqual({ kind: 'percent' });
    expect(unitOfText('visits')).toEqual({ kind: 'count', noun: 'visits' });
    for (const plain of ['count', 'Counts', 'number', '#', '1']) expect(unitOfText(plain)).toEqual({ kind: 'count' });
    expect(unitOfText(null)).toBeUndefined();
  });

  it('merges each name\'s definition with its series\' labels, label values and unit; leaves out names without series', async () => {
    const catalog = catalogWith(
      [
        { name: 'signups', labels: { plan: 'pro', region: 'eu' }, unit: 'signups', source: 'store' },
        { name: 'signups', labels: { plan: 'free', region: 'eu' }, unit: 'signups', source: 'store' },
        { name: 'api.errors', labels: {}, unit: 'requests', source: 'platform', description: 'Errors per day', labelNames: ['service'] },
      ],
      [stored('signups', { upIsGood: true, drivers: [{ metric: 'api.errors', lagDays: 1 }], description: 'New accounts' }), stored('churn', { upIsGood: false })],
    );
    expect(await catalog.catalogEntries(caller(['reviewer']))).toEqual([
      { name: 'api.errors', unit: { kind: 'count', noun: 'requests' }, labels: ['service'], labelValues: {}, description: 'Errors per day' },
      { name: 'signups', upIsGood: true, drivers: [{ metric: 'api.errors', lagDays: 1 }], unit: { kind: 'count', noun: 'signups' }, labels: ['plan', 'region'], labelValues: { plan: ['free', 'pro'], region: ['eu'] }, description: 'New accounts' },
    ]);
    await expect(catalog.catalogEntries(caller(['editor']))).rejects.toThrow('roles');
  });

  it('derives a declared ratio without series of its own from its numerator and denominator, with the labels both carry', async () => {
    const catalog = catalogWith(
      [
        { name: 'returns', labels: { country: 'br', channel: 'web' }, unit: 'returns', source: 'store' },
        { name: 'returns', labels: { country: 'mx', channel: 'app' }, unit: 'returns', source: 'store' },
        { name: 'sales_count', labels: { country: 'br' }, unit: 'sales', source: 'store' },
        { name: 'sales_count', labels: { country: 'mx' }, unit: 'sales', source: 'store' },
      ],
      [
        stored('return_rate', { aggregation: { ratio: { numerator: 'returns', denominator: 'sales_count' } }, upIsGood: false }),
        stored('gift_rate', { aggregation: { ratio: { numerator: 'gifts', denominator: 'sales_count' } } }),
      ],
    );
    const entries = await catalog.catalogEntries(caller(['analyst']));
    expect(entries.map((e) => e.name)).toEqual(['return_rate', 'returns', 'sales_count']);
    expect(entries[0]).toEqual({ name: 'return_rate', aggregation: { ratio: { numerator: 'returns', denominator: 'sales_count' } }, upIsGood: false, unit: { kind: 'ratio' }, labels: ['country'], labelValues: { country: ['br', 'mx'] } });
  });

  it('lists at most a bounded number of values per label', async () => {
    const series = Array.from({ length: LABEL_VALUES_LISTED + 50 }, (_, i) => ({ name: 'hits', labels: { pop: `p${String(i).padStart(4, '0')}` }, unit: null, source: 'store' as const }));
    const [entry] = await catalogWith(series, []).catalogEntries(caller(['analyst']));
    expect(entry!.labelValues!.pop).toHaveLength(LABEL_VALUES_LISTED);
    expect(entry!.unit).toBeUndefined();
  });
});
