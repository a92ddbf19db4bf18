import { z } from 'zod';
import { analysisMcpTool, type McpTool } from './mcp-tool.js';
import { labelsSchema } from './output-shapes.js';
import { defineTool, labelText } from './tool.js';

/**
 * The metric catalog: the analysis agent's tool `list_metrics` and, over MCP,
 * `svcinsight_list_metrics` (the same code, run on the insight service).
 */

/** Series listed one by one up to this many; past it, a metric of many series is one entry (its label values, its count). */
const SERIES_LISTED = 200;
/** Series of one metric listed one by one in a large catalog; more are summed up in one entry. */
const SERIES_PER_NAME = 20;
/** Values named per label in a summed-up entry. */
const VALUES_LISTED = 20;

type Listed = {
  name: string; labels: Record<string, string>; unit: string | null; source: string; points?: number; first?: string; last?: string;
  /** Already summed up by its source: passed on as it is. */
  series?: number; labelValues?: Record<string, string[]>; labelValueCounts?: Record<string, number>;
};

/**
 * A catalog of tens of thousands of series (a CDN's traffic by 4 labels) listed as what a reader
 * can use: each metric with many series as one entry, with how many series it has and the values
 * of each label (the first 20), its points and time range; metrics with few series as before.
 */
function grouped(metrics: readonly Listed[]) {
  const byName = new Map<string, Listed[]>();
  for (const m of metrics) {
    const key = `${m.source}\u0000${m.name}`;
    const same = byName.get(key);
    if (same) same.push(m);
    else byName.set(key, [m]);
  }
  // A source's own summary is the one entry of its name, so it is passed on as it is.
  return [...byName.values()].flatMap((all) => {
    if (all.length <= SERIES_PER_NAME) return all;
    const values: Record<string, Set<string>> = {};
    for (const m of all) for (const [k, v] of Object.entries(m.labels)) (values[k] ??= new Set()).add(v);
    const days = (pick: (m: Listed) => string | undefined) => all.map(pick).filter((d): d is string => !!d).sort();
    const first = days((m) => m.first)[0];
    const last = days((m) => m.last).at(-1);
    const points = all.reduce((n, m) => n + (m.points ?? 0), 0);
    return [{
      name: all[0]!.name, labels: {}, unit: all[0]!.unit, source: all[0]!.source, series: all.length,
      labelValues: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, [...v].sort().slice(0, VALUES_LISTED)])),
      labelValueCounts: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.size])),
      ...(points ? { points } : {}), ...(first ? { first } : {}), ...(last ? { last } : {}),
    }];
  });
}

export const listMetrics = defineTool({
  name: 'list_metrics',
  description: 'Lists every metric series the analysis can read (stored business series, the platform\'s own figures, Prometheus) with labels, unit and time range.',
  input: z.object({ name: z.string().max(100).default('').describe('Only series of this metric name; empty for all.') }),
  async run(ctx, args) {
    // The store sums a metric of many series up where the data is; other sources' series are grouped here.
    const catalog = (await ctx.metrics.catalog(ctx.caller, { listAllUpTo: SERIES_LISTED, perName: SERIES_PER_NAME, valuesListed: VALUES_LISTED })).filter((m) => !args.name || m.name === args.name);
    const metrics = catalog.map((m) => ({
      name: m.name,
      labels: m.labels,
      unit: m.unit,
      source: m.source,
      ...(m.description ? { description: m.description } : {}),
      ...(m.definition ? { definition: m.definition } : {}),
      ...(m.points !== undefined ? { points: m.points } : {}),
      ...(m.first ? { first: m.first.toISOString().slice(0, 10) } : {}),
      ...(m.last ? { last: m.last.toISOString().slice(0, 10) } : {}),
      ...(m.series !== undefined ? { series: m.series, labelValues: m.labelValues ?? {}, labelValueCounts: m.labelValueCounts ?? {} } : {}),
    }));
    const count = metrics.reduce((n, m) => n + (m.series ?? 1), 0);
    const listed = count > SERIES_LISTED ? grouped(metrics) : metrics;
    const names = [...new Set(listed.map((m) => `${m.name}${m.series !== undefined ? ` (${m.series} series)` : labelText(m.labels)}`))];
    return { data: { metrics: listed }, summary: metrics.length ? `${count} series: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}.` : 'No metric series exist yet.' };
  },
});


const outputSchema = {
  metrics: z
    .array(
      z.object({
        name: z.string().describe('Metric name, as lookup_metric, forecast and simulate take it.'),
        labels: labelsSchema,
        unit: z.string().nullable().describe('Unit (e.g. EUR, ratio); null when unknown.'),
        source: z.string().describe('Where the series comes from: store (ingested business series), platform (its own figures) or prometheus.'),
        description: z.string().optional(),
        definition: z.record(z.string(), z.unknown()).optional().describe('What the metric means, as the tenant declared it: unit, aggregation, upIsGood, formula, drivers, synonyms.'),
        points: z.number().int().optional().describe('Stored points, when known.'),
        first: z.string().optional().describe('Day of the first point (YYYY-MM-DD).'),
        last: z.string().optional().describe('Day of the last point (YYYY-MM-DD).'),
        series: z.number().int().optional().describe('In a large catalog, a metric of many series is one entry: how many series it has (labels is then empty).'),
        labelValues: z.record(z.string(), z.array(z.string())).optional().describe('With series: the values of each label (the first 20, sorted).'),
        labelValueCounts: z.record(z.string(), z.number().int()).optional().describe('With series: how many values each label has.'),
      }),
    )
    .describe('Every series, one entry per name and label set; past 200 series, a metric of more than 20 series is one entry with series, labelValues and labelValueCounts.'),
};

/** MCP tool `svcinsight_list_metrics`: the agent's list_metrics, run on the insight service. */
export const listMetricsMcpTool: McpTool = analysisMcpTool(listMetrics, { name: 'svcinsight_list_metrics', title: 'List metric series', outputSchema });
