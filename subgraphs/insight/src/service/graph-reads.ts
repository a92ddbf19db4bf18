import type { Principal } from '@svc/kit';
import type { Authority } from '../domain/job-records.js';
import type { GraphCall } from './graph-call.js';

/** Cross-service reads the tools need, each one router operation. */
export interface GraphReads {
  searchKnowledge(query: string, topK: number): Promise<KnowledgeHit[]>;
  contents(siteKey: string): Promise<ContentSummary[]>;
  budgets(): Promise<BudgetSummary[]>;
  /** The requester's tenant's running crawl jobs that feed the knowledge base (to propose a refresh when it knows nothing). */
  crawlJobs(): Promise<CrawlJobSummary[]>;
}

export interface CrawlJobSummary {
  jobId: string;
  jobName: string;
  targetUrl: string;
  status: string;
  tenantId: string;
}

export interface KnowledgeHit {
  chunkId: string;
  itemId: string;
  title: string;
  url: string;
  category: string | null;
  content: string;
  score: number;
}

export interface ContentSummary {
  contentId: string;
  siteKey: string;
  /** Each locale of a content is a content of its own. */
  locale?: string;
  slug: string;
  title: string;
  status: string;
  publishedVersion: number | null;
  latestVersion: number;
  latestVersionStatus: string;
  publishedAt: string | null;
}

export interface BudgetSummary {
  agentCode: string;
  allocatedUsd: number;
  currentUsageUsd: number;
  burnRatePercent: number;
  alertThresholdPercent: number;
  status: string;
  hardLimitEnabled: boolean;
  /** TENANT: the tenant's admins set it (a proposal can); PLATFORM: the platform's operator does (the tenant's share of the analysis agent). */
  managedBy?: string;
}

interface ContentRow {
  id: string;
  siteKey: string;
  locale?: string;
  slug: string;
  title: string;
  status: string;
  latestVersion: number;
  publishedVersion: number | null;
  publishedAt: string | null;
  /** Newest first. */
  versions: { version: number; status: string }[];
}

/**
 * Reads of other services for a job's tools, through the router with the requester's
 * authority: a short-lived token of subject `svc:insight` acting for the requester, with the
 * requester's own roles, tenants and sites (never more).
 */
export function graphReads(deps: { call: GraphCall; mintToken(principal: Principal): Promise<string>; authority: Authority; tenantId?: string | undefined }): GraphReads {
  async function headers(): Promise<Record<string, string>> {
    const a = deps.authority;
    const token = await deps.mintToken({ subject: 'svc:insight', actor: a.subject, roles: a.roles, tenants: a.tenants, sites: a.sites });
    return { authorization: `Bearer ${token}`, ...(deps.tenantId ? { 'x-svc-tenant-id': deps.tenantId } : {}) };
  }
  return {
    async searchKnowledge(query, topK) {
      const data = await deps.call<{ searchKnowledge: KnowledgeHit[] }>('InsightSearchKnowledge', { query, topK }, await headers());
      return data.searchKnowledge;
    },
    async contents(siteKey) {
      const data = await deps.call<{ contents: ContentRow[] }>('InsightContents', { siteKey }, await headers());
      return data.contents.map((c): ContentSummary => ({
        contentId: c.id, siteKey: c.siteKey, ...(c.locale ? { locale: c.locale } : {}), slug: c.slug, title: c.title, status: c.status,
        publishedVersion: c.publishedVersion, latestVersion: c.latestVersion, latestVersionStatus: c.versions[0]?.status ?? c.status, publishedAt: c.publishedAt,
      }));
    },
    async crawlJobs() {
      const data = await deps.call<{ crawlJobs: (Omit<CrawlJobSummary, 'tenantId'> & { enableRagSync: boolean })[] }>('InsightCrawlJobs', {}, await headers());
      const tenantId = deps.tenantId ?? '';
      // The jobs that can fill the knowledge base: they sync to it, and run (not paused or deleted).
      return data.crawlJobs.filter((j) => j.enableRagSync && (j.status === 'SCHEDULED' || j.status === 'COMPLETED')).map(({ enableRagSync: _, ...j }) => ({ ...j, tenantId }));
    },
    async budgets() {
      const data = await deps.call<{ budgets: BudgetSummary[] }>('InsightBudgets', {}, await headers());
      return data.budgets;
    },
  };
}
