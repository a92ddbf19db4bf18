import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROUTER_FAILURE, SvcError, type Logger, type RouterClient } from '@svc/kit';

/**
 * What every insight MCP tool does: one named operation through the router with
 * `Authorization: Bearer <SVC_TOKEN>`, so the platform applies the token's rights and the
 * insight service runs the same code its other clients run. The analysis tools run through the
 * router's `insightTool` query (the code the analysis agent runs); a tool that changes something
 * calls its own mutation. The MCP server holds no database access and computes nothing itself.
 *
 * - The result's `data` is the tool's `structuredContent`, its `summary` the text content.
 * - No SVC_TOKEN, an unreachable router, refusals, bad arguments and unknown metrics are tool
 *   errors (`isError`) with the platform's message and what to change; nothing is thrown.
 */

/** Its text is in schema/operations/insight-mcp.graphql. */
const OPERATION = 'InsightMcpTool';

/** The roles the analysis tools need, as the messages say them. */
export const ANALYSIS_ROLES = 'the analyst or reviewer role';

/** Forecasts and simulations compute on the insight service; an agent waits for them. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface InsightToolCallDeps {
  router: RouterClient;
  /** The router's GraphQL endpoint, named in the messages. */
  routerUrl: string;
  /** Platform JWT the tools run with (SVC_TOKEN). */
  token?: string | undefined;
  /** Tenant the tools act for (SVC_TENANT_ID). */
  tenantId?: string | undefined;
  log: Logger;
}

export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What to tell the caller about a failed call, with the setting or argument to change. */
function explain(error: SvcError, name: string, roles: string, deps: InsightToolCallDeps): string {
  const { message } = error;
  switch (error.extensions.slug) {
    case ROUTER_FAILURE.unreachable:
      return `Could not reach the platform's router at ${deps.routerUrl} (${error.originalError?.message ?? message}). Is the platform running? SVC_ROUTER_URL sets the address.`;
    case ROUTER_FAILURE.timeout:
      return `The platform's router at ${deps.routerUrl} did not answer ${name} within ${REQUEST_TIMEOUT_MS / 1000} s. Try a shorter window or horizon, or check that the platform is healthy.`;
    case ROUTER_FAILURE.invalidAnswer: {
      const { httpStatus, bodyStart } = (error.extensions.details ?? {}) as { httpStatus?: number; bodyStart?: string };
      return `The router at ${deps.routerUrl} answered HTTP ${httpStatus} without a tool result${bodyStart ? `: ${bodyStart}` : ''}. Check SVC_ROUTER_URL.`;
    }
  }
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return `The platform refused SVC_TOKEN: ${sentence(message)} Set SVC_TOKEN to a valid, unexpired platform token (POST /api/v1/auth/token) and restart the insight MCP server.`;
    case 'FORBIDDEN':
      if (/tenant/i.test(message)) return `The platform refused ${name}: ${sentence(message)} SVC_TOKEN must grant the tenant in SVC_TENANT_ID${deps.tenantId ? ` (${deps.tenantId})` : ''}.`;
      return `The platform refused ${name}: ${sentence(message)} SVC_TOKEN must carry ${roles}.`;
    case 'BAD_USER_INPUT':
      if (/X-Svc-Tenant-Id/i.test(message)) return `${sentence(message)} Set SVC_TENANT_ID to the tenant whose metrics the tools read, and restart the insight MCP server.`;
      return `${sentence(message)} Correct that argument and call ${name} again.`;
    case 'NOT_FOUND':
      return `${sentence(message)}${/list_metrics/.test(message) ? '' : ' svcinsight_list_metrics lists the metrics there are, with their labels.'}`;
    case 'UNAVAILABLE':
      return `The analysis service is unavailable behind the router at ${deps.routerUrl}: ${sentence(message)} Is the insight service running (svc insight, or svc all)? Retry shortly.`;
    default:
      return `${name} failed: ${message}`;
  }
}

export interface ToolOutput {
  data: Record<string, unknown>;
  summary: string;
}

/** One call of an MCP tool on the platform. */
export interface PlatformCall {
  /** The MCP tool's name, as the messages say it. */
  tool: string;
  /** A named operation of schema/operations/. */
  operation: string;
  variables: Record<string, unknown>;
  /** The roles SVC_TOKEN needs, in words ("the analyst role"). */
  roles: string;
  /** The tool's result from the operation's data; undefined when the answer lacks it. */
  result(data: Record<string, unknown>): ToolOutput | undefined;
}

/** Runs one operation for an MCP tool through the router; a tool result either way. */
export async function callPlatform(deps: InsightToolCallDeps, call: PlatformCall): Promise<CallToolResult> {
  const name = call.tool;
  if (!deps.token) {
    return toolError(`No platform token is configured: set SVC_TOKEN to a platform token with ${call.roles} (POST /api/v1/auth/token) in the environment of the insight MCP server (svc insight-mcp), then restart it.`);
  }
  const started = performance.now();
  let output: ToolOutput | undefined;
  try {
    const data = await deps.router.execute<Record<string, unknown>>(call.operation, call.variables, {
      headers: { authorization: `Bearer ${deps.token}`, ...(deps.tenantId ? { 'x-svc-tenant-id': deps.tenantId } : {}) },
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    output = call.result(data);
  } catch (error) {
    if (error instanceof SvcError) return toolError(explain(error, name, call.roles, deps));
    deps.log.error({ err: error, tool: name }, 'analysis tool call failed');
    return toolError(`${name} failed: ${(error as Error).message}`);
  }
  if (!output || typeof output.data !== 'object' || output.data === null || typeof output.summary !== 'string') {
    return toolError(`The router at ${deps.routerUrl} answered without the tool's result. Check SVC_ROUTER_URL.`);
  }
  deps.log.info({ tool: name, ms: Math.round(performance.now() - started) }, 'analysis tool ran');
  return { structuredContent: output.data, content: [{ type: 'text', text: output.summary }] };
}

/** Runs the analysis tool `name` with `args` through the router's `insightTool` query; a tool result either way. */
export function callInsightTool(deps: InsightToolCallDeps, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return callPlatform(deps, { tool: name, operation: OPERATION, variables: { name, arguments: args }, roles: ANALYSIS_ROLES, result: (data) => (data.insightTool ?? undefined) as ToolOutput | undefined });
}
