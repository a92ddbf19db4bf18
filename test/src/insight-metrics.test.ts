import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/eventually.js';
import { startFakePrometheus } from './support/fake-prometheus.js';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/** Metrics of the analysis service: ingest, lookup with buckets, the demo seed, and Prometheus as a source. */

let platform: TestPlatform;
let prometheus: Awaited<ReturnType<typeof startFakePrometheus>>;
let site: FixtureSite;
let analyst: string;
const DAY = 86_400_000;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  prometheus = await startFakePrometheus([
    { name: 'http_requests_total', labels: { job: 'api', code: '200' }, value: (t) => t % 1000 },
    { name: 'http_requests_total', labels: { job: 'api', code: '500' }, value: () => 3 },
  ]);
  site = await startFixtureSite();
  site.serve('/list', { content: { html: '<ul class="news"><li class="story"><a href="/d/1">One</a></li><li class="story"><a href="/d/2">Two</a></li></ul>' } });
  platform = await startTestPlatform({ SVC_PROMETHEUS_URL: prometheus.url, SVC_PROMETHEUS_TENANTS: 'demo', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  analyst = await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['demo'], sites: [] });
});
afterAll(async () => {
  await platform?.close();
  await prometheus?.close();
  await site?.close();
});

const lookup = (query: Record<string, unknown>) =>
  gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { name labels unit source points { timestamp value } } }', { q: query }, bearer(analyst));

