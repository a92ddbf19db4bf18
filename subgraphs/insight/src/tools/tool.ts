import { jsonSchemaOf } from '@svc/kit';
import { z } from 'zod';
import type { AnalysisService } from '../service/analysis.js';
import type { ForecastingService } from '../service/forecasting.js';
import type { MetricService } from '../service/metrics.js';
import type { GraphReads } from '../service/graph-reads.js';
import type { Caller } from '../service/sources/metric-source.js';

/**
 * The analysis tools: plain functions with a flat zod input schema (flat, because models
 * fill flat arguments far more reliably than nested ones), run by the agent in a job and by
 * the MCP server through the router's `insightTool` query, so both run the same code.
 */
export interface ToolContext {
  caller: Caller;
  metrics: MetricService;
  forecasting: ForecastingService;
  /** The analysis engine over the tenant's catalog (absent in tests of single tools). */
  analysis?: AnalysisService | undefined;
  /** Reads of other services through the router, with the requester's authority (absent in tests of metric tools). */
  graph?: GraphReads | undefined;
  now: () => number;
}

export interface ToolResult<T = unknown> {
  /** What the tool found, as JSON (kept in the step; the report's figures come from here). */
  data: T;
  /** One or two sentences for people and models. */
  summary: string;
}

export interface Tool<S extends z.ZodObject = z.ZodObject, T = unknown> {
  name: string;
  description: string;
  input: S;
  /**
   * What the agent's model is offered, when narrower than `input`: expert parameters a person
   * may set over MCP stay out of the model's reach (a small model fills every parameter it sees).
   */
  agentInput?: z.ZodObject;
  run(ctx: ToolContext, args: z.output<S>): Promise<ToolResult<T>>;
}

/** A tool, its result's `data` typed as its `run` returns it (the report reads it by tool name: agent-tools.ts `ToolData`). */
export function defineTool<S extends z.ZodObject, T>(tool: Tool<S, T>): Tool<S, T> {
  return tool;
}

type OpenAiTool = { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } };
const definitions = new WeakMap<Tool, OpenAiTool>();

/** The OpenAI function definition of a tool (JSON Schema derived from its zod input, once per tool). */
export function openAiTool(tool: Tool): OpenAiTool {
  let definition = definitions.get(tool);
  if (!definition) {
    const parameters = jsonSchemaOf(tool.agentInput ?? tool.input);
    definitions.set(tool, (definition = { type: 'function', function: { name: tool.name, description: tool.description, parameters } }));
  }
  return definition;
}

/** Figures rounded for reports: two decimals, so a figure reads the same in the result and the report. */
export const fig = (value: number): number => Math.round(value * 100) / 100;

/** Labels written as `channel=search,region=eu` (flat, for models) into an object. */
export const labelsArg = z
  .string()
  .max(500)
  .default('')
  .describe('Label filter as key=value pairs separated by commas, e.g. "channel=search"; empty for all.')
  .transform((text, ctx) => {
    const labels: Record<string, string> = {};
    for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        ctx.addIssue({ code: 'custom', message: `label filter ${JSON.stringify(pair)} must be key=value` });
        return z.NEVER;
      }
      labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
    return labels;
  });

export function labelText(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}
