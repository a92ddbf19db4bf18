import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse, print, type FieldDefinitionNode, type ObjectTypeDefinitionNode, type TypeNode } from 'graphql';
import pg from 'pg';
import { paramsHash } from '@svc/insight/domain/action';
import { ROUTES } from '@svc/rest-bridge';
import { eventually } from './support/eventually.js';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * The tenant matrix, generated so it cannot go stale: every REST path of the bridge's route
 * table and every query and mutation of the supergraph is called by a token of another tenant
 * and another site (every role but admin) against the objects of tenant t1 and site demo. Each
 * answer is a refusal (403 or 404) or shows nothing of t1, and no row of insight, crawl or cms
 * changes. A new path or field fails this test until it is classified below.
 */

let platform: TestPlatform;
let site: FixtureSite;
let db: pg.Client;
let attacker: string;
const t1: Record<string, string> = {};
const SECRET = 'T1 SECRET PROMPT 7f3a';
const T1_OPERATOR_SECRET = 't1-operator-webhook-secret-9c2e';
const SECRET_WORD = 'secretsynonym7f3a';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Object placeholders in paths and arguments, each one of t1's (or site demo's). */
const value = (key: string) => {
  const v = t1[key];
  if (!v) throw new Error(`no t1 object for ${key}`);
  return v;
};

/** What to send for each REST path; `own` paths create in the caller's own tenant and are covered elsewhere. */
const REST: Record<string, { params?: Record<string, string>; body?: unknown; kind: 'object' | 'list' | 'own' | 'public' | 'gateway' }> = {
  'POST /api/v1/auth/token': { kind: 'public' },
  'POST /api/v1/insight/jobs': { kind: 'own' },
  'GET /api/v1/insight/jobs': { kind: 'list' },
  'GET /api/v1/insight/jobs/{jobId}': { kind: 'object', params: { jobId: 'insightJob' } },
  'GET /api/v1/insight/jobs/{jobId}/events': { kind: 'object', params: { jobId: 'insightJob' } },
  'POST /api/v1/insight/jobs/{jobId}/cancel': { kind: 'object', params: { jobId: 'insightJob' }, body: {} },
  'POST /api/v1/insight/actions/{actionId}/approve': { kind: 'object', params: { actionId: 'action' }, body: { reviewedBy: 'x' } },
  'POST /api/v1/insight/actions/{actionId}/reject': { kind: 'object', params: { actionId: 'action' }, body: { reviewedBy: 'x' } },
  'GET /api/v1/insight/actions': { kind: 'list' },
  'GET /api/v1/insight/actions/{actionId}': { kind: 'object', params: { actionId: 'action' } },
  'POST /api/v1/insight/metrics': { kind: 'own' },
  // Into the caller's own tenant; naming another is 403 (insight-import.test.ts).
  'POST /api/v1/insight/metrics/import': { kind: 'own' },
  'DELETE /api/v1/insight/metrics/{name}': { kind: 'object', params: { name: 'metric' } },
  // The caller's own tenant's settings, and only for its admins: every role but admin is refused.
  'GET /api/v1/insight/settings': { kind: 'object' },
  'PUT /api/v1/insight/settings': { kind: 'object', body: { operatorWebhookUrl: null } },
  'PUT /api/v1/insight/metrics/{name}/definition': { kind: 'own' },
  'GET /api/v1/insight/metrics/{name}/definition': { kind: 'object', params: { name: 'metric' } },
  'POST /api/v1/insight/events': { kind: 'own' },
  'GET /api/v1/insight/events': { kind: 'list' },
  'GET /api/v1/contents/{contentSlug}': { kind: 'public' },
  'POST /api/v1/forms/{formKey}/submit': { kind: 'public' },
  'POST /api/v1/deploy/purge-cache': { kind: 'object', body: { siteKey: 'demo', contentSlug: 'welcome' } },
  'POST /api/v1/crawl/jobs': { kind: 'own' },
  'POST /api/v1/crawl/jobs/{jobId}/trigger': { kind: 'object', params: { jobId: 'crawlJob' }, body: {} },
  'GET /api/v1/crawl/results/{executionId}': { kind: 'object', params: { executionId: 'execution' } },
  'GET /api/v1/crawl/jobs': { kind: 'list' },
  'GET /api/v1/crawl/jobs/{jobId}': { kind: 'object', params: { jobId: 'crawlJob' } },
  'POST /api/v1/crawl/jobs/{jobId}/pause': { kind: 'object', params: { jobId: 'crawlJob' }, body: {} },
  'POST /api/v1/crawl/jobs/{jobId}/resume': { kind: 'object', params: { jobId: 'crawlJob' }, body: {} },
  'DELETE /api/v1/crawl/jobs/{jobId}': { kind: 'object', params: { jobId: 'crawlJob' } },
  'GET /api/v1/crawl/jobs/{jobId}/executions': { kind: 'object', params: { jobId: 'crawlJob' } },
  'GET /api/v1/crawl/jobs/{jobId}/webhook-deliveries': { kind: 'object', params: { jobId: 'crawlJob' } },
  'POST /api/v1/auth/password': { kind: 'own' },
  'GET /api/v1/admin/users': { kind: 'object' },
  'POST /api/v1/admin/users': { kind: 'object', body: { username: 'planted', password: 'a-long-enough-password', roles: ['admin'], tenants: ['t1'], sites: ['demo'] } },
  'GET /api/v1/admin/users/{username}': { kind: 'object', params: { username: 'user' } },
  'PATCH /api/v1/admin/users/{username}': { kind: 'object', params: { username: 'user' }, body: { roles: ['admin'] } },
  'POST /api/v1/admin/users/{username}/disable': { kind: 'object', params: { username: 'user' }, body: {} },
  'POST /api/v1/admin/users/{username}/enable': { kind: 'object', params: { username: 'user' }, body: {} },
  'PUT /api/v1/admin/users/{username}/password': { kind: 'object', params: { username: 'user' }, body: { password: 'a-long-enough-password' } },
  'POST /v1/chat/completions': { kind: 'gateway', body: { model: 'auto-route', messages: [{ role: 'user', content: 'hi' }] } },
  'POST /v1/embeddings': { kind: 'gateway', body: { model: 'svc-embed', input: 'hi' } },
  'GET /v1/models': { kind: 'gateway' },
  'GET /v1/models/{model}': { kind: 'gateway', params: { model: 'apiKey' } },
  'GET /admin/v1/budgets': { kind: 'list' },
  'POST /admin/v1/budgets': { kind: 'gateway', body: { agentCode: 'insight', monthlyBudgetUsd: 1 } },
  'POST /admin/v1/keys': { kind: 'gateway', body: { agentCode: 'insight' } },
  'GET /admin/v1/keys': { kind: 'list' },
  'DELETE /admin/v1/keys/{id}': { kind: 'gateway', params: { id: 'apiKey' } },
  'GET /admin/v1/usage': { kind: 'list' },
  'POST /admin/v1/agents/{agentCode}/limits': { kind: 'gateway', params: { agentCode: 'apiKey' }, body: { requestsPerMinute: 1 } },
  'POST /admin/v1/keys/{id}/limits': { kind: 'gateway', params: { id: 'apiKey' }, body: { requestsPerMinute: 1 } },
};

