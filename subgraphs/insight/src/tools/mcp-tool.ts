import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { callInsightTool, type InsightToolCallDeps } from './insight-tool-call.js';
import type { Tool } from './tool.js';

/**
 * A tool of the insight MCP server (`svc insight-mcp`), declared in the same file as the
 * analysis agent's tool it offers: its public name, how clients see it (title, description,
 * input and output schemas, hints), and what a call does on the platform. mcp/server.ts
 * registers every one of MCP_TOOLS (tools/mcp-tools.ts).
 */
export interface McpTool {
  /** The public name, `svcinsight_<what it does>`. */
  name: string;
  title: string;
  description: string;
  /** A zod shape or object: the SDK checks the arguments with it and lists its JSON Schema. */
  inputSchema: Record<string, z.ZodType> | z.ZodObject;
  /** Describes `structuredContent` (the call's `data`). */
  outputSchema: Record<string, z.ZodType> | z.ZodObject;
  annotations: ToolAnnotations;
  /** The analysis tool the router's `insightTool` query runs under this name; none for a tool that calls its own operation. */
  agentTool?: Tool | undefined;
  /** Runs the tool through the router with the server's token: a tool result, an error one included. */
  call(deps: InsightToolCallDeps, args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * The MCP input shape of an analysis tool: its own zod input schema's shape, with a transformed
 * field (labels: "key=value,…" → object) checked on its input side only. The arguments go to
 * the router as the caller wrote them (defaults filled in), and the insight service parses them
 * with the whole schema, transforms included.
 */
export function mcpInputShape(tool: Tool): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(tool.input.shape).map(([key, field]) => [key, field instanceof z.ZodPipe && field.out instanceof z.ZodTransform ? (field.in as z.ZodType) : (field as z.ZodType)]),
  );
}

/**
 * An analysis tool offered over MCP under `name`: read-only, described as the agent's tool is,
 * with its input schema, run on the insight service through the router's `insightTool` query.
 */
export function analysisMcpTool(tool: Tool, spec: { name: string; title: string; outputSchema: Record<string, z.ZodType> }): McpTool {
  return {
    ...spec,
    description: tool.description,
    inputSchema: mcpInputShape(tool),
    annotations: { readOnlyHint: true, openWorldHint: false },
    agentTool: tool,
    call: (deps, args) => callInsightTool(deps, spec.name, args),
  };
}
