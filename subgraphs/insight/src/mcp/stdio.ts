import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveOverStdio } from '@svc/kit';
import { createInsightMcpServer, type InsightMcpDeps } from './server.js';

/**
 * `svc insight-mcp`: the analysis MCP server on stdin/stdout.
 *
 * stdout carries the protocol and nothing else. Logs go to the given logger (the platform's
 * loggers write to stderr), and while the server runs the global `console` is rebound off
 * stdout (kit's `serveOverStdio`), so a library that prints cannot corrupt the stream.
 * `close()` closes the transport and the router client and restores `console`; the caller
 * exits.
 */

/** The server's dependencies (SVC_ROUTER_URL, SVC_TOKEN, SVC_TENANT_ID). */
export type InsightMcpStdioOptions = InsightMcpDeps;

export async function runInsightMcpStdio(options: InsightMcpStdioOptions): Promise<{ close(): Promise<void> }> {
  const { server, cleanup } = await createInsightMcpServer(options);
  return serveOverStdio({
    server,
    transport: new StdioServerTransport(),
    cleanup,
    log: options.log,
    what: 'insight MCP server',
    fields: { routerUrl: options.routerUrl, hasToken: Boolean(options.token), tenantId: options.tenantId ?? null },
  });
}
