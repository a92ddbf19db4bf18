import { defineMetricMcpTool } from './define-metric.js';
import { forecastMcpTool } from './forecast.js';
import { listMetricsMcpTool } from './list-metrics.js';
import { lookupMetricMcpTool } from './lookup-metric.js';
import type { McpTool } from './mcp-tool.js';
import { simulateMcpTool } from './simulate.js';
import type { Tool } from './tool.js';

/** Every tool the insight MCP server offers, each in the file named after it (tools/<name>.ts), beside the agent's tool it runs when it runs one. */
export const MCP_TOOLS: readonly McpTool[] = [listMetricsMcpTool, lookupMetricMcpTool, forecastMcpTool, simulateMcpTool, defineMetricMcpTool];

/** The tools the router's `insightTool` query runs, by their MCP names: those that are an analysis tool. */
export const INSIGHT_TOOLS: readonly { name: string; tool: Tool }[] = MCP_TOOLS.flatMap((t) => (t.agentTool ? [{ name: t.name, tool: t.agentTool }] : []));
