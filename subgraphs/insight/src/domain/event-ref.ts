/**
 * What a platform event's `ref` points at, so a proposal can act on it: a content version
 * (`content:<siteKey>:<contentId>:v<version>`) or a crawl job, with the run when one is named
 * (`crawl-job:<jobId>` or `crawl-job:<jobId>:execution:<executionId>`). Tenant events may carry
 * any ref; those that match neither shape point at nothing the platform owns.
 */
export type EventRef =
  | { kind: 'content'; siteKey: string; contentId: string; version: number }
  | { kind: 'crawl-job'; jobId: string; executionId?: string };

export const contentRef = (siteKey: string, contentId: string, version: number) => `content:${siteKey}:${contentId}:v${version}`;
export const crawlJobRef = (jobId: string, executionId?: string) => `crawl-job:${jobId}${executionId ? `:execution:${executionId}` : ''}`;

export function parseEventRef(ref: string | null | undefined): EventRef | undefined {
  if (!ref) return undefined;
  const content = /^content:([^:]+):([^:]+):v(\d+)$/.exec(ref);
  if (content) return { kind: 'content', siteKey: content[1]!, contentId: content[2]!, version: Number(content[3]) };
  const crawl = /^crawl-job:([^:]+)(?::execution:([^:]+))?$/.exec(ref);
  if (crawl) return { kind: 'crawl-job', jobId: crawl[1]!, ...(crawl[2] ? { executionId: crawl[2] } : {}) };
  return undefined;
}
