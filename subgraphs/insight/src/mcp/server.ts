import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRouterClient, loadOperations, type Logger } from '@svc/kit';
import { MCP_TOOLS } from '../tools/mcp-tools.js';
import type { InsightToolCallDeps } from '../tools/insight-tool-call.js';

/**
 * The analysis MCP server: the metric tools of the analysis agent for MCP clients,
 * transport-agnostic (stdio.ts connects it to stdin/stdout).
 *
 * - Every tool of MCP_TOOLS (../tools/mcp-tools.ts), each declared in the file of the
 *   analysis tool it offers (../tools/<name>.ts): `svcinsight_list_metrics`,
 *   `svcinsight_lookup_metric`, `svcinsight_forecast`, `svcinsight_simulate` run that tool on
 *   the insight service through the router's `insightTool` query, with the configured token
 *   (tools/insight-tool-call.ts). Input schemas are the tools' own; output schemas describe their `data`.
 * - `svcinsight_define_metric` (../tools/define-metric.ts) declares what a metric means with
 *   the `defineMetric` mutation, its input schema the one the service validates definitions with.
 *
 * `cleanup` closes the router client's connections.
 */

export interface InsightMcpDeps {
  /** The router's GraphQL endpoint (SVC_ROUTER_URL). */
  routerUrl: string;
  /** Platform JWT the tools run with (SVC_TOKEN): analyst or reviewer; analyst to declare definitions. */
  token?: string | undefined;
  /** Tenant whose metrics the tools read (SVC_TENANT_ID); without it the token's only tenant. */
  tenantId?: string | undefined;
  log: Logger;
}

export const INSIGHT_MCP_SERVER_NAME = 'svc-insight';

export async function createInsightMcpServer(deps: InsightMcpDeps): Promise<{ server: McpServer; cleanup(): Promise<void> }> {
  const router = createRouterClient({ url: deps.routerUrl, operations: await loadOperations() });
  const server = new McpServer(
    { name: INSIGHT_MCP_SERVER_NAME, title: 'Svc Platform analysis', version: '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of the Svc Platform analysis service over its metric series (stored business series, the platform\'s own figures, Prometheus): svcinsight_list_metrics shows what exists; svcinsight_lookup_metric reads one metric over a window with statistics; svcinsight_forecast forecasts a daily metric with a p10-p90 band; svcinsight_simulate runs a seeded what-if (a driver such as ad_spend changed by a percentage, its effect on a target such as revenue). svcinsight_define_metric declares what a metric means (unit and display format, aggregation over a period, whether up is good, a formula or additive composition, drivers with their lag, synonyms), which every later analysis reads; it replaces the metric\'s definition as a whole and needs the analyst role. Labels are written as key=value pairs separated by commas.',
    },
  );
  const toolDeps: InsightToolCallDeps = { router, routerUrl: deps.routerUrl, token: deps.token, tenantId: deps.tenantId, log: deps.log };
  for (const tool of MCP_TOOLS) {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, (args: Record<string, unknown>) => tool.call(toolDeps, args));
  }

  let closing: Promise<void> | undefined;
  return {
    server,
    cleanup() {
      closing ??= router.close();
      return closing;
    },
  };
}
