import { afterAll, beforeAll } from '@jest/globals';
import { describeSubgraphConformance } from '@svc/kit/testing/conformance';
import { readFile } from 'node:fs/promises';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

const snapshot = (name: string) => () => readFile(new URL(`../../../schema/${name}.graphql`, import.meta.url), 'utf8');
const base = (name: 'cms' | 'insight') => () => platform.urls[name]!.replace(/\/graphql$/, '');

describeSubgraphConformance({
  name: 'cms',
  baseUrl: base('cms'),
  protectedQuery: '{ sites { siteKey } }',
  token: () => platform.token({ roles: ['editor'], sites: ['demo'] }),
  snapshotSdl: snapshot('cms'),
  entity: async () => {
    const delivered = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo' } });
    return {
      representation: { __typename: 'Content', id: delivered.body.data.contentId },
      selection: 'id slug status publishedVersion',
      expect: { id: delivered.body.data.contentId, slug: 'welcome', status: 'PUBLISHED', publishedVersion: 1 },
    };
  },
});

describeSubgraphConformance({
  name: 'insight',
  baseUrl: base('insight'),
  protectedQuery: '{ viewer { subject } }',
  token: () => platform.token({ roles: ['analyst'] }),
  snapshotSdl: snapshot('insight'),
});

describeSubgraphConformance({
  name: 'llm',
  baseUrl: () => platform.urls.llm!.replace(/\/graphql$/, ''),
  protectedQuery: '{ budgets { agentCode } }',
  token: () => platform.token({ roles: ['admin'] }),
  snapshotSdl: snapshot('llm'),
  entity: async () => {
    const { TEST_MASTER_KEY } = await import('./support/platform.js');
    const code = 'conformance-agent';
    const created = await call(`${platform.bridge}/admin/v1/budgets`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, json: { agentCode: code, monthlyBudgetUsd: 12.5 } });
    if (created.status !== 200) throw new Error(`POST /admin/v1/budgets answered ${created.status}: ${created.text}`);
    return {
      representation: { __typename: 'Agent', code },
      selection: 'code budget { allocatedUsd }',
      expect: { code, budget: { allocatedUsd: 12.5 } },
    };
  },
  missingRepresentation: { __typename: 'Agent', code: 'no-such-agent' },
});

describeSubgraphConformance({
  name: 'crawl',
  baseUrl: () => platform.urls.crawl!.replace(/\/graphql$/, ''),
  protectedQuery: '{ crawlJobs { jobId } }',
  token: () => platform.token({ roles: ['crawler'], tenants: ['conformance'] }),
  snapshotSdl: snapshot('crawl'),
  entity: async () => {
    const token = await platform.token({ roles: ['crawler'], tenants: ['conformance'] });
    const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: { authorization: `Bearer ${token}` },
      json: { jobName: 'conformance', targetUrl: 'https://example.com/news', cronExpression: '0 0 9 * * ?', selectors: { listRow: 'li' } },
    });
    if (created.status !== 201) throw new Error(`POST /api/v1/crawl/jobs answered ${created.status}: ${created.text}`);
    const jobId = created.body.data.jobId as string;
    return { representation: { __typename: 'CrawlJob', jobId }, selection: 'jobId jobName status', expect: { jobId, jobName: 'conformance', status: 'SCHEDULED' } };
  },
  missingRepresentation: { __typename: 'CrawlJob', jobId: '00000000-0000-0000-0000-000000000000' },
});
