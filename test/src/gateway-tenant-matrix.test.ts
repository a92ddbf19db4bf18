import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { parse, type ObjectTypeDefinitionNode } from 'graphql';
import pg from 'pg';
import { ROUTES } from '@svc/rest-bridge';
import { eventually } from './support/eventually.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql, type Reply } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * The model gateway's administration belongs to tenants (domain/agent-owner.ts), tested as the
 * analysis service's tenancy is: every gateway path of the bridge's route table and every query
 * and mutation of the llm subgraph is called by another tenant's admin, analyst and agent key
 * against tenant t1's agent, key and share of the analysis agent. Each answer is a refusal or
 * shows nothing of t1, and no agent, key or budget row of anyone but the caller changes. A new
 * path or field fails this test until it is classified below. Positive controls show the same
 * calls working for their owner, a platform admin and the master key.
 */

let platform: TestPlatform;
let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let db: pg.Client;
const tokens: Record<'t1Admin' | 't1Analyst' | 't1Reviewer' | 't2Admin' | 't2Analyst' | 'platformAdmin', string> = {} as never;
let t1Key: string;
let t1KeyId: string;
let t2Key: string;
let serviceKey: string;
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
const master = bearer(TEST_MASTER_KEY);

/** What each gateway route is sent against t1: `object` must be refused, `list` may answer without t1, `use` calls models with the caller's own key. */
const REST: Record<string, { kind: 'object' | 'list' | 'use'; params?: Record<string, string>; body?: unknown }> = {
  'POST /v1/chat/completions': { kind: 'use', body: { model: 'metered', messages: [{ role: 'user', content: 'hi' }] } },
  'POST /v1/embeddings': { kind: 'use', body: { model: 'svc-local-embedding', input: 'hi' } },
  'GET /v1/models': { kind: 'use' },
  'GET /v1/models/{model}': { kind: 'use', params: { model: 'metered' } },
  'GET /admin/v1/budgets': { kind: 'list' },
  'POST /admin/v1/budgets': { kind: 'object', body: { agentCode: 't1-bot', monthlyBudgetUsd: 999 } },
  'POST /admin/v1/keys': { kind: 'object', body: { agentCode: 't1-bot' } },
  'GET /admin/v1/keys': { kind: 'list' },
  'DELETE /admin/v1/keys/{id}': { kind: 'object', params: { id: 't1KeyId' } },
  'GET /admin/v1/usage': { kind: 'list' },
  'POST /admin/v1/agents/{agentCode}/limits': { kind: 'object', params: { agentCode: 't1-bot' }, body: { requestsPerMinute: 1 } },
  'POST /admin/v1/keys/{id}/limits': { kind: 'object', params: { id: 't1KeyId' }, body: { requestsPerMinute: 1 } },
};

/** The llm subgraph's queries and mutations, likewise (`{t1KeyId}` is t1's key). */
const GRAPH: Record<string, { kind: 'object' | 'list' | 'use'; call: string }> = {
  chatCompletion: { kind: 'use', call: 'mutation { chatCompletion(request: {model: "metered", messages: [{role: "user", content: "hi"}]}) { model } }' },
  createEmbeddings: { kind: 'use', call: 'mutation { createEmbeddings(request: {model: "svc-local-embedding", input: "hi"}) }' },
  models: { kind: 'use', call: '{ models }' },
  budgets: { kind: 'list', call: '{ budgets { agentCode tenantId } }' },
  usage: { kind: 'list', call: '{ usage(agentCode: "t1-bot") { agentCode } }' },
  apiKeys: { kind: 'list', call: '{ apiKeys { id agentCode } }' },
  agent: { kind: 'list', call: '{ agent(code: "t1-bot") { code } share: agent(code: "insight:t1") { code } }' },
  setBudget: { kind: 'object', call: 'mutation { setBudget(input: {agentCode: "t1-bot", monthlyBudgetUsd: 999}) { agentCode } }' },
  createApiKey: { kind: 'object', call: 'mutation { createApiKey(agentCode: "t1-bot") { key } }' },
  revokeApiKey: { kind: 'object', call: 'mutation { revokeApiKey(id: "{t1KeyId}") { id } }' },
  setAgentLimits: { kind: 'object', call: 'mutation { setAgentLimits(agentCode: "t1-bot", input: {requestsPerMinute: 1}) { requestsPerMinute } }' },
  setKeyLimits: { kind: 'object', call: 'mutation { setKeyLimits(id: "{t1KeyId}", input: {requestsPerMinute: 1}) { requestsPerMinute } }' },
};

