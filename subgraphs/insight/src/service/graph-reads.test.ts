import { describe, expect, it } from '@jest/globals';
import type { Authority } from '../domain/job-records.js';
import { graphReads } from './graph-reads.js';
import { routerOf } from './sources/test-support.js';

const authority: Authority = { subject: 'ana', roles: ['analyst'], tenants: ['acme'], sites: ['shop'] };

describe('reads of other services for the tools', () => {
  it('offers, among the tenant\'s crawl jobs, only the running ones that feed the knowledge base', async () => {
    const job = (jobName: string, status: string, enableRagSync: boolean) => ({ jobId: jobName, jobName, targetUrl: `https://${jobName}.example/`, status, enableRagSync });
    const { call, calls } = routerOf({
      InsightCrawlJobs: () => ({ crawlJobs: [job('news', 'SCHEDULED', true), job('prices', 'SCHEDULED', false), job('once', 'COMPLETED', true), job('paused', 'PAUSED', true)] }),
    });
    const reads = graphReads({ call, mintToken: async () => 't', authority, tenantId: 'acme' });
    expect(await reads.crawlJobs()).toEqual([
      { jobId: 'news', jobName: 'news', targetUrl: 'https://news.example/', status: 'SCHEDULED', tenantId: 'acme' },
      { jobId: 'once', jobName: 'once', targetUrl: 'https://once.example/', status: 'COMPLETED', tenantId: 'acme' },
    ]);
    expect(calls).toEqual(['InsightCrawlJobs {}']);
  });
});
