import { z } from 'zod';
import { AGGREGATIONS, type Point } from '../domain/metric.js';
import { analysisMcpTool, type McpTool } from './mcp-tool.js';
import { labelsSchema } from './output-shapes.js';
import { defineTool, fig, labelsArg, labelText } from './tool.js';

/**
 * One metric over a window: the analysis agent's tool `lookup_metric` and, over MCP,
 * `svcinsight_lookup_metric` (the same code, run on the insight service).
 */

const DAY = 86_400_000;

/** Figures a person asks about first: totals, range, and the last week against the one before. */
/** A series' statistics over the window; with 14 days or more, last week against the week before (by mean for a ratio). */
export interface SeriesStats {
  points: number;
  total: number;
  mean: number;
  min: number;
  max: number;
  first: number;
  last: number;
  lastWeekTotal?: number;
  previousWeekTotal?: number;
  lastWeekMean?: number;
  previousWeekMean?: number;
  weekOverWeekChangePercent?: number;
  lastWeekFrom?: string;
}

export function seriesStats(points: readonly Point[], stepMs: number | undefined, unit: string | null = null): SeriesStats {
  const values = points.map((p) => p.value);
  const total = values.reduce((a, b) => a + b, 0);
  const stats: SeriesStats = {
    points: values.length,
    total: fig(total),
    mean: fig(values.length ? total / values.length : 0),
    min: fig(Math.min(...values)),
    max: fig(Math.max(...values)),
    first: fig(values[0] ?? 0),
    last: fig(values[values.length - 1] ?? 0),
  };
  if (stepMs === DAY && values.length >= 14) {
    // A ratio (conversion rate) is compared by its mean: adding up rates means nothing.
    const ratio = unit === 'ratio';
    const lastWeek = values.slice(-7).reduce((a, b) => a + b, 0) / (ratio ? 7 : 1);
    const previousWeek = values.slice(-14, -7).reduce((a, b) => a + b, 0) / (ratio ? 7 : 1);
    const precise = (v: number) => (ratio ? Math.round(v * 1e5) / 1e5 : fig(v));
    if (ratio) {
      stats.lastWeekMean = precise(lastWeek);
      stats.previousWeekMean = precise(previousWeek);
    } else {
      stats.lastWeekTotal = precise(lastWeek);
      stats.previousWeekTotal = precise(previousWeek);
    }
    if (previousWeek !== 0) stats.weekOverWeekChangePercent = fig(((lastWeek - previousWeek) / Math.abs(previousWeek)) * 100);
    stats.lastWeekFrom = new Date(points[points.length - 7]!.t).toISOString().slice(0, 10);
  }
  return stats;
}

export const lookupMetric = defineTool({
  name: 'lookup_metric',
  description: 'Reads one metric over a time window, bucketed by a step, with its statistics (total, mean, min, max, last week against the week before).',
  input: z.object({
    name: z.string().min(1).max(100).describe('Metric name, e.g. revenue, sessions, conversion_rate, ad_spend, llm.cost_usd.'),
    labels: labelsArg,
    from: z.string().max(40).default('').describe('Start date (ISO 8601); empty for 90 days before `to`.'),
    to: z.string().max(40).default('').describe('End date, exclusive (ISO 8601); empty for now.'),
    step: z.string().max(10).default('1d').describe('Bucket: 1h, 1d or 1w; default 1d.'),
    aggregation: z.enum(AGGREGATIONS).optional().describe('sum, avg, min, max, last or count; default sum (avg for ratios).'),
  }),
  async run(ctx, args) {
    const series = await ctx.metrics.lookup(ctx.caller, {
      name: args.name,
      labels: args.labels,
      ...(args.from ? { from: args.from } : {}),
      ...(args.to ? { to: args.to } : {}),
      step: args.step,
      ...(args.aggregation ? { aggregation: args.aggregation } : {}),
    });
    const stepMs = args.step === '1d' ? DAY : undefined;
    const data = {
      name: args.name,
      step: args.step,
      series: series.map((s) => ({
        labels: s.labels,
        unit: s.unit ?? null,
        source: s.source,
        stats: seriesStats(s.points, stepMs, s.unit ?? null),
        points: s.points.map((p) => ({ t: new Date(p.t).toISOString().slice(0, stepMs ? 10 : 19), value: s.unit === 'ratio' ? Math.round(p.value * 1e5) / 1e5 : fig(p.value) })),
      })),
    };
    const parts = data.series.map((s) => {
      const st = s.stats;
      const week = st.weekOverWeekChangePercent !== undefined ? `; last week ${st.lastWeekTotal ?? st.lastWeekMean} vs ${st.previousWeekTotal ?? st.previousWeekMean} the week before (${Number(st.weekOverWeekChangePercent) >= 0 ? '+' : ''}${st.weekOverWeekChangePercent}%)` : '';
      return `${args.name}${labelText(s.labels)}: ${st.points} points, total ${st.total}, mean ${st.mean}${week}`;
    });
    return { data, summary: parts.length ? `${parts.join('. ')}.` : `No series of ${args.name} matches.` };
  },
});

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

/** MCP tool `svcinsight_lookup_metric`: the agent's lookup_metric, run on the insight service. */
export const lookupMetricMcpTool: McpTool = analysisMcpTool(lookupMetric, { name: 'svcinsight_lookup_metric', title: 'Look up a metric', outputSchema });