/** Nothing of t1 in an answer beyond what the request itself named. */
const leaks = (text: string, request: string) => ['t1-bot', 'insight:t1', t1KeyId].filter((m) => text.includes(m) && !request.includes(m));

/** Every agent, key and budget row but the attacker's own spending (its agent's period and its key's last use). */
async function fingerprint(): Promise<string> {
  const { rows } = await db.query<{ f: string }>(
    `select md5(
       (select string_agg(concat_ws(',', code, tenant_id, tenant_managed, monthly_budget_usd, hard_limit_enabled, rpm_limit, tpm_limit, concurrency_limit), '|' order by code) from llm.agent) ||
       (select string_agg(concat_ws(',', id, agent_code, name, revoked_at, rpm_limit, tpm_limit, concurrency_limit), '|' order by id) from llm.api_key) ||
       coalesce((select string_agg(concat_ws(',', agent_code, period, spent_usd), '|' order by agent_code) from llm.budget_period where agent_code not like 't2%'), '')) as f`,
  );
  return rows[0]!.f;
}

const chat = (credential: string, tenant?: string) =>
  call(`${platform.bridge}/v1/chat/completions`, { headers: { ...bearer(credential), ...(tenant ? { 'x-svc-tenant-id': tenant } : {}) }, json: { model: 'metered', messages: [{ role: 'user', content: `Summarise the week ${Math.random()}` }] } }); // unique: a cached answer charges nothing

async function budgetsAs(headers: Record<string, string>): Promise<{ agentCode: string; tenantId: string | null; managedBy: string }[]> {
  const reply = await gql(platform.router, '{ budgets { agentCode tenantId managedBy } }', {}, headers);
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.budgets;
}

beforeAll(async () => {
  // A priced upstream (the offline model costs nothing, so no budget would ever be reached).
  fake = await startFakeOpenAi({ usage: { prompt_tokens: 10, completion_tokens: 10 } });
  const config = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'metered', provider: 'fake', inputPerMTok: 1000, outputPerMTok: 1000, maxOutputTokens: 64 }],
    aliases: { 'fast-track': ['metered'], 'deep-reasoning': ['metered'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  tokens.t1Admin = await platform.token({ subject: 'ada-t1', roles: ['admin'], tenants: ['t1'], sites: [] });
  tokens.t1Analyst = await platform.token({ subject: 'ana-t1', roles: ['analyst'], tenants: ['t1'], sites: [] });
  tokens.t1Reviewer = await platform.token({ subject: 'rev-t1', roles: ['reviewer'], tenants: ['t1'], sites: [] });
  tokens.t2Admin = await platform.token({ subject: 'mallory-t2', roles: ['admin'], tenants: ['t2'], sites: ['othersite'] });
  tokens.t2Analyst = await platform.token({ subject: 'eve-t2', roles: ['analyst', 'reviewer', 'editor', 'crawler'], tenants: ['t2'], sites: ['othersite'] });
  tokens.platformAdmin = await platform.token({ subject: 'root', roles: ['admin'], tenants: '*', sites: '*' });
  // t1's own agent and key, made by t1's admin; t2's likewise.
  expect((await gql(platform.router, 'mutation { setBudget(input: {agentCode: "t1-bot", monthlyBudgetUsd: 10, hardLimitEnabled: true}) { agentCode } }', {}, bearer(tokens.t1Admin))).body.errors).toBeUndefined();
  const created = await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(tokens.t1Admin), json: { agentCode: 't1-bot', name: 'shop' } });
  expect(created.status).toBe(201);
  ({ key: t1Key, id: t1KeyId } = created.body);
  t2Key = (await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(tokens.t2Admin), json: { agentCode: 't2-bot' } })).body.key;
  // The platform's analysis agent thinks once for t1: that opens t1's share, insight:t1.
  serviceKey = (await call(`${platform.bridge}/admin/v1/keys`, { headers: master, json: { agentCode: 'insight', name: 'matrix' } })).body.key;
  expect((await chat(serviceKey, 't1')).status).toBe(200);
  expect((await chat(t1Key)).status).toBe(200);
  // Settled (in batches, after the answers) before anything compares the budget rows.
  await eventually(async () => {
    const { rows } = await db.query("select count(*) as n from llm.usage_ledger where agent_code in ('t1-bot', 'insight:t1') and outcome = 'ok'");
    return Number(rows[0].n) === 2 ? true : undefined;
  }, 15_000, "t1's first ledger lines");
});

