import { z } from 'zod';
import { analysisMcpTool, type McpTool } from './mcp-tool.js';
import { bandPointSchema, labelsSchema, quantilesSchema } from './output-shapes.js';
import { defineTool, fig, labelsArg, labelText } from './tool.js';

/**
 * Forecasting a metric: the analysis agent's tool `forecast_metric` and, over MCP,
 * `svcinsight_forecast` (the same code, run on the insight service).
 */

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

export const forecastMetric = defineTool({
  name: 'forecast_metric',
  description: 'Forecasts a daily metric (exponential smoothing with weekly seasonality) with a p10-p90 band, and sums the forecast over the horizon.',
  input: z.object({
    name: z.string().min(1).max(100).describe('Metric name.'),
    labels: labelsArg,
    horizon: z.number().int().min(1).max(366).default(30).describe('Days ahead, 1 to 366; default 30.'),
  }),
  async run(ctx, args) {
    const f = await ctx.forecasting.forecast(ctx.caller, { name: args.name, labels: args.labels, horizon: args.horizon });
    const sum = (key: 'p10' | 'p50' | 'p90') => fig(f.points.reduce((a, p) => a + p[key], 0));
    const recent = f.history.slice(-args.horizon);
    const data = {
      name: args.name,
      labels: args.labels,
      model: f.model,
      horizon: args.horizon,
      calibration: fig(f.calibration),
      combinedSeries: f.combined,
      total: { p10: sum('p10'), p50: sum('p50'), p90: sum('p90') },
      previousPeriodTotal: fig(recent.reduce((a, p) => a + p.value, 0)),
      history: f.history.slice(-90).map((p) => ({ t: day(p.t), value: fig(p.value) })),
      forecast: f.points.map((p) => ({ t: day(p.t), p10: fig(p.p10), p50: fig(p.p50), p90: fig(p.p90) })),
    };
    return {
      data,
      summary: `${args.name}${labelText(args.labels)} over the next ${args.horizon} days: ${data.total.p50} expected (p10 ${data.total.p10}, p90 ${data.total.p90}), against ${data.previousPeriodTotal} in the last ${args.horizon} days (${f.model}).`,
    };
  },
});


const outputSchema = {
  name: z.string(),
  labels: labelsSchema,
  model: z.string().describe('The fitted model, e.g. MSTL(7)+AutoETS.'),
  horizon: z.number().int().describe('Days forecast.'),
  calibration: z.number().describe('Factor the band was widened by after backtesting (1 = none).'),
  combinedSeries: z.number().int().describe('How many series matching the labels were summed.'),
  total: quantilesSchema.describe('The forecast summed over the horizon.'),
  previousPeriodTotal: z.number().describe('The actual total of the last `horizon` days.'),
  history: z.array(z.object({ t: z.string().describe('Day (YYYY-MM-DD).'), value: z.number() })).describe('Up to the last 90 days of actuals.'),
  forecast: z.array(bandPointSchema).describe('One entry per day ahead.'),
};

/** MCP tool `svcinsight_forecast`: the agent's forecast_metric, run on the insight service. */
export const forecastMcpTool: McpTool = analysisMcpTool(forecastMetric, { name: 'svcinsight_forecast', title: 'Forecast a metric', outputSchema });
