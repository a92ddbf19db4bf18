import { z } from 'zod';
import type { CrawlJobSummary } from '../service/graph-reads.js';
import { defineTool, fig, type ToolResult } from './tool.js';

/** What search_knowledge finds: the passages, and with none the tenant's crawl jobs that feed the knowledge base. */
export interface KnowledgeData {
  query?: string;
  hits: { crawlItemId: string; chunkId: string; title: string; url: string; category: string | null; score: number; excerpt: string }[];
  crawlJobs?: CrawlJobSummary[];
}

export const searchKnowledge = defineTool({
  name: 'search_knowledge',
  description: 'Searches the crawled knowledge base (pages the crawler collected for the requester\'s tenant) by meaning, returning the closest passages with their source pages.',
  input: z.object({
    query: z.string().min(1).max(2000).describe('What to look for, in natural language.'),
    top_k: z.number().int().min(1).max(20).default(5).describe('How many passages; default 5.'),
  }),
  async run(ctx, args): Promise<ToolResult<KnowledgeData>> {
    if (!ctx.graph) return { data: { hits: [] }, summary: 'The knowledge base is not reachable from here.' };
    const hits = (await ctx.graph.searchKnowledge(args.query, args.top_k)).map((h) => ({
      crawlItemId: h.itemId,
      chunkId: h.chunkId,
      title: h.title,
      url: h.url,
      category: h.category,
      score: fig(h.score),
      excerpt: h.content.slice(0, 400),
    }));
    // With nothing found, the tenant's crawl jobs: a refresh of one may bring sources in.
    const crawlJobs = hits.length === 0 ? await ctx.graph.crawlJobs().catch(() => []) : [];
    return {
      data: { query: args.query, hits, ...(crawlJobs.length ? { crawlJobs } : {}) },
      summary: hits.length ? `${hits.length} passages, best: ${hits.slice(0, 3).map((h) => `"${h.title}" (${h.url}, score ${h.score})`).join('; ')}.` : `Nothing in the knowledge base matches "${args.query}".`,
    };
  },
});
