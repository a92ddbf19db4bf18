import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { listMetrics } from '../../tools/list-metrics.js';
import { callInsightTool, mcpInputShape, type InsightToolCallDeps } from '../insight-tool-call.js';
import { labelsSchema } from '../output-shapes.js';

/** MCP tool `svcinsight_list_metrics`: the metric catalog (tools/list-metrics.ts), run on the insight service. */

export const LIST_METRICS_TOOL = 'svcinsight_list_metrics';

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

export function registerListMetricsTool(server: McpServer, deps: InsightToolCallDeps): void {
  server.registerTool(
    LIST_METRICS_TOOL,
    {
      title: 'List metric series',
      description: listMetrics.description,
      inputSchema: mcpInputShape(listMetrics),
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => callInsightTool(deps, LIST_METRICS_TOOL, args),
  );
}
