import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';
import { startWebhookReceiver, type Received } from './support/webhook-receiver.js';

// Per-execution webhooks through the whole platform: each event a job asks for is posted once
// per execution, signed with the job's secret; a receiver that is down for a while gets it when
// it comes back; one that never answers 2xx ends as a dead letter readable over the API.

const SECRET = 'crawl-webhook-secret-0123456789';
const SELECTORS = { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' };
const challenge = readFileSync(new URL('../../../subgraphs/crawl/test/fixtures/blocked/cloudflare-challenge.html', import.meta.url), 'utf8');
const list = (titles: string[]) => `<html><body><ul class="news">${titles.map((t) => `<li class="story"><a href="/a/${t.toLowerCase().replace(/ /g, '-')}">${t}</a></li>`).join('')}</ul></body></html>`;

let platform: TestPlatform;
let site: FixtureSite;
let token: string;
const headers = () => ({ authorization: `Bearer ${token}` });

async function createJob(path: string, webhook: Record<string, unknown>) {
  return call(`${platform.bridge}/api/v1/crawl/jobs`, {
    headers: headers(),
    json: { jobName: `hooks ${path}`, targetUrl: site.url(path), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: SELECTORS, webhook },
  });
}

async function runToEnd(jobId: string): Promise<string> {
  const triggered = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: headers() });
  expect(triggered.status).toBe(200);
  const executionId = triggered.body.data.executionId as string;
  await eventually(async () => {
    const runs = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/executions`, { headers: headers() });
    return runs.body.data.find((r: { executionId: string; status: string }) => r.executionId === executionId && ['COMPLETED', 'FAILED', 'BLOCKED'].includes(r.status));
  }, 30_000, 'the run to end');
  return executionId;
}

const deliveries = async (jobId: string, status = '') =>
  (await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/webhook-deliveries${status ? `?status=${status}` : ''}`, { headers: headers() })).body.data as { event: string; status: string; attempts: number; lastError: string | null; executionId: string }[];

function verifySignature(r: Received): void {
  const expected = `sha256=${createHmac('sha256', SECRET).update(`${r.headers['x-svc-timestamp']}.${JSON.stringify(r.body)}`).digest('hex')}`;
  expect(r.headers['x-svc-signature']).toBe(expected);
}

beforeAll(async () => {
  site = await startFixtureSite();
  platform = await startTestPlatform({
    SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    SVC_CRAWL_WEBHOOK_RETRY_MS: '150',
    SVC_CRAWL_WEBHOOK_ATTEMPTS: '3',
    SVC_CRAWL_WEBHOOK_SWEEP_MS: '500',
  });
  token = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
});
afterAll(async () => {
  await platform?.close();
  await site?.close();
});