describe('metrics', () => {
  it('ingests a batch and reads it back bucketed by day', async () => {
    const start = Date.UTC(2026, 0, 1);
    const points = Array.from({ length: 48 }, (_, i) => ({ timestamp: new Date(start + i * 3_600_000).toISOString(), value: i }));
    const ingested = await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(analyst), json: { series: [{ name: 'orders', labels: { region: 'eu' }, unit: 'orders', points }] } });
    expect(ingested.status).toBe(200);
    expect(ingested.body).toEqual({ code: 200, message: 'OK', data: { series: 1, points: 48 } });
    const reply = await lookup({ name: 'orders', labels: { region: 'eu' }, from: '2026-01-01', to: '2026-01-03', step: '1d', aggregation: 'sum' });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.metricSeries).toEqual([{ name: 'orders', labels: { region: 'eu' }, unit: 'orders', source: 'store', points: [{ timestamp: '2026-01-01T00:00:00.000Z', value: 276 }, { timestamp: '2026-01-02T00:00:00.000Z', value: 852 }] }]);
    const again = await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(analyst), json: { series: [{ name: 'orders', labels: { region: 'eu' }, points: [{ timestamp: points[0]!.timestamp, value: 100 }] }] } });
    expect(again.status).toBe(200);
    expect((await lookup({ name: 'orders', from: '2026-01-01', to: '2026-01-02', step: '1d' })).body.data.metricSeries[0].points[0].value).toBe(376);
  });

  it('refuses a bad batch whole, naming every bad field', async () => {
    const reply = await call(`${platform.bridge}/api/v1/insight/metrics`, {
      headers: bearer(analyst),
      json: { series: [{ name: 'Bad Name', labels: { 'x-y': 'a' }, points: [{ timestamp: '2026-01-02', value: 1 }, { timestamp: '2026-01-01', value: 'NaN' }] }, { name: 'fine', points: [{ timestamp: 'soon', value: 1 }] }] },
    });
    expect(reply.status).toBe(422);
    const pointers = reply.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/series/0/name', '/series/0/labels/x-y', '/series/0/points/1/value', '/series/1/points/0/timestamp']));
    expect((await lookup({ name: 'fine' })).body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('has the demo business seeded, two years ending yesterday', async () => {
    const reply = await gql(platform.router, '{ metrics { name labels source pointCount first last } }', {}, bearer(analyst));
    const revenue = reply.body.data.metrics.find((m: { name: string }) => m.name === 'revenue');
    expect(revenue).toMatchObject({ source: 'store', pointCount: 730 });
    expect(Date.now() - Date.parse(revenue.last)).toBeLessThan(2 * DAY);
    expect(reply.body.data.metrics.filter((m: { name: string }) => m.name === 'ad_spend').map((m: { labels: { channel: string } }) => m.labels.channel).sort()).toEqual(['display', 'search', 'social']);
  });

  it('reads the model gateway\'s own figures per agent and day', async () => {
    // The tenant's own agent (the master key creating it for tenant demo): the tenant's analysts read its figures.
    const key = await gql(platform.router, 'mutation { createApiKey(agentCode: "marketing", name: "m") { key } }', {}, { ...bearer(TEST_MASTER_KEY), 'x-svc-tenant-id': 'demo' });
    for (const text of ['Summarise our Q3 sales', 'List three headline ideas', 'Draft a short reply']) {
      const reply = await call(`${platform.bridge}/v1/chat/completions`, { headers: bearer(key.body.data.createApiKey.key), json: { model: 'auto-route', messages: [{ role: 'user', content: text }], svcllm_options: { cacheBypass: true } } });
      expect(reply.status).toBe(200);
    }
    const catalog = await gql(platform.router, '{ metrics { name source } }', {}, bearer(analyst));
    expect(catalog.body.data.metrics).toEqual(expect.arrayContaining([{ name: 'llm.cost_usd', source: 'platform' }, { name: 'llm.tokens', source: 'platform' }]));
    const today = new Date().toISOString().slice(0, 10);
    const requests = await lookup({ name: 'llm.requests', labels: { agent: 'marketing' }, from: today, step: '1d' });
    expect(requests.body.errors).toBeUndefined();
    expect(requests.body.data.metricSeries).toEqual([{ name: 'llm.requests', labels: { agent: 'marketing' }, unit: 'requests', source: 'platform', points: [{ timestamp: `${today}T00:00:00.000Z`, value: 3 }] }]);
    const tokens = await lookup({ name: 'llm.tokens', from: today });
    expect(tokens.body.data.metricSeries.find((s: { labels: { agent: string } }) => s.labels.agent === 'marketing').points[0].value).toBeGreaterThan(10);
    const stranger = await platform.token({ subject: 'eve', roles: ['editor'], tenants: [], sites: [] });
    const refused = await gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { name } }', { q: { name: 'llm.tokens' } }, bearer(stranger));
    expect(refused.body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  it('reads form submissions per site and form, and crawl items per job, as the caller may see them', async () => {
    const contact = { applicantName: 'Ada', email: 'ada@example.com', inquiryType: 'SALES', message: 'Hello' };
    for (const [i, extra] of [{}, {}, { website: 'spam.example' }].entries()) {
      const sent = await call(`${platform.bridge}/api/v1/forms/contact/submit`, { json: { ...contact, ...extra }, headers: { 'X-Svc-Site-Key': 'demo', 'X-Forwarded-For': `198.51.100.${i + 1}` } });
      expect(sent.status).toBe(201);
    }
    const crawler = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
    const job = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
      headers: bearer(crawler),
      json: { jobName: 'news', targetUrl: site.url('/list'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' } },
    });
    expect(job.status).toBe(201);
    const jobId = job.body.data.jobId as string;
    const run = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: bearer(crawler) });
    expect(run.status).toBe(200);
    await eventually(async () => ((await call(`${platform.bridge}/api/v1/crawl/results/${run.body.data.executionId}`, { headers: bearer(crawler) })).status === 200 ? true : undefined), 30_000, 'the crawl run to complete');

    const today = `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`;
    const siteAnalyst = await platform.token({ subject: 'sam', roles: ['analyst'], tenants: ['acme'], sites: ['demo'] });
    const ask = (token: string, query: Record<string, unknown>) =>
      gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { name labels unit source points { timestamp value } } }', { q: query }, bearer(token));
    const catalog = await gql(platform.router, '{ metrics { name source } }', {}, bearer(siteAnalyst));
    expect(catalog.body.data.metrics).toEqual(expect.arrayContaining([{ name: 'cms.form_submissions', source: 'platform' }, { name: 'crawl.items', source: 'platform' }]));

    const submissions = await ask(siteAnalyst, { name: 'cms.form_submissions', labels: { site: 'demo' }, from: today, step: '1d' });
    expect(submissions.body.errors).toBeUndefined();
    expect(submissions.body.data.metricSeries).toEqual([{ name: 'cms.form_submissions', labels: { site: 'demo', form: 'contact' }, unit: 'submissions', source: 'platform', points: [{ timestamp: today, value: 2 }] }]);
    const spam = await ask(siteAnalyst, { name: 'cms.form_spam', from: today });
    expect(spam.body.data.metricSeries[0].points[0].value).toBe(1);

    const items = await ask(siteAnalyst, { name: 'crawl.items', labels: { job: jobId }, from: today });
    expect(items.body.errors).toBeUndefined();
    expect(items.body.data.metricSeries).toEqual([{ name: 'crawl.items', labels: { job: jobId, job_name: 'news', tenant: 'acme' }, unit: 'items', source: 'platform', points: [{ timestamp: today, value: 2 }] }]);
    expect((await ask(siteAnalyst, { name: 'crawl.new_items', from: today })).body.data.metricSeries[0].points[0].value).toBe(2);

    // A job whose only run today failed collected 0 items today (a fall, not missing data), with one failed run.
    const broken = await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(crawler), json: { jobName: 'unreachable', targetUrl: 'http://10.0.0.1/', robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'li', title: 'a' } } });
    const brokenId = broken.body.data.jobId as string;
    const failing = await call(`${platform.bridge}/api/v1/crawl/jobs/${brokenId}/trigger`, { method: 'POST', headers: bearer(crawler) });
    await eventually(async () => {
      const list = await call(`${platform.bridge}/api/v1/crawl/jobs/${brokenId}/executions`, { headers: bearer(crawler) });
      return list.body.data.find((e: { executionId: string; status: string }) => e.executionId === failing.body.data.executionId && e.status === 'FAILED');
    }, 30_000, 'the crawl run to fail');
    const point = async (name: string) => (await ask(siteAnalyst, { name, labels: { job: brokenId }, from: today })).body.data.metricSeries.map((s: { points: unknown[] }) => s.points);
    expect(await point('crawl.items')).toEqual([[{ timestamp: today, value: 0 }]]);
    expect(await point('crawl.runs')).toEqual([[{ timestamp: today, value: 0 }]]);
    expect(await point('crawl.failed_runs')).toEqual([[{ timestamp: today, value: 1 }]]);
    expect((await ask(siteAnalyst, { name: 'crawl.failed_runs', labels: { job: jobId }, from: today })).body.data.metricSeries[0].points).toEqual([{ timestamp: today, value: 0 }]);

    // Another tenant and site see none of it; a role without rights to the figures is refused.
    const outsider = await platform.token({ subject: 'oli', roles: ['analyst'], tenants: ['globex'], sites: ['elsewhere'] });
    expect((await ask(outsider, { name: 'cms.form_submissions', from: today })).body.data.metricSeries).toEqual([]);
    expect((await ask(outsider, { name: 'crawl.items', from: today })).body.data.metricSeries).toEqual([]);
    const foreignSite = await ask(outsider, { name: 'cms.form_submissions', labels: { site: 'demo' }, from: today });
    expect(foreignSite.body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    const backwards = await gql(platform.router, '{ formSubmissionCounts(from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { day } }', {}, bearer(siteAnalyst));
    expect(backwards.body.errors![0]).toMatchObject({ message: expect.stringContaining('must be before to'), extensions: { code: 'BAD_USER_INPUT' } });
    const tooLong = await gql(platform.router, '{ crawlItemCounts(from: "2020-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { day } }', {}, bearer(siteAnalyst));
    expect(tooLong.body.errors![0]).toMatchObject({ message: expect.stringContaining('longer than 1100 days'), extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('reads series through Prometheus when SVC_PROMETHEUS_URL is set, with label matchers and the step', async () => {
    const catalog = await gql(platform.router, '{ metrics { name source } }', {}, bearer(analyst));
    expect(catalog.body.data.metrics).toContainEqual({ name: 'http_requests_total', source: 'prometheus' });
    const reply = await lookup({ name: 'http_requests_total', labels: { code: '500' }, from: '2026-01-01T00:00:00Z', to: '2026-01-01T06:00:00Z', step: '1h' });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.metricSeries).toHaveLength(1);
    expect(reply.body.data.metricSeries[0]).toMatchObject({ name: 'http_requests_total', source: 'prometheus', labels: { job: 'api', code: '500' } });
    expect(reply.body.data.metricSeries[0].points.length).toBeGreaterThanOrEqual(6);
    const sent = prometheus.requests.filter((r) => r.path === '/api/v1/query_range').at(-1)!;
    expect(sent.params.get('query')).toBe('http_requests_total{code="500"}');
    expect(sent.params.get('step')).toBe('3600');
    expect(Number(sent.params.get('start'))).toBe(Date.UTC(2026, 0, 1) / 1000);
    // Prometheus is the operator's: only the tenants in SVC_PROMETHEUS_TENANTS read it.
    const other = await platform.token({ subject: 'oli', roles: ['analyst'], tenants: ['acme'] });
    const theirs = await gql(platform.router, '{ metrics { name source } }', {}, bearer(other));
    expect(theirs.body.data.metrics.filter((m: { source: string }) => m.source === 'prometheus')).toEqual([]);
    const refused = await gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { name } }', { q: { name: 'http_requests_total', step: '1h' } }, bearer(other));
    expect(refused.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
