import type { Point, Series } from '../../domain/metric.js';
import type { GraphCall } from '../graph-call.js';
import type { Caller, CatalogEntry, MetricSourceAdapter } from './metric-source.js';

/**
 * The platform's own figures as metrics, read through the router with the caller's authority:
 * the model gateway's spend, tokens and requests per agent per UTC day (llm `usage`), so an
 * analyst can ask why model spend jumped. Series are labelled `agent`; a lookup's label filter
 * narrows to one agent.
 */
const METRICS = {
  'llm.cost_usd': { unit: 'USD', description: 'Model gateway spend per agent per day', value: (r: UsageRow) => r.costUsd },
  'llm.tokens': { unit: 'tokens', description: 'Prompt and completion tokens per agent per day', value: (r: UsageRow) => r.promptTokens + r.completionTokens },
  'llm.requests': { unit: 'requests', description: 'Model gateway requests per agent per day', value: (r: UsageRow) => r.requests },
} as const;

type Name = keyof typeof METRICS;

interface UsageRow {
  agentCode: string;
  model: string;
  day: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

const DAY = 86_400_000;

export function platformSource(deps: { call: GraphCall; headers(caller: Caller): Promise<Record<string, string>> }): MetricSourceAdapter {
  return {
    kind: 'platform',
    serves: (name) => name in METRICS,
    async catalog(): Promise<CatalogEntry[]> {
      return Object.entries(METRICS).map(([name, m]) => ({ name, labels: {}, unit: m.unit, source: 'platform' as const, description: `${m.description} (label agent)` }));
    },
    async lookup(caller, query): Promise<Series[]> {
      const metric = METRICS[query.name as Name];
      const day = (t: number) => new Date(t).toISOString().slice(0, 10);
      const data = await deps.call<{ usage: UsageRow[] }>(
        'InsightUsage',
        { from: day(query.from), to: day(query.to + DAY - 1), ...(query.labels.agent ? { agentCode: query.labels.agent } : {}) },
        await deps.headers(caller),
      );
      const byAgent = new Map<string, Map<number, number>>();
      for (const row of data.usage) {
        const t = Date.parse(`${row.day}T00:00:00Z`);
        if (t < query.from || t >= query.to) continue;
        const days = byAgent.get(row.agentCode) ?? new Map<number, number>();
        days.set(t, (days.get(t) ?? 0) + metric.value(row));
        byAgent.set(row.agentCode, days);
      }
      return [...byAgent.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([agent, days]) => {
        const points: Point[] = [...days.entries()].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({ t, value }));
        return { name: query.name, labels: { agent }, unit: metric.unit, source: 'platform' as const, points };
      });
    },
  };
}
