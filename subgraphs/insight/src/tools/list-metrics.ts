import { z } from 'zod';
import { analysisMcpTool, type McpTool } from './mcp-tool.js';
import { labelsSchema } from './output-shapes.js';
import { defineTool, labelText } from './tool.js';

/**
 * The metric catalog: the analysis agent's tool `list_metrics` and, over MCP,
 * `svcinsight_list_metrics` (the same code, run on the insight service).
 */

export const listMetrics = defineTool({
  name: 'list_metrics',
  description: 'Lists every metric series the analysis can read (stored business series, the platform\'s own figures, Prometheus) with labels, unit and time range.',
  input: z.object({ name: z.string().max(100).default('').describe('Only series of this metric name; empty for all.') }),
  async run(ctx, args) {
    const catalog = (await ctx.metrics.catalog(ctx.caller)).filter((m) => !args.name || m.name === args.name);
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
    }));
    const names = [...new Set(metrics.map((m) => `${m.name}${labelText(m.labels)}`))];
    return { data: { metrics }, summary: metrics.length ? `${metrics.length} series: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}.` : 'No metric series exist yet.' };
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
      }),
    )
    .describe('Every series, one entry per name and label set.'),
};

/** MCP tool `svcinsight_list_metrics`: the agent's list_metrics, run on the insight service. */
export const listMetricsMcpTool: McpTool = analysisMcpTool(listMetrics, { name: 'svcinsight_list_metrics', title: 'List metric series', outputSchema });