afterAll(async () => {
  await db?.end();
  await platform?.close();
  await fake?.close();
});

describe("the gateway's tenant matrix", () => {
  it('classifies every gateway path of the route table and every llm query and mutation', async () => {
    const gatewayRoutes = ROUTES.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/'));
    expect(gatewayRoutes.map((r) => `${r.method} ${r.path}`).filter((k) => !REST[k])).toEqual([]);
    const doc = parse(await readFile(new URL('../../../schema/llm.graphql', import.meta.url), 'utf8'));
    const fields = doc.definitions
      .filter((d): d is ObjectTypeDefinitionNode => (d.kind === 'ObjectTypeDefinition' || d.kind === 'ObjectTypeExtension') && (d.name.value === 'Query' || d.name.value === 'Mutation'))
      .flatMap((d) => d.fields ?? []);
    expect(fields.length).toBeGreaterThan(8);
    expect(fields.map((f) => f.name.value).filter((n) => !GRAPH[n] && !n.startsWith('_'))).toEqual([]); // _entities and _service: see the reference resolver test below
  });

  it("refuses or shows nothing of t1 to t2's admin, analyst and key on every path and field, and changes nothing", async () => {
    const before = await fingerprint();
    const failures: string[] = [];
    const attackers = { 't2 admin': tokens.t2Admin, 't2 analyst': tokens.t2Analyst, 't2 key': t2Key };
    for (const [who, credential] of Object.entries(attackers)) {
      for (const route of ROUTES.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/'))) {
        const spec = REST[`${route.method} ${route.path}`]!;
        const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const given = spec.params?.[name] ?? name;
          return encodeURIComponent(given === 't1KeyId' ? t1KeyId : given);
        });
        // Each call also names t1 as its tenant: a header must not widen what a credential reaches.
        const reply: Reply = await call(`${platform.bridge}${path}`, { method: route.method, headers: { ...bearer(credential), 'x-svc-tenant-id': 't1' }, ...(spec.body !== undefined ? { json: spec.body } : {}) });
        const refused = [401, 403, 404].includes(reply.status);
        if (spec.kind === 'object' && !refused) failures.push(`${who}: ${route.method} ${path}: ${reply.status} ${reply.text.slice(0, 160)}`);
        const shown = leaks(reply.text, path);
        if (shown.length) failures.push(`${who}: ${route.method} ${path} shows ${shown.join(', ')}`);
      }
      for (const [name, spec] of Object.entries(GRAPH)) {
        const text = spec.call.replace('{t1KeyId}', t1KeyId);
        const reply = await gql(platform.router, text, {}, { ...bearer(credential), 'x-svc-tenant-id': 't1' });
        const codes = (reply.body.errors ?? []).map((e) => String(e.extensions?.code));
        const refused = codes.length > 0 && codes.every((c) => ['FORBIDDEN', 'NOT_FOUND', 'UNAUTHENTICATED'].includes(c));
        if (spec.kind === 'object' && !refused) failures.push(`${who}: ${name}: ${reply.status} ${reply.text.slice(0, 200)}`);
        const shown = leaks(reply.text, text);
        if (shown.length) failures.push(`${who}: ${name} shows ${shown.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await fingerprint()).toBe(before);
  });

  it("resolves another tenant's agent as an entity to null with FORBIDDEN, and a tenant's own to the agent", async () => {
    const entities = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Agent { code } } }`;
    const representations = [{ __typename: 'Agent', code: 't1-bot' }, { __typename: 'Agent', code: 'insight:t1' }];
    for (const credential of [tokens.t2Admin, tokens.t2Analyst, t2Key]) {
      const reply = await gql(platform.urls.llm!, entities, { r: representations }, bearer(credential));
      expect(reply.body.data?._entities).toEqual([null, null]);
      expect(reply.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['_entities', 0], 'FORBIDDEN'], [['_entities', 1], 'FORBIDDEN']]);
    }
    const own = await gql(platform.urls.llm!, entities, { r: representations }, bearer(tokens.t1Analyst));
    expect(own.body.data?._entities).toEqual([{ code: 't1-bot' }, { code: 'insight:t1' }]);
  });

  it("lets t1's admin manage t1's agents only: never the platform's agents nor its own share of them", async () => {
    expect((await budgetsAs(bearer(tokens.t1Admin))).map((b) => `${b.agentCode} ${b.tenantId} ${b.managedBy}`).sort()).toEqual(['insight:t1 t1 PLATFORM', 't1-bot t1 TENANT']);
    const listed = await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(tokens.t1Admin) });
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([t1KeyId]);
    expect((await call(`${platform.bridge}/admin/v1/keys/${t1KeyId}/limits`, { headers: bearer(tokens.t1Admin), json: { requestsPerMinute: 100 } })).status).toBe(200);
    expect((await call(`${platform.bridge}/admin/v1/agents/t1-bot/limits`, { headers: bearer(tokens.t1Admin), json: { requestsPerMinute: 200 } })).status).toBe(200);
    const fresh = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(tokens.t1Admin), json: { agentCode: 't1-campaigns', monthlyBudgetUsd: 5 } });
    expect(fresh.status).toBe(200);
    expect(await db.query('select tenant_id, tenant_managed from llm.agent where code = $1', ['t1-campaigns']).then((r) => r.rows)).toEqual([{ tenant_id: 't1', tenant_managed: true }]);

    const before = await fingerprint();
    // The probe's case: a tenant's admin creating a key for the platform's analysis agent.
    const forInsight = await gql(platform.router, 'mutation { createApiKey(agentCode: "insight") { key } }', {}, bearer(tokens.t1Admin));
    expect(forInsight.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    for (const agentCode of ['insight', 'insight:t1', 'insight:t2', 'shop-assistant']) {
      const raised = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(tokens.t1Admin), json: { agentCode, monthlyBudgetUsd: 1000 } });
      expect([agentCode, raised.status]).toEqual([agentCode, 403]);
    }
    expect(await fingerprint()).toBe(before);
  });

  it("lets t1's analysts read t1's budgets, usage and agents, and change nothing", async () => {
    expect((await budgetsAs(bearer(tokens.t1Analyst))).map((b) => b.agentCode).sort()).toEqual(['insight:t1', 't1-bot', 't1-campaigns']);
    // Ledger lines are written in batches after the answer.
    const usage = await eventually(async () => {
      const reply = await call(`${platform.bridge}/admin/v1/usage`, { headers: bearer(tokens.t1Analyst) });
      return reply.body.usage.length >= 2 ? reply : undefined;
    }, 15_000, "t1's usage");
    expect(new Set(usage.body.usage.map((u: { agentCode: string }) => u.agentCode))).toEqual(new Set(['insight:t1', 't1-bot']));
    const agents = await gql(platform.router, '{ mine: agent(code: "t1-bot") { code } share: agent(code: "insight:t1") { code } other: agent(code: "t2-bot") { code } platform: agent(code: "insight") { code } }', {}, bearer(tokens.t1Analyst));
    expect(agents.body.data).toEqual({ mine: { code: 't1-bot' }, share: { code: 'insight:t1' }, other: null, platform: null });
    const set = await gql(platform.router, 'mutation { setBudget(input: {agentCode: "t1-bot", monthlyBudgetUsd: 1}) { agentCode } }', {}, bearer(tokens.t1Analyst));
    expect(set.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it("lets t1's analysts and reviewers read t1's keys (never a secret) and budget records with their owner, over REST as over GraphQL", async () => {
    const before = await fingerprint();
    for (const credential of [tokens.t1Analyst, tokens.t1Reviewer]) {
      const keys = await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(credential) });
      expect([keys.status, keys.body.keys?.map((k: { id: string; agentCode: string }) => `${k.id} ${k.agentCode}`)]).toEqual([200, [`${t1KeyId} t1-bot`]]);
      expect(Object.keys(keys.body.keys[0]).sort()).toEqual(['agentCode', 'createdAt', 'id', 'keyPrefix', 'lastUsedAt', 'limits', 'name', 'revokedAt']);
      expect(keys.text).not.toContain(t1Key);
      const graphKeys = await gql(platform.router, '{ apiKeys { id agentCode } }', {}, bearer(credential));
      expect(graphKeys.body).toEqual({ data: { apiKeys: [{ id: t1KeyId, agentCode: 't1-bot' }] } });
      const budgets = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(credential) });
      expect(budgets.status).toBe(200);
      expect(budgets.body.budgets.map((b: { agentCode: string; tenantId: string | null; managedBy: string }) => `${b.agentCode} ${b.tenantId} ${b.managedBy}`).sort())
        .toEqual(['insight:t1 t1 PLATFORM', 't1-bot t1 TENANT', 't1-campaigns t1 TENANT']);
      // Reading is all: a key is neither made nor revoked by a reader.
      expect((await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(credential), json: { agentCode: 't1-bot' } })).status).toBe(403);
      expect((await call(`${platform.bridge}/admin/v1/keys/${t1KeyId}`, { method: 'DELETE', headers: bearer(credential) })).status).toBe(403);
    }
    // The platform's records over REST carry their owner too.
    const all = await call(`${platform.bridge}/admin/v1/budgets`, { headers: master });
    expect(all.body.budgets.find((b: { agentCode: string }) => b.agentCode === 'insight')).toMatchObject({ tenantId: null, managedBy: 'PLATFORM' });
    expect(await fingerprint()).toBe(before);
  });

  it('gives the master key and a platform admin every agent, and a read that names a tenant only that tenant', async () => {
    for (const headers of [master, bearer(tokens.platformAdmin)]) {
      const all = (await budgetsAs(headers)).map((b) => b.agentCode);
      expect(all).toEqual(expect.arrayContaining(['insight', 'insight:t1', 't1-bot', 't2-bot', 'shop-assistant']));
      expect((await budgetsAs({ ...headers, 'x-svc-tenant-id': 't2' })).map((b) => b.agentCode)).toEqual(['t2-bot']);
    }
    const share = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(tokens.platformAdmin), json: { agentCode: 'insight:t1', monthlyBudgetUsd: 30, hardLimitEnabled: true } });
    expect(share.status).toBe(200);
    expect(share.body.budget).toMatchObject({ agentCode: 'insight:t1', allocatedUsd: 30 });
    expect((await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(tokens.platformAdmin), json: { agentCode: 'insight', name: 'by-platform-admin' } })).status).toBe(201);
  });

  it("charges the platform's agent per tenant: one tenant's hard limit stops its own analyses, not another's", async () => {
    const spent = async (code: string) => Number((await db.query('select coalesce(sum(cost_usd), 0) as c from llm.usage_ledger where agent_code = $1', [code])).rows[0].c);
    const parentBefore = await spent('insight');
    expect((await chat(serviceKey, 't2')).status).toBe(200);
    const shares = await db.query<{ code: string; monthly_budget_usd: string; hard_limit_enabled: boolean; tenant_id: string; tenant_managed: boolean }>(
      "select code, monthly_budget_usd, hard_limit_enabled, tenant_id, tenant_managed from llm.agent where code = 'insight:t2'",
    );
    // A new share starts with SVCLLM_TENANT_SHARE_BUDGET_USD (default 25), hard limit on, the platform's to change.
    expect(shares.rows).toEqual([{ code: 'insight:t2', monthly_budget_usd: '25.000000', hard_limit_enabled: true, tenant_id: 't2', tenant_managed: false }]);
    const cut = await call(`${platform.bridge}/admin/v1/budgets`, { headers: master, json: { agentCode: 'insight:t1', monthlyBudgetUsd: 0.0000001, hardLimitEnabled: true } });
    expect([cut.status, cut.text]).toEqual([200, expect.stringContaining('insight:t1')]);
    const stopped = await chat(serviceKey, 't1');
    expect(stopped.status).toBe(429);
    expect(stopped.body.error.code).toBe('insufficient_quota');
    expect(stopped.body.error.message).toContain('insight:t1');
    expect((await chat(serviceKey, 't2')).status).toBe(200);
    const lines = async (code: string) => Number((await db.query("select count(*) as n from llm.usage_ledger where agent_code = $1 and outcome = 'ok'", [code])).rows[0].n);
    await eventually(async () => ((await lines('insight:t2')) === 2 ? true : undefined), 15_000, "insight:t2's two ledger lines");
    expect(await spent('insight:t2')).toBeGreaterThan(0);
    expect(await spent('insight')).toBe(parentBefore);
    // A tenant's own key cannot charge a share by naming a tenant: it pays for its own agent.
    const t1Before = await eventually(async () => ((await spent('t1-bot')) > 0 ? spent('t1-bot') : undefined), 15_000, "t1-bot's ledger");
    const t2ShareBefore = await spent('insight:t2');
    expect((await chat(t1Key, 't2')).status).toBe(200);
    await eventually(async () => ((await spent('t1-bot')) > t1Before ? true : undefined), 15_000, "t1-bot's second line");
    expect(await spent('insight:t2')).toBe(t2ShareBefore);
  });
});
