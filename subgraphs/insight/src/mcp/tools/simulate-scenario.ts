import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { simulateScenario } from '../../tools/simulate-scenario.js';
import { callInsightTool, mcpInputShape, type InsightToolCallDeps } from '../insight-tool-call.js';
import { bandPointSchema, quantilesSchema } from '../output-shapes.js';

/** MCP tool `svcinsight_simulate`: a seeded what-if Monte Carlo (tools/simulate-scenario.ts), run on the insight service. */

export const SIMULATE_TOOL = 'svcinsight_simulate';

const outputSchema = {
  target: z.string().describe('The simulated metric with its labels, e.g. revenue.'),
  driver: z.string().describe('The changed metric with its labels, e.g. ad_spend{channel=search}.'),
  changePercent: z.number(),
  horizon: z.number().int().describe('Days simulated.'),
  seed: z.number().int().describe('The random seed: the same seed gives the same result.'),
  runs: z.number().int().describe('Monte Carlo runs.'),
  elasticity: z.object({
    value: z.number(),
    standardError: z.number(),
    source: z.enum(['estimated', 'given']).describe('Estimated from history, or given in the call.'),
  }),
  baselineTotal: z.number().describe('The target over the horizon without the change (forecast median).'),
  total: quantilesSchema.describe('The target over the horizon with the change.'),
  impact: quantilesSchema.describe('total minus baselineTotal.'),
  impactPercent: z.number().nullable().describe('The median impact in percent of the baseline; null when the baseline is 0.'),
  band: z.array(bandPointSchema).describe('The target with the change, per day.'),
};

export function registerSimulateTool(server: McpServer, deps: InsightToolCallDeps): void {
  server.registerTool(
    SIMULATE_TOOL,
    {
      title: 'Simulate a what-if scenario',
      description: simulateScenario.description,
      inputSchema: mcpInputShape(simulateScenario),
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => callInsightTool(deps, SIMULATE_TOOL, args),
  );
}