/**
 * Arguments for every query and mutation (GraphQL literals, `{key}` a t1 object). `own`: creates
 * in the caller's own tenant or site; `public`: anyone may; `gateway`: the model gateway's
 * administration, which needs an admin (this caller has none) or a gateway key (its own tenant
 * matrix is gateway-tenant-matrix.test.ts); `list`: may answer, but nothing of t1.
 */
const GRAPH: Record<string, { args?: string; kind: 'object' | 'list' | 'own' | 'public' | 'gateway' }> = {
  createContent: { kind: 'object', args: 'input: {siteKey: "demo", slug: "planted-by-t2", title: "x"}' },
  updateContentDraft: { kind: 'object', args: 'id: "{content}", input: {title: "owned"}' },
  publishContent: { kind: 'object', args: 'id: "{content}"' },
  unpublishContent: { kind: 'object', args: 'id: "{content}"' },
  scheduleContentPublish: { kind: 'object', args: 'id: "{content}", at: "2099-01-01T00:00:00Z"' },
  cancelScheduledPublish: { kind: 'object', args: 'id: "{content}"' },
  restoreContentVersion: { kind: 'object', args: 'id: "{content}", version: 1' },
  purgeCache: { kind: 'object', args: 'siteKey: "demo", contentSlug: "welcome"' },
  submitForm: { kind: 'public' },
  defineForm: { kind: 'object', args: 'input: {siteKey: "demo", formKey: "contact", name: "x", fields: []}' },
  createSite: { kind: 'own' },
  createCrawlJob: { kind: 'own' },
  triggerCrawlJob: { kind: 'object', args: 'jobId: "{crawlJob}"' },
  changeCrawlSelectors: { kind: 'object', args: 'jobId: "{crawlJob}", selectors: {listRow: "li", title: "a"}' },
  pauseCrawlJob: { kind: 'object', args: 'jobId: "{crawlJob}"' },
  resumeCrawlJob: { kind: 'object', args: 'jobId: "{crawlJob}"' },
  deleteCrawlJob: { kind: 'object', args: 'jobId: "{crawlJob}"' },
  approveAction: { kind: 'object', args: 'actionId: "{action}"' },
  rejectAction: { kind: 'object', args: 'actionId: "{action}"' },
  issueAccessToken: { kind: 'public' },
  createInsightJob: { kind: 'own' },
  cancelInsightJob: { kind: 'object', args: 'jobId: "{insightJob}"' },
  ingestMetrics: { kind: 'own' },
  deleteMetricSeries: { kind: 'object', args: 'name: "{metric}"' },
  setInsightSettings: { kind: 'object', args: 'input: {operatorWebhookUrl: null}' },
  defineMetric: { kind: 'own' },
  metricDefinition: { kind: 'object', args: 'name: "{metric}"' },
  metricDefinitions: { kind: 'list' },
  recordEvent: { kind: 'own' },
  events: { kind: 'list', args: 'from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z"' },
  chatCompletion: { kind: 'gateway', args: 'request: {model: "auto-route", messages: [{role: "user", content: "hi"}]}' },
  createEmbeddings: { kind: 'gateway', args: 'request: {model: "svc-embed", input: "hi"}' },
  setBudget: { kind: 'gateway', args: 'input: {agentCode: "insight", monthlyBudgetUsd: 1}' },
  createApiKey: { kind: 'gateway', args: 'agentCode: "insight"' },
  revokeApiKey: { kind: 'gateway', args: 'id: "{apiKey}"' },
  deliveredContent: { kind: 'public' },
  content: { kind: 'object', args: 'id: "{content}"' },
  createPreviewLink: { kind: 'object', args: 'id: "{content}"' },
  rotatePreviewSecret: { kind: 'object', args: 'siteKey: "demo"' },
  setSiteLocales: { kind: 'object', args: 'siteKey: "demo", input: {defaultLocale: "en", locales: [{tag: "en"}, {tag: "de", fallback: "en"}]}' },
  contents: { kind: 'object', args: 'siteKey: "demo"' },
  form: { kind: 'object', args: 'siteKey: "demo", formKey: "contact"' },
  formSubmissions: { kind: 'object', args: 'siteKey: "demo", formKey: "contact", limit: 10' },
  formSubmissionCounts: { kind: 'object', args: 'siteKey: "demo", from: "2020-01-01T00:00:00Z", to: "2022-12-31T00:00:00Z"' },
  sites: { kind: 'list' },
  crawlResult: { kind: 'object', args: 'executionId: "{execution}"' },
  searchKnowledge: { kind: 'list', args: 'query: "news"' },
  crawlJob: { kind: 'object', args: 'jobId: "{crawlJob}"' },
  crawlJobs: { kind: 'list', args: 'limit: 50' },
  crawlExecution: { kind: 'object', args: 'executionId: "{execution}"' },
  crawlExecutions: { kind: 'object', args: 'jobId: "{crawlJob}", limit: 10' },
  crawlSelectorVersions: { kind: 'object', args: 'jobId: "{crawlJob}", limit: 10' },
  crawlWebhookDeliveries: { kind: 'object', args: 'jobId: "{crawlJob}", limit: 10' },
  crawlItemCounts: { kind: 'list', args: 'from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z"' },
  actionProposal: { kind: 'object', args: 'actionId: "{action}"' },
  actionProposals: { kind: 'list' },
  insightSettings: { kind: 'object' },
  viewer: { kind: 'public' },
  insightJob: { kind: 'object', args: 'jobId: "{insightJob}"' },
  insightJobs: { kind: 'list' },
  metrics: { kind: 'list' },
  metricSeries: { kind: 'object', args: 'query: {name: "{metric}"}' },
  insightTool: { kind: 'object', args: 'name: "svcinsight_lookup_metric", arguments: {name: "{metric}"}' },
  changeMyPassword: { kind: 'own' },
  createUser: { kind: 'object', args: 'input: {username: "planted", password: "a-long-enough-password", roles: ["admin"], tenants: ["t1"], sites: ["demo"]}' },
  updateUser: { kind: 'object', args: 'username: "{user}", input: {roles: ["admin"]}' },
  disableUser: { kind: 'object', args: 'username: "{user}"' },
  enableUser: { kind: 'object', args: 'username: "{user}"' },
  setUserPassword: { kind: 'object', args: 'username: "{user}", input: {password: "a-long-enough-password"}' },
  users: { kind: 'object' },
  user: { kind: 'object', args: 'username: "{user}"' },
  setAgentLimits: { kind: 'gateway', args: 'agentCode: "insight", input: {requestsPerMinute: 1}' },
  setKeyLimits: { kind: 'gateway', args: 'id: "{apiKey}", input: {requestsPerMinute: 1}' },
  models: { kind: 'gateway' },
  budgets: { kind: 'list' },
  apiKeys: { kind: 'list' },
  usage: { kind: 'list' },
  agent: { kind: 'list', args: 'code: "insight"' },
};

