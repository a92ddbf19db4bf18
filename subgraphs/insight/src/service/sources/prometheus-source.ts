import { SvcError, type Logger } from '@svc/kit';
import type { Labels, Point, Series } from '../../domain/metric.js';
import type { CatalogEntry, MetricSourceAdapter } from './metric-source.js';

/**
 * Series read through Prometheus's HTTP API (SVC_PROMETHEUS_URL): the catalog from
 * `/api/v1/label/__name__/values` (cached a minute), lookups as `query_range` over the
 * window with the lookup's step (default 1h), label filters as exact matchers. The URL is
 * operator configuration, not user input; label values are escaped into the selector.
 */
export interface PrometheusSourceOptions {
  baseUrl: string;
  log: Logger;
  timeoutMs?: number;
  /** Largest number of points Prometheus is asked for per series. */
  maxPoints?: number;
  /** The tenants whose analyses may read these series (SVC_PROMETHEUS_TENANTS); others never see them. */
  tenants: readonly string[] | '*';
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function selectorOf(name: string, labels: Labels): string {
  const matchers = Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`);
  return matchers.length ? `${name}{${matchers.join(',')}}` : name;
}

export function prometheusSource(options: PrometheusSourceOptions): MetricSourceAdapter {
  const base = options.baseUrl.replace(/\/$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  let names: { at: number; values: Set<string> } | undefined;

  async function get(path: string, params: Record<string, string>): Promise<unknown> {
    const url = `${base}${path}?${new URLSearchParams(params)}`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    } catch (error) {
      throw new SvcError('UNAVAILABLE', `Prometheus at ${base} did not answer`, { retryAfter: 10, cause: error });
    }
    const body = (await response.json().catch(() => undefined)) as { status?: string; data?: unknown; error?: string } | undefined;
    if (!body || body.status !== 'success') {
      if (response.status === 400 || response.status === 422) throw new SvcError('BAD_USER_INPUT', `Prometheus refused the query: ${body?.error ?? `HTTP ${response.status}`}`, { status: 422 });
      throw new SvcError('UPSTREAM_ERROR', `Prometheus answered HTTP ${response.status}${body?.error ? `: ${body.error}` : ''}`);
    }
    return body.data;
  }

  async function metricNames(): Promise<Set<string>> {
    if (names && Date.now() - names.at < 60_000) return names.values;
    try {
      const data = (await get('/api/v1/label/__name__/values', {})) as string[];
      names = { at: Date.now(), values: new Set(data) };
    } catch (error) {
      options.log.warn({ err: error }, 'Prometheus metric names could not be read');
      names = { at: Date.now(), values: new Set() };
    }
    return names.values;
  }

  const readable = (tenantId: string) => options.tenants === '*' || options.tenants.includes(tenantId);
  return {
    kind: 'prometheus',
    async serves(name, caller) {
      return readable(caller.tenantId) && NAME.test(name) && (await metricNames()).has(name);
    },
    async catalog(caller): Promise<CatalogEntry[]> {
      if (!readable(caller.tenantId)) return [];
      return [...(await metricNames())].sort().map((name) => ({ name, labels: {}, unit: null, source: 'prometheus' as const, description: 'read through Prometheus' }));
    },
    async lookup(_caller, query, limit): Promise<Series[]> {
      const stepSeconds = Math.max(1, Math.round((query.stepMs ?? 3_600_000) / 1000));
      const points = Math.ceil((query.to - query.from) / 1000 / stepSeconds);
      if (points > Math.min(limit, options.maxPoints ?? 11_000)) {
        throw new SvcError('BAD_USER_INPUT', `The window holds ${points} steps of ${stepSeconds} s; Prometheus answers at most ${Math.min(limit, options.maxPoints ?? 11_000)}: ask for a larger step or a shorter window`, { status: 422, errors: [{ pointer: '/step', detail: 'too small for the window' }] });
      }
      const data = (await get('/api/v1/query_range', {
        query: selectorOf(query.name, query.labels),
        start: String(query.from / 1000),
        end: String(query.to / 1000),
        step: String(stepSeconds),
      })) as { result?: { metric: Record<string, string>; values: [number, string][] }[] };
      return (data.result ?? []).map((r) => {
        const { __name__: _name, ...labels } = r.metric;
        const values: Point[] = r.values.map(([t, v]) => ({ t: Math.round(t * 1000), value: Number(v) })).filter((p) => Number.isFinite(p.value));
        return { name: query.name, labels, source: 'prometheus' as const, points: values };
      });
    },
  };
}
