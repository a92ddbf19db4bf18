import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { consoleOffStdout } from '@svc/kit';
import { createInsightMcpServer, type InsightMcpDeps } from './server.js';

/**
 * `svc insight-mcp`: the analysis MCP server on stdin/stdout.
 *
 * stdout carries the protocol and nothing else. Logs go to the given logger (the platform's
 * loggers write to stderr), and while the server runs the global `console` is rebound off
 * stdout (kit's `consoleOffStdout`), so a library that prints cannot corrupt the stream.
 * `close()` closes the transport and the router client and restores `console`; the caller exits.
 */

/** The server's dependencies (SVC_ROUTER_URL, SVC_TOKEN). */
export type InsightMcpStdioOptions = InsightMcpDeps;

export async function runInsightMcpStdio(options: InsightMcpStdioOptions): Promise<{ close(): Promise<void> }> {
  const { log } = options;
  const { server, cleanup } = await createInsightMcpServer(options);
  const restoreConsole = consoleOffStdout(log);
  const transport = new StdioServerTransport();
  transport.onerror = (error) => log.warn({ err: error }, 'MCP stdio transport error');
  try {
    await server.connect(transport);
  } catch (error) {
    await cleanup();
    restoreConsole();
    throw error;
  }
  log.info({ routerUrl: options.routerUrl, hasToken: Boolean(options.token) }, 'insight MCP server listening on stdio');
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        try {
          await server.close();
        } catch (error) {
          log.warn({ err: error }, 'closing the MCP server failed');
        }
        await cleanup();
        restoreConsole();
        log.info('insight MCP server closed');
      })();
      return closing;
    },
  };
}
