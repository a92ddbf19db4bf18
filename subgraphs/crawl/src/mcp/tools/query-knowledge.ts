import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ROUTER_FAILURE, SvcError, type Logger, type RouterClient } from '@svc/kit';

/**
 * MCP tool `svccrawl_query_knowledge`: semantic search in the knowledge base the crawler
 * builds (chunks of synced crawl items), through the router's `searchKnowledge` query.
 *
 * Decisions:
 * - It goes through the router like any other client, with `Authorization: Bearer <SVC_TOKEN>`
 *   and `X-Svc-Tenant-Id: <SVC_TENANT_ID>` (when set), so the platform applies the token's
 *   rights and scopes the search to that tenant; the server holds no database access.
 * - `topK` defaults to 5, at most 50 (the query's own limits); `category` is the crawl job's
 *   name the chunks came from.
 * - No SVC_TOKEN, an unreachable router, HTTP failures and GraphQL errors are tool errors
 *   with the router's message and what to change; nothing is thrown.
 */

export const QUERY_KNOWLEDGE_TOOL = 'svccrawl_query_knowledge';

/** Its text is in schema/operations/crawl-mcp.graphql. */
const SEARCH = 'SvcCrawlMcpSearchKnowledge';

const REQUEST_TIMEOUT_MS = 30_000;

const inputSchema = {
  query: z.string().min(1).max(2000).describe('What to look for, in natural language (matched by meaning, not by keywords).'),
  category: z.string().min(1).max(200).optional().describe('Only chunks of this category (the name of the crawl job that collected them).'),
  topK: z.number().int().min(1).max(50).optional().describe('How many chunks to return, best first: 1 to 50, default 5.'),
};

const hitSchema = z.object({
  score: z.number().describe('Cosine similarity to the query (1 = same direction).'),
  title: z.string().describe('Title of the crawled item.'),
  url: z.string().describe('The detail page the chunk was read from.'),
  category: z.string().describe('The crawl job that collected it; empty when unknown.'),
  content: z.string().describe('The chunk text.'),
  itemId: z.string().describe('The crawled item.'),
});

const outputSchema = {
  query: z.string(),
  results: z.array(hitSchema).describe('Best matches first.'),
};

type Hit = z.infer<typeof hitSchema>;

export interface QueryKnowledgeDeps {
  router: RouterClient;
  /** The router's GraphQL endpoint, named in the messages. */
  routerUrl: string;
  /** Platform JWT the searches run with (SVC_TOKEN). */
  token?: string | undefined;
  /** Tenant searched (SVC_TENANT_ID); without it the platform uses the token's only tenant. */
  tenantId?: string | undefined;
  log: Logger;
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

interface SearchData {
  searchKnowledge?: (Omit<Hit, 'category'> & { category: string | null })[] | null;
}

/** What to tell the caller about a failed search, with the setting to look at. */
function explain(error: SvcError, deps: QueryKnowledgeDeps): string {
  const { message } = error;
  switch (error.extensions.slug) {
    case ROUTER_FAILURE.unreachable:
    case ROUTER_FAILURE.timeout:
      return `Could not reach the platform's router at ${deps.routerUrl} (${error.originalError?.message ?? message}). Is the platform running? SVC_ROUTER_URL sets the address.`;
    case ROUTER_FAILURE.invalidAnswer: {
      const { httpStatus, bodyStart } = (error.extensions.details ?? {}) as { httpStatus?: number; bodyStart?: string };
      return `The router at ${deps.routerUrl} answered HTTP ${httpStatus} without search results${bodyStart ? `: ${bodyStart}` : ''}. Check SVC_ROUTER_URL.`;
    }
  }
  if (error.code === 'UNAUTHENTICATED') return `The platform refused SVC_TOKEN: ${message}. Set SVC_TOKEN to a valid, unexpired platform token.`;
  if (error.code === 'FORBIDDEN') return `The platform refused the search: ${message}. SVC_TOKEN must grant the tenant in SVC_TENANT_ID${deps.tenantId ? ` (${deps.tenantId})` : ''}.`;
  if (error.code === 'BAD_USER_INPUT' && /X-Svc-Tenant-Id/i.test(message)) return `searchKnowledge failed: ${message}. Set SVC_TENANT_ID to the tenant to search.`;
  return `searchKnowledge failed: ${message}`;
}

function summary(query: string, hits: Hit[]): string {
  if (hits.length === 0) return `No knowledge matches ${JSON.stringify(query)} for this tenant.`;
  const lines = [`${hits.length} match(es) for ${JSON.stringify(query)}, best first:`];
  hits.forEach((hit, i) => {
    const snippet = hit.content.length > 300 ? `${hit.content.slice(0, 300)}…` : hit.content;
    lines.push(`${i + 1}. [${hit.score.toFixed(3)}] ${hit.title} — ${hit.url}${hit.category ? ` (${hit.category})` : ''}`, `   ${snippet}`);
  });
  return lines.join('\n');
}

export function registerQueryKnowledgeTool(server: McpServer, deps: QueryKnowledgeDeps): void {
  server.registerTool(
    QUERY_KNOWLEDGE_TOOL,
    {
      title: 'Search the crawled knowledge base',
      description:
        'Semantic search over the knowledge base built from crawled pages (crawl jobs with enableRagSync), scoped to the configured tenant. Returns the best-matching text chunks with score, title, source URL and category (the crawl job). topK: 1 to 50, default 5.',
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, category, topK }): Promise<CallToolResult> => {
      if (!deps.token) {
        return toolError('No platform token is configured: set SVC_TOKEN to a platform JWT (and SVC_TENANT_ID to the tenant to search) in the environment of the crawl MCP server, then restart it.');
      }
      let hits: SearchData['searchKnowledge'];
      try {
        const data = await deps.router.execute<SearchData>(SEARCH, { query, category: category ?? null, topK: topK ?? 5 }, {
          headers: { authorization: `Bearer ${deps.token}`, 'x-svc-tenant-id': deps.tenantId },
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
        hits = data.searchKnowledge;
      } catch (error) {
        if (error instanceof SvcError) return toolError(explain(error, deps));
        deps.log.error({ err: error, tool: QUERY_KNOWLEDGE_TOOL }, 'knowledge search failed');
        return toolError(`searchKnowledge failed: ${(error as Error).message}`);
      }
      if (!Array.isArray(hits)) return toolError(`The router at ${deps.routerUrl} answered without search results. Check SVC_ROUTER_URL.`);
      const results = hits.map((h) => ({ score: h.score, title: h.title, url: h.url, category: h.category ?? '', content: h.content, itemId: h.itemId }));
      deps.log.info({ tool: QUERY_KNOWLEDGE_TOOL, results: results.length }, 'knowledge searched');
      return { structuredContent: { query, results }, content: [{ type: 'text', text: summary(query, results) }] };
    },
  );
}
