import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { lookupMetric } from '../../tools/lookup-metric.js';
import { callInsightTool, mcpInputShape, type InsightToolCallDeps } from '../insight-tool-call.js';
import { labelsSchema } from '../output-shapes.js';

/** MCP tool `svcinsight_lookup_metric`: one metric over a window, bucketed (tools/lookup-metric.ts), run on the insight service. */

export const LOOKUP_METRIC_TOOL = 'svcinsight_lookup_metric';

const statsSchema = z.object({
  points: z.number().int().describe('Buckets in the window.'),
  total: z.number(),
  mean: z.number(),
  min: z.number().nullable().describe('null when the window has no points.'),
  max: z.number().nullable().describe('null when the window has no points.'),
  first: z.number().describe('Value of the first bucket.'),
  last: z.number().describe('Value of the last bucket.'),
  lastWeekTotal: z.number().optional().describe('Step 1d, 14+ days, not a ratio: sum of the last 7 days.'),
  previousWeekTotal: z.number().optional().describe('Sum of the 7 days before those.'),
  lastWeekMean: z.number().optional().describe('Step 1d, 14+ days, a ratio: mean of the last 7 days.'),
  previousWeekMean: z.number().optional().describe('Mean of the 7 days before those.'),
  weekOverWeekChangePercent: z.number().optional().describe('Last week against the week before, in percent.'),
  lastWeekFrom: z.string().optional().describe('First day of the last week (YYYY-MM-DD).'),
});

const outputSchema = {
  name: z.string(),
  step: z.string().describe('The bucket: 1h, 1d or 1w.'),
  series: z
    .array(
      z.object({
        labels: labelsSchema,
        unit: z.string().nullable(),
        source: z.string().describe('store, platform or prometheus.'),
        stats: statsSchema,
        points: z.array(z.object({ t: z.string().describe('Bucket start: YYYY-MM-DD for 1d, else an ISO time.'), value: z.number() })),
      }),
    )
    .describe('Every series of the metric matching the labels.'),
};

export function registerLookupMetricTool(server: McpServer, deps: InsightToolCallDeps): void {
  server.registerTool(
    LOOKUP_METRIC_TOOL,
    {
      title: 'Look up a metric',
      description: lookupMetric.description,
      inputSchema: mcpInputShape(lookupMetric),
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => callInsightTool(deps, LOOKUP_METRIC_TOOL, args),
  );
}
