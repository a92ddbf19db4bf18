import { z } from 'zod';
import { interval95 } from '../engine/elasticity.js';
import { analysisMcpTool, type McpTool } from './mcp-tool.js';
import { bandPointSchema, quantilesSchema } from './output-shapes.js';
import { defineTool, fig, labelsArg, labelText } from './tool.js';

/**
 * A what-if simulation: the analysis agent's tool `simulate_scenario` and, over MCP,
 * `svcinsight_simulate` (the same code, run on the insight service; the agent is not offered `elasticity`).
 */

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

const input = z.object({
  target_metric: z.string().min(1).max(100).describe('Metric whose outcome is simulated, e.g. revenue.'),
  target_labels: labelsArg,
  driver_metric: z.string().min(1).max(100).describe('Metric that changes, e.g. ad_spend.'),
  driver_labels: labelsArg,
  change_percent: z.number().gt(-100).max(1000).describe('Change of the driver in percent, e.g. 20 for +20%.'),
  horizon: z.number().int().min(1).max(366).default(30).describe('Days simulated; default 30.'),
  elasticity: z.number().min(-10).max(10).optional().describe('Optional elasticity; default: estimated from history.'),
  seed: z.number().int().min(0).max(2147483647).default(1).describe('Random seed; default 1.'),
});

export const simulateScenario = defineTool({
  name: 'simulate_scenario',
  description: 'What-if: changes a driver metric (e.g. ad_spend on one channel) by a percentage and simulates the target metric (e.g. revenue) with a seeded Monte Carlo; the elasticity is estimated from history unless given.',
  input,
  // The agent estimates the elasticity from history; giving one is for people (MCP, GraphQL).
  agentInput: input.omit({ elasticity: true }),
  async run(ctx, args) {
    const s = await ctx.forecasting.simulate(ctx.caller, {
      target: { name: args.target_metric, labels: args.target_labels },
      driver: { name: args.driver_metric, labels: args.driver_labels },
      changePercent: args.change_percent,
      horizon: args.horizon,
      seed: args.seed,
      ...(args.elasticity !== undefined ? { elasticity: args.elasticity } : {}),
    });
    const q = (x: { p10: number; p50: number; p90: number }) => ({ p10: fig(x.p10), p50: fig(x.p50), p90: fig(x.p90) });
    const data = {
      target: `${args.target_metric}${labelText(args.target_labels)}`,
      driver: `${args.driver_metric}${labelText(args.driver_labels)}`,
      changePercent: args.change_percent,
      horizon: args.horizon,
      seed: args.seed,
      runs: s.runs,
      elasticity: { value: fig(s.elasticity.value), standardError: fig(s.elasticity.standardError), source: s.elasticity.source },
      baselineTotal: fig(s.baselineTotal),
      total: q(s.total),
      impact: q(s.impact),
      impactPercent: fig((s.impact.p50 / s.baselineTotal) * 100),
      band: s.points.map((p) => ({ t: day(p.t), ...q(p) })),
    };
    const sign = (v: number) => (v >= 0 ? `+${v}` : String(v));
    const ci = interval95(s.elasticity);
    if (s.elasticity.source === 'estimated' && ci.holdsZero) {
      return {
        data,
        summary: `No reliable relation between ${data.driver} and ${data.target} in the history: the estimated elasticity ${data.elasticity.value} has a 95 % interval of ${fig(ci.low)} to ${fig(ci.high)}, which holds zero, so the simulation's effect cannot be told from none.`,
      };
    }
    return {
      data,
      summary: `${sign(args.change_percent)}% ${data.driver} moves ${data.target} by ${sign(data.impact.p50)} over ${args.horizon} days (p10 ${sign(data.impact.p10)}, p90 ${sign(data.impact.p90)}; ${sign(data.impactPercent)}% of the ${data.baselineTotal} baseline; elasticity ${data.elasticity.value} ${data.elasticity.source}).`,
    };
  },
});


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

/** MCP tool `svcinsight_simulate`: the agent's simulate_scenario, run on the insight service. */
export const simulateMcpTool: McpTool = analysisMcpTool(simulateScenario, { name: 'svcinsight_simulate', title: 'Simulate a what-if scenario', outputSchema });
