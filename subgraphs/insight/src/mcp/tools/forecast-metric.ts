import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { forecastMetric } from '../../tools/forecast-metric.js';
import { callInsightTool, mcpInputShape, type InsightToolCallDeps } from '../insight-tool-call.js';
import { bandPointSchema, labelsSchema, quantilesSchema } from '../output-shapes.js';

/** MCP tool `svcinsight_forecast`: a daily forecast with a p10-p90 band (tools/forecast-metric.ts), run on the insight service. */

export const FORECAST_TOOL = 'svcinsight_forecast';

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

export function registerForecastTool(server: McpServer, deps: InsightToolCallDeps): void {
  server.registerTool(
    FORECAST_TOOL,
    {
      title: 'Forecast a metric',
      description: forecastMetric.description,
      inputSchema: mcpInputShape(forecastMetric),
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => callInsightTool(deps, FORECAST_TOOL, args),
  );
}
