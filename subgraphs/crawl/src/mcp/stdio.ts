import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveOverStdio } from '@svc/kit';
import { createCrawlMcpServer, type CrawlMcpDeps } from './server.js';

/**
 * `svc crawl-mcp`: the crawl MCP server on stdin/stdout.
 *
 * stdout carries the protocol and nothing else — one stray line breaks the client's parser.
 * Logs go to the given logger (the platform's loggers write to stderr), and while the server
 * runs the global `console` is rebound off stdout — log, info, debug, warn and error become
 * log entries (error at warn level: it is a library talking, e.g. jsdom reporting a page's
 * unparsable CSS), the rest writes to stderr — so a library that prints cannot corrupt the
 * stream (kit's `serveOverStdio`). `close()` closes the transport, the browser and the
 * fetcher, and restores `console`; the caller exits.
 */

/** The server's dependencies (SVC_ROUTER_URL, SVC_TOKEN, SVC_TENANT_ID, ...). */
export type CrawlMcpStdioOptions = CrawlMcpDeps;

export async function runCrawlMcpStdio(options: CrawlMcpStdioOptions): Promise<{ close(): Promise<void> }> {
  // Creating the server prints nothing (the browser starts on first use), so console is rebound after it.
  const { server, cleanup } = await createCrawlMcpServer(options);
  return serveOverStdio({
    server,
    transport: new StdioServerTransport(),
    cleanup,
    log: options.log,
    what: 'crawl MCP server',
    fields: { routerUrl: options.routerUrl, tenantId: options.tenantId ?? null, hasToken: Boolean(options.token) },
  });
}
