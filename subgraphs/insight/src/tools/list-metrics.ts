import { z } from 'zod';
import { defineTool, labelText } from './tool.js';

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