const REFUSALS = new Set(['FORBIDDEN', 'NOT_FOUND', 'UNAUTHENTICATED']);
const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_m, key: string) => value(key));
/** Nothing of t1 in an answer: none of its ids, its metric name, its prompt or its submission (beyond what the request itself named). */
const leaks = (text: string, request: string) => [t1.insightJob, t1.action, t1.crawlJob, t1.execution, t1.metric, SECRET, SECRET_WORD, T1_OPERATOR_SECRET, 't1-operator.example.invalid', 'secret-t1@example.com'].filter((m) => m && text.includes(m!) && !request.includes(m!));

async function fingerprint(): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ name: string }>(
    `select table_schema || '.' || table_name as name from information_schema.tables where table_schema in ('insight', 'crawl', 'cms') and table_type = 'BASE TABLE' and table_name not like 'mikro_orm%' order by 1`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) out[name] = (await db.query(`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as f from ${name} t`)).rows[0].f;
  return out;
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.serve('/news', { content: { html: '<ul class="n"><li class="i"><a href="/a">A</a></li></ul>' } });
  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  attacker = await platform.token({ subject: 'mallory', roles: ['analyst', 'reviewer', 'editor', 'crawler'], tenants: ['t2'], sites: ['othersite'] });
  const owner = await platform.token({ subject: 'olga', roles: ['analyst', 'reviewer', 'editor', 'crawler'], tenants: ['t1'], sites: ['demo'] });
  t1.metric = 'secret_t1_orders';
  expect((await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(owner), json: { series: [{ name: t1.metric, points: [{ timestamp: '2026-01-01T00:00:00Z', value: 1 }] }] } })).status).toBe(200);
  expect((await call(`${platform.bridge}/api/v1/insight/metrics/${t1.metric}/definition`, { method: 'PUT', headers: bearer(owner), json: { synonyms: [SECRET_WORD], description: SECRET } })).status).toBe(200);
  expect((await call(`${platform.bridge}/api/v1/insight/events`, { headers: bearer(owner), json: { at: '2026-01-02T00:00:00Z', kind: 'price_change', title: SECRET, ref: SECRET_WORD } })).status).toBe(201);
  const job = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(owner), json: { prompt: SECRET } });
  t1.insightJob = job.body.data.jobId;
  await eventually(async () => ((await call(`${platform.bridge}/api/v1/insight/jobs/${t1.insightJob}`, { headers: bearer(owner) })).body.data.status === 'COMPLETED' ? true : undefined), 60_000, 't1 job');
  t1.action = randomUUID();
  await db.query(
    `insert into insight.action (id, tenant_id, job_id, kind, title, rationale, target_type, target_id, params, params_hash, expires_at)
     values ($1, 't1', $2, 'BUDGET_CHANGE', 'x', 'x', 'Agent', 'insight', '{"monthlyBudgetUsd": 3}', $3, now() + interval '1 hour')`,
    [t1.action, t1.insightJob, paramsHash('BUDGET_CHANGE', 'insight', { monthlyBudgetUsd: 3 })],
  );
  await db.query(`insert into insight.tenant_settings (tenant_id, operator_webhook_url, operator_webhook_secret, updated_by) values ('t1', 'https://t1-operator.example.invalid/hook', $1, 'olga')`, [T1_OPERATOR_SECRET]);
  const crawl = await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(owner), json: { jobName: 'news', targetUrl: site.url('/news'), robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'ul.n > li.i', title: 'a' } } });
  t1.crawlJob = crawl.body.data.jobId;
  t1.execution = (await call(`${platform.bridge}/api/v1/crawl/jobs/${t1.crawlJob}/trigger`, { method: 'POST', headers: bearer(owner) })).body.data.executionId;
  await eventually(async () => ((await call(`${platform.bridge}/api/v1/crawl/results/${t1.execution}`, { headers: bearer(owner) })).status === 200 ? true : undefined), 30_000, 't1 crawl');
  const contents = await gql(platform.router, '{ contents(siteKey: "demo") { id slug } }', {}, bearer(owner));
  t1.content = contents.body.data!.contents.find((c: { slug: string }) => c.slug === 'welcome').id;
  const submitted = await call(`${platform.bridge}/api/v1/forms/contact/submit`, { headers: { 'x-svc-site-key': 'demo' }, json: { applicantName: 'T1', email: 'secret-t1@example.com', inquiryType: 'SALES', message: 'hi' } });
  expect(submitted.status).toBe(201);
  t1.apiKey = randomUUID();
  t1.user = 'admin';
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
  await site?.close();
});

