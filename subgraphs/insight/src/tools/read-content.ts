import { z } from 'zod';
import type { ContentSummary } from '../service/graph-reads.js';
import { defineTool, type ToolResult } from './tool.js';

/** What read_content finds: the site's contents (no site when the content service cannot be reached). */
export interface ContentData {
  siteKey?: string;
  contents: ContentSummary[];
}

export const readContent = defineTool({
  name: 'read_content',
  description: 'Reads the contents of a site in the content service: slug, title, status, the live version and whether a newer draft waits.',
  input: z.object({
    site_key: z.string().min(1).max(100).default('demo').describe('Site key; default demo.'),
    slug: z.string().max(200).default('').describe('Only this content; empty for all of the site.'),
  }),
  async run(ctx, args): Promise<ToolResult<ContentData>> {
    if (!ctx.graph) return { data: { contents: [] }, summary: 'The content service is not reachable from here.' };
    const contents = (await ctx.graph.contents(args.site_key)).filter((c) => !args.slug || c.slug === args.slug);
    const drafts = contents.filter((c) => c.latestVersionStatus === 'DRAFT' && c.publishedVersion !== null && c.latestVersion > c.publishedVersion);
    return {
      data: { siteKey: args.site_key, contents },
      summary: contents.length
        ? `${contents.length} contents on ${args.site_key}: ${contents.map((c) => `${c.slug} (${c.locale ? `${c.locale}, ` : ''}${c.status}, v${c.latestVersion})`).join(', ')}${drafts.length ? `; unpublished drafts: ${drafts.map((c) => c.slug).join(', ')}` : ''}.`
        : `No content on site ${args.site_key}.`,
    };
  },
});