describe('crawl execution webhooks', () => {
  it('refuses a webhook to a private address, without a secret or with an unknown event (422 naming the field), and never returns the secret', async () => {
    const metadata = await createJob('/x', { url: 'http://169.254.169.254/hook', secret: SECRET });
    expect(metadata.status).toBe(422);
    expect(metadata.body.errors).toEqual([{ pointer: '/webhook/url', detail: expect.stringContaining('webhook.url is not allowed') }]);
    const unsigned = await createJob('/x', { url: 'http://127.0.0.1:9/hook' });
    expect(unsigned.status).toBe(422);
    expect(unsigned.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/webhook/secret']);
    const unknown = await createJob('/x', { url: 'http://127.0.0.1:9/hook', secret: SECRET, events: ['completed', 'exploded'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ pointer: '/webhook/events/1' });
    const ok = await createJob('/x', { url: 'http://127.0.0.1:9/hook', secret: SECRET, events: ['failed'] });
    expect(ok.status).toBe(201);
    const job = await call(`${platform.bridge}/api/v1/crawl/jobs/${ok.body.data.jobId}`, { headers: headers() });
    expect(job.body.data.webhook).toEqual({ url: 'http://127.0.0.1:9/hook', events: ['failed'] });
    expect(JSON.stringify(job.body)).not.toContain(SECRET);
  });

  it('posts completed on every run and changed when a later run finds items new or gone, once each, signed', async () => {
    const receiver = await startWebhookReceiver();
    try {
      site.serve('/news', { content: { html: list(['Harbour opens', 'Ferry delayed']) } });
      const created = await createJob('/news', { url: receiver.url, secret: SECRET, events: ['completed', 'changed'] });
      expect(created.status).toBe(201);
      const jobId = created.body.data.jobId as string;
      const first = await runToEnd(jobId);
      await eventually(() => receiver.received.length >= 1, 10_000, 'the first delivery');
      site.serve('/news', { content: { html: list(['Harbour opens', 'Market moves to the square']) } });
      const second = await runToEnd(jobId);
      await eventually(() => receiver.received.length >= 3, 10_000, 'the second run\'s deliveries');
      await new Promise((r) => setTimeout(r, 1200)); // two sweeps: nothing more may arrive
      const got = receiver.received.map((r) => `${r.body.executionId} ${r.headers['x-svc-event']}`).sort();
      expect(got).toEqual([`${first} crawl.completed`, `${second} crawl.changed`, `${second} crawl.completed`].sort());
      for (const r of receiver.received) verifySignature(r);
      const changed = receiver.received.find((r) => r.body.event === 'crawl.changed')!;
      expect(changed.body).toMatchObject({ jobId, executionId: second, status: 'COMPLETED', totalCount: 2, changes: { new: 1, changed: 0, unchanged: 1, gone: 1 }, goneItems: [{ title: 'Ferry delayed' }] });
      expect(changed.headers['x-svc-delivery']).toMatch(/^[0-9a-f-]{36}:1$/);
      expect((await deliveries(jobId)).map((d) => [d.event, d.status, d.attempts])).toEqual(expect.arrayContaining([['completed', 'DELIVERED', 1], ['changed', 'DELIVERED', 1]]));
    } finally {
      await receiver.close();
    }
  });

  it('posts failed and blocked runs; a receiver down for two attempts gets the event when it is back', async () => {
    const receiver = await startWebhookReceiver([503, 503]);
    try {
      const failing = await createJob('/error', { url: receiver.url, secret: SECRET, events: ['failed', 'completed'] });
      const failedRun = await runToEnd(failing.body.data.jobId);
      site.serve('/walled', { content: { html: challenge }, status: 403, headers: { 'cf-mitigated': 'challenge' } });
      const walled = await createJob('/walled', { url: receiver.url, secret: SECRET, events: ['blocked', 'failed'] });
      const blockedRun = await runToEnd(walled.body.data.jobId);
      await eventually(() => receiver.received.filter((r) => r.body.executionId === blockedRun).length >= 3, 15_000, 'the blocked event after two refusals');
      await eventually(() => receiver.received.filter((r) => r.body.executionId === failedRun).length >= 3, 15_000, 'the failed event after two refusals');
      const byRun = (id: string) => receiver.received.filter((r) => r.body.executionId === id);
      expect(byRun(failedRun).map((r) => r.headers['x-svc-event'])).toEqual(['crawl.failed', 'crawl.failed', 'crawl.failed']);
      expect(byRun(failedRun).map((r) => String(r.headers['x-svc-delivery']).split(':')[1])).toEqual(['1', '2', '3']);
      expect(byRun(failedRun)[2]!.body).toMatchObject({ status: 'FAILED', error: expect.stringContaining('HTTP 500') });
      expect(byRun(blockedRun)[2]!.body).toMatchObject({ event: 'crawl.blocked', status: 'BLOCKED', blockedCount: 1, blockedPages: [{ kind: 'challenge', status: 403 }] });
      const [delivered] = await deliveries(walled.body.data.jobId);
      expect(delivered).toMatchObject({ event: 'blocked', status: 'DELIVERED', attempts: 3, lastError: null });
    } finally {
      await receiver.close();
    }
  });

  it('dead-letters a delivery after its last attempt and lists it over the API', async () => {
    const receiver = await startWebhookReceiver([500, 500, 500, 500]);
    try {
      site.serve('/quiet', { content: { html: list(['One item']) } });
      const created = await createJob('/quiet', { url: receiver.url, secret: SECRET, events: ['completed'] });
      const jobId = created.body.data.jobId as string;
      const executionId = await runToEnd(jobId);
      const [dead] = await eventually(async () => {
        const failed = await deliveries(jobId, 'FAILED');
        return failed.length ? failed : undefined;
      }, 15_000, 'the dead letter');
      expect(dead).toMatchObject({ executionId, event: 'completed', status: 'FAILED', attempts: 3, lastError: 'webhook answered HTTP 500' });
      expect(receiver.received).toHaveLength(3);
      expect(await deliveries(jobId, 'PENDING')).toEqual([]);
      const bad = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/webhook-deliveries?status=LOST`, { headers: headers() });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('"LOST"');
    } finally {
      await receiver.close();
    }
  });
});
