import { z } from 'zod';
import { AGGREGATIONS, type Point } from '../domain/metric.js';
import { defineTool, fig, labelsArg, labelText } from './tool.js';

const DAY = 86_400_000;

/** Figures a person asks about first: totals, range, and the last week against the one before. */
export function seriesStats(points: readonly Point[], stepMs: number | undefined, unit: string | null = null) {
  const values = points.map((p) => p.value);
  const total = values.reduce((a, b) => a + b, 0);
  const stats: Record<string, number | string> = {
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
    stats[ratio ? 'lastWeekMean' : 'lastWeekTotal'] = precise(lastWeek);
    stats[ratio ? 'previousWeekMean' : 'previousWeekTotal'] = precise(previousWeek);
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
