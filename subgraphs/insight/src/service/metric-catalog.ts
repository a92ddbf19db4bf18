import { parseInput, requireRole, SvcError, type TenantRequest } from '@svc/kit';
import type { CatalogEntry, Unit } from '../engine/catalog.js';
import { namedDefinitionSchema, type StoredDefinition } from '../domain/metric-definition.js';
import type { DefinitionStore } from '../store/definition-store.js';
import { scoped } from './jobs.js';
import type { MetricService } from './metrics.js';
import type { Caller } from './sources/metric-source.js';

export interface CatalogServiceDeps {
  definitions: DefinitionStore;
  metrics: MetricService;
}

/** A catalog entry for the engine, with the tenant's description of the metric when it gave one. */
export type DescribedEntry = CatalogEntry & { description?: string };

/** Label values listed per label in an entry; a label with more is listed by its first values. */
export const LABEL_VALUES_LISTED = 200;

/** Unit texts that only say "a number": printed with no noun. */
const PLAIN_NUMBER = /^(?:counts?|numbers?|num|qty|quantity|total|amount|value|none|#|1|n)$/i;

/**
 * A series' unit text as an engine unit: a three-letter ISO code is a currency, `ratio` a
 * fraction, `percent` or `%` percent points, a word that only says "a number" (`count`,
 * `number`, `qty`, `#`, `1`) a plain count, anything else a count of that noun (`visits`).
 */
export function unitOfText(unit: string | null | undefined): Unit | undefined {
  if (!unit) return undefined;
  if (/^[A-Z]{3}$/.test(unit)) return { kind: 'currency', code: unit };
  if (unit === 'ratio') return { kind: 'ratio' };
  if (unit === 'percent' || unit === '%') return { kind: 'percent' };
  if (PLAIN_NUMBER.test(unit.trim())) return { kind: 'count' };
  return { kind: 'count', noun: unit };
}

const notDefined = (name: string) => new SvcError('NOT_FOUND', `Metric ${JSON.stringify(name)} has no definition in this tenant; declare one with PUT /api/v1/insight/metrics/{name}/definition or defineMetric`);

/** What a tenant's metrics mean: declaring and reading definitions, and the catalog the analysis engine reads. */
export function createCatalogService(deps: CatalogServiceDeps) {
  return {
    /** Declares (replaces) a metric's definition in the caller's tenant. Role analyst. */
    async define(request: TenantRequest, name: unknown, definition: unknown): Promise<StoredDefinition> {
      const { principal, tenantId } = scoped(request, 'analyst');
      const input = parseInput(namedDefinitionSchema, { name, definition });
      return deps.definitions.put(tenantId, principal.subject, input.name, input.definition);
    },

    /** One metric's definition; 404 when the tenant declared none. Roles analyst, reviewer. */
    async definition(request: TenantRequest, name: string): Promise<StoredDefinition> {
      const { tenantId } = scoped(request, 'analyst', 'reviewer');
      const found = await deps.definitions.get(tenantId, name);
      if (!found) throw notDefined(name);
      return found;
    },

    /** Every definition of the caller's tenant, by name. */
    async definitions(request: TenantRequest): Promise<StoredDefinition[]> {
      const { tenantId } = scoped(request, 'analyst', 'reviewer');
      return deps.definitions.list(tenantId);
    },

    /**
     * For every metric name of the tenant's catalog (stored series, the platform's figures,
     * Prometheus): its declared definition merged with what the series show (label names, label
     * values, a unit from the series' unit text when none is declared). The engine's
     * `withDefaults` decides the rest. A definition of a name with no series is left out (the
     * engine then says the metric is unknown rather than inventing figures), except a ratio whose
     * numerator and denominator both have series: it is derived from them (Σ numerator ÷
     * Σ denominator, day by day and over a period), with the labels both parts carry.
     */
    async catalogEntries(caller: Caller): Promise<CatalogEntry[]> {
      requireRole(caller.principal, 'analyst', 'reviewer');
      const [series, declared] = await Promise.all([deps.metrics.names(caller), deps.definitions.list(caller.tenantId)]);
      const definitions = new Map(declared.map((d) => [d.name, d.definition]));
      const known = new Map<string, { unit?: string; labels: Map<string, Set<string>>; description?: string; synonyms: Set<string> }>();
      for (const s of series) {
        const entry = known.get(s.name) ?? { labels: new Map<string, Set<string>>(), synonyms: new Set<string>() };
        for (const word of s.synonyms ?? []) entry.synonyms.add(word);
        if (!entry.unit && s.unit) entry.unit = s.unit;
        if (!entry.description && s.description) entry.description = s.description;
        for (const label of s.labelNames ?? []) if (!entry.labels.has(label)) entry.labels.set(label, new Set());
        for (const [label, value] of Object.entries(s.labels)) {
          const values = entry.labels.get(label) ?? new Set<string>();
          if (values.size < LABEL_VALUES_LISTED) values.add(value);
          entry.labels.set(label, values);
        }
        known.set(s.name, entry);
      }
      for (const [name, definition] of definitions) {
        const aggregation = definition.aggregation;
        if (known.has(name) || !aggregation || typeof aggregation !== 'object') continue;
        const num = known.get(aggregation.ratio.numerator);
        const den = known.get(aggregation.ratio.denominator);
        if (!num || !den) continue;
        const labels = new Map([...num.labels].filter(([label]) => den.labels.has(label)));
        known.set(name, { unit: 'ratio', labels, synonyms: new Set() });
      }
      return [...known.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, seen]): DescribedEntry => {
          const { description, ...declaredDef } = definitions.get(name) ?? {};
          const unit = declaredDef.unit ?? unitOfText(seen.unit);
          const labels = [...seen.labels.keys()].sort();
          const labelValues = Object.fromEntries(labels.filter((l) => seen.labels.get(l)!.size > 0).map((l) => [l, [...seen.labels.get(l)!].sort()]));
          const text = description ?? seen.description;
          // The tenant's words first, then the ones the source gives (the platform's own figures carry some).
          const synonyms = [...new Set([...(declaredDef.synonyms ?? []), ...seen.synonyms])];
          return { name, ...declaredDef, ...(unit ? { unit } : {}), labels, labelValues, ...(synonyms.length ? { synonyms } : {}), ...(text ? { description: text } : {}) };
        });
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