describe('the tenant matrix', () => {
  it('classifies every REST path and every query and mutation of the supergraph', async () => {
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).filter((k) => !REST[k])).toEqual([]);
    const doc = parse(await readFile(new URL('../../../schema/supergraph.graphql', import.meta.url), 'utf8'));
    const fields = doc.definitions
      .filter((d): d is ObjectTypeDefinitionNode => d.kind === 'ObjectTypeDefinition' && (d.name.value === 'Query' || d.name.value === 'Mutation'))
      .flatMap((d) => d.fields ?? []);
    expect(fields.map((f) => f.name.value).filter((n) => !GRAPH[n])).toEqual([]);
  });

  it('refuses or shows nothing to another tenant and site on every path and field, and changes nothing', async () => {
    const before = await fingerprint();
    const failures: string[] = [];
    for (const route of ROUTES) {
      const spec = REST[`${route.method} ${route.path}`]!;
      if (spec.kind === 'own' || spec.kind === 'public') continue;
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(value(spec.params?.[name] ?? name)));
      const reply = await call(`${platform.bridge}${path}`, { method: route.method, headers: { ...bearer(attacker), accept: route.events ? 'text/event-stream' : 'application/json' }, ...(spec.body !== undefined ? { json: spec.body } : route.method === 'POST' ? { json: {} } : {}) });
      const refused = reply.status === 403 || reply.status === 404 || (spec.kind === 'gateway' && reply.status === 401);
      if (spec.kind !== 'list' && !refused) failures.push(`${route.method} ${path}: ${reply.status} ${reply.text.slice(0, 160)}`);
      const shown = leaks(reply.text, path);
      if (shown.length) failures.push(`${route.method} ${path} shows ${shown.join(', ')}`);
    }
    const doc = parse(await readFile(new URL('../../../schema/supergraph.graphql', import.meta.url), 'utf8'));
    const types = new Map(doc.definitions.filter((d): d is ObjectTypeDefinitionNode => d.kind === 'ObjectTypeDefinition').map((d) => [d.name.value, d]));
    const named = (t: TypeNode): string => (t.kind === 'NamedType' ? t.name.value : named(t.type));
    const selection = (f: FieldDefinitionNode) => (types.has(named(f.type)) ? ' { __typename }' : '');
    for (const operation of ['Query', 'Mutation'] as const) {
      for (const field of types.get(operation)!.fields ?? []) {
        const spec = GRAPH[field.name.value]!;
        if (spec.kind === 'own' || spec.kind === 'public') continue;
        const args = spec.args ? `(${fill(spec.args)})` : '';
        const text = `${operation === 'Query' ? 'query' : 'mutation'} { ${field.name.value}${args}${selection(field)} }`;
        const reply = await gql(platform.router, text, {}, bearer(attacker));
        const codes = (reply.body.errors ?? []).map((e) => String(e.extensions?.code));
        const refused = codes.length > 0 && codes.every((c) => REFUSALS.has(c));
        if ((spec.kind === 'object' || spec.kind === 'gateway') && !refused) failures.push(`${text}: ${reply.status} ${reply.text.slice(0, 200)} (${print(field.type)})`);
        const shown = leaks(reply.text, text);
        if (shown.length) failures.push(`${text} shows ${shown.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
    const after = await fingerprint();
    expect(Object.keys(after).filter((table) => after[table] !== before[table])).toEqual([]);
  });
});
