import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/eventually.js';
import { gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

let platform: TestPlatform;
let token: string;
const headers = () => ({ authorization: `Bearer ${token}` });

const JOB = `fragment J on InsightJob { jobId status prompt requesterId createdAt startedAt finishedAt error progress { stepsDone currentStep }
  steps { seq kind title detail toolName toolArgs result resultSummary status }
  report { judgment judgmentSource confidence confidenceReason findings { title detail evidence } evidence { kind step metric summary } charts }
  actions { actionId kind title targetType targetId status params } }`;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.token({ subject: 'ana', roles: ['analyst', 'reviewer'], tenants: ['acme'], sites: ['demo'] });
});
afterAll(async () => {
  await platform?.close();
});

describe('analysis jobs on the offline model', () => {
  it('runs a question to a grounded report', async () => {
    const created = await gql(platform.router, `mutation($input: JSONObject!) { createInsightJob(input: $input) { jobId status createdAt } }`, { input: { prompt: 'Why did revenue drop last week? What if we increase search ad spend by 20%?' } }, headers());
    expect(created.body.errors).toBeUndefined();
    const { jobId, status } = created.body.data.createInsightJob;
    expect(status).toBe('PENDING');
    const job = await eventually(async () => {
      const reply = await gql(platform.router, `query($id: ID!) { insightJob(jobId: $id) { ...J } } ${JOB}`, { id: jobId }, headers());
      expect(reply.body.errors).toBeUndefined();
      const j = reply.body.data.insightJob;
      return j.status === 'COMPLETED' || j.status === 'FAILED' ? j : undefined;
    }, 60_000, 'the job to end');
    if (job.status !== 'COMPLETED') throw new Error(`job failed: ${job.error}\n${JSON.stringify(job.steps, null, 1)}`);
    console.log(JSON.stringify({ judgment: job.report.judgment, findings: job.report.findings, steps: job.steps.map((s: { seq: number; kind: string; title: string; detail: string }) => [s.seq, s.kind, s.title, s.detail?.slice(0, 200)]) }, null, 1));
    expect(job.report.findings.length).toBeGreaterThan(3);
  });
});
