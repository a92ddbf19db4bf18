import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRouterClient, loadOperations, type Logger, createSsrfGuard } from '@svc/kit';
import { createPageFetcher } from '../fetch/fetch-page.js';
import { createChromiumPool } from './browser/browser-pool.js';
import { registerCollectPageTool } from './tools/collect-page.js';
import { registerQueryKnowledgeTool } from './tools/query-knowledge.js';

/**
 * The crawl MCP server: tools for agents over what the crawler does, transport-agnostic
 * (stdio.ts connects it to stdin/stdout).
 *
 * - `svccrawl_collect_page` (tools/collect-page.ts): one page's main text, tables and selected
 *   fields, fetched like the crawler fetches (SSRF guard with SVC_CRAWL_ALLOW_PRIVATE_HOSTS,
 *   robots.txt), optionally rendered in headless Chromium.
 * - `svccrawl_query_knowledge` (tools/query-knowledge.ts): semantic search in the tenant's
 *   knowledge base through the router, with the configured token and tenant.
 *
 * The fetcher retries once (after 0.5 s) rather than the crawler's twice: an agent waits for
 * the answer. `cleanup` closes the browser (when one was started), the fetcher's sockets and the
 * router client's connections.
 */

export interface CrawlMcpDeps {
  /** The router's GraphQL endpoint (SVC_ROUTER_URL). */
  routerUrl: string;
  /** Platform JWT for the knowledge search (SVC_TOKEN). */
  token?: string | undefined;
  /** Tenant the knowledge search is scoped to (SVC_TENANT_ID). */
  tenantId?: string | undefined;
  /** SVC_CRAWL_ALLOW_PRIVATE_HOSTS entries: private hosts the SSRF guard lets through. */
  allowPrivateHosts: readonly string[];
  log: Logger;
  /** Chromium used for waitForSelector; default /usr/bin/chromium (Debian's). */
  chromiumPath?: string | undefined;
}

export const CRAWL_MCP_SERVER_NAME = 'svc-crawl';

export function createCrawlMcpServer(deps: CrawlMcpDeps): { server: McpServer; cleanup(): Promise<void> } {
  const log = deps.log;
  // Read while the client connects: MCP clients give a server a few seconds to answer.
  const router = createRouterClient({ url: deps.routerUrl, operations: loadOperations() });
  const guard = createSsrfGuard({ allow: deps.allowPrivateHosts });
  const fetcher = createPageFetcher({ guard, retries: 1, backoffMs: 500, maxRetryAfterMs: 5_000 });
  const chromium = createChromiumPool({ guard, log, ...(deps.chromiumPath ? { executablePath: deps.chromiumPath } : {}) });

  const server = new McpServer(
    { name: CRAWL_MCP_SERVER_NAME, title: 'Svc Platform crawling', version: '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of the Svc Platform crawler: svccrawl_collect_page reads one web page (main text, tables, fields by CSS selector; optionally rendered in headless Chromium); svccrawl_query_knowledge searches the knowledge base built from crawled pages.',
    },
  );
  registerCollectPageTool(server, { fetcher, guard, chromium, log });
  registerQueryKnowledgeTool(server, { router, routerUrl: deps.routerUrl, token: deps.token, tenantId: deps.tenantId, log });

  let closing: Promise<void> | undefined;
  return {
    server,
    cleanup() {
      closing ??= (async () => {
        await chromium.close().catch((error: unknown) => log.warn({ err: error }, 'closing headless Chromium failed'));
        fetcher.close();
        await router.close();
      })();
      return closing;
    },
  };
}
