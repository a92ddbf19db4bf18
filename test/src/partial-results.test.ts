import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { TEST_JWT_SECRET } from './support/platform.js';
import { freePort } from './support/ports.js';
import { proposeAction } from './support/propose-action.js';
import { createTestDatabase, REDIS_URL, requireRedis } from './support/services.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';
import { issueToken } from '@svc/kit';
import { auditServer } from 'graphql-http';

/**
 * One missing entity must not blank a whole answer (issue #50), tried as a deployment runs: each
 * subgraph in its own `svc` process, the router and the bridge in `svc edge` (twice: with the
 * router's compiled result shaping and with the gateway's own). The demo tenant has proposals
 * whose targets are a content (cms), a crawl job (crawl) and agents (llm); each case breaks one
 * and asserts the other proposals come back whole, the broken target's error at its path with its
 * code, and (every answer of the file) never `data: null` without `errors`.
 */
const TIMEOUT_MS = 2500;
let database: { url: string; drop(): Promise<void> };
let db: pg.Client;
const services: Partial<Record<'insight' | 'llm' | 'crawl' | 'cms', ServiceProcess>> = {};
const edges: ServiceProcess[] = [];
let routerUrls: string[];
let admin: string;
let jobId: string;
const answers: { data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> }[] = [];

const headers = () => ({ authorization: `Bearer ${admin}`, 'x-svc-tenant-id': 'demo' });
const bridge = () => edges[0]!.url;

/** The proposals with their targets, as a reviewer's GraphQL client asks for them, from one router. */
const TARGETS = '{ actionProposals(first: 200) { actionId targetType target { __typename ... on Content { title } ... on CrawlJob { jobName } ... on Agent { code budget { agentCode } } } } }';
async function proposals(router: string) {
  const reply = await gql<{ actionProposals: { actionId: string; target: unknown }[] }>(router, TARGETS, {}, headers());
  expect(reply.status).toBe(200);
  answers.push(reply.body as never);
  return reply.body;
}

type Body = Awaited<ReturnType<typeof proposals>>;
const targetOf = (body: Body, actionId: string) => body.data!.actionProposals.find((p) => p.actionId === actionId)?.target;
const indexOf = (body: Body, actionId: string) => body.data!.actionProposals.findIndex((p) => p.actionId === actionId);
const errorAt = (body: Body, actionId: string) => body.errors?.filter((e) => JSON.stringify(e.path) === JSON.stringify(['actionProposals', indexOf(body, actionId), 'target']));

/** Targets that stay readable, by action id: every case asserts they come back whole. */
const whole = new Map<string, { subgraph: string; target: unknown }>();
function expectWhole(body: Body, except: readonly string[] = []) {
  for (const [actionId, { subgraph, target }] of whole) if (!except.includes(subgraph)) expect([actionId, targetOf(body, actionId)]).toEqual([actionId, target]);
}

async function startSubgraph(name: 'insight' | 'llm' | 'crawl' | 'cms', routerPort: number): Promise<ServiceProcess> {
  return startServiceProcess(name, database.url, {
    REDIS_URL,
    SVC_REDIS_PREFIX: `svctest:partial:${process.pid}:`,
    SVC_SEED_DEMO: 'true',
    SVC_ROUTER_URL: `http://127.0.0.1:${routerPort}/graphql`,
    // The proposals are written by the test: no analysis may run and supersede them.
    SVC_INSIGHT_WORKER: 'false',
    SVC_CRAWL_WORKER: 'false',
    LOG_LEVEL: 'warn',
  });
}

beforeAll(async () => {
  await requireRedis();
  database = await createTestDatabase();
  const routerPorts = [await freePort(), await freePort()];
  // One at a time: each migrates its own schema; the agenda table is shared.
  for (const name of ['insight', 'llm', 'crawl', 'cms'] as const) services[name] = await startSubgraph(name, routerPorts[0]!);
  const subgraphUrls = Object.fromEntries((['insight', 'llm', 'crawl', 'cms'] as const).map((name) => [`SVC_${name.toUpperCase()}_URL`, `${services[name]!.url}/graphql`]));
  for (const [i, shaping] of ['true', 'false'].entries()) {
    edges.push(await startServiceProcess('edge', database.url, { REDIS_URL, ...subgraphUrls, SVC_ROUTER_PORT: String(routerPorts[i]), SVC_ROUTER_COMPILED_SHAPING: shaping, SVC_ROUTER_SUBGRAPH_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'warn' }));
  }
  routerUrls = routerPorts.map((port) => `http://127.0.0.1:${port}/graphql`);
  admin = (await issueToken(TEST_JWT_SECRET, { subject: 'rev-admin', roles: ['admin'], tenants: ['demo'], sites: ['demo'] }, 900)).accessToken;
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const job = await call(`${bridge()}/api/v1/insight/jobs`, { headers: headers(), json: { prompt: 'What should we change?' } });
  expect(job.status).toBe(202);
  jobId = job.body.data.jobId;
  // Readable targets of every owner: two contents, a crawl job, the demo tenant's agent.
  const contents = await gql(routerUrls[0]!, '{ contents(siteKey: "demo") { id title } }', {}, headers());
  for (const content of contents.body.data.contents.slice(0, 2)) whole.set(await proposeAction(db, jobId, 'CONTENT_PUBLISH', 'Content', content.id, { siteKey: 'demo', version: 1 }), { subgraph: 'cms', target: { __typename: 'Content', title: content.title } });
  const crawl = await call(`${bridge()}/api/v1/crawl/jobs`, { headers: headers(), json: { jobName: 'Competitor prices', targetUrl: 'https://example.com/prices', cronExpression: '0 0 3 1 1 ?', selectors: { listRow: 'li' } } });
  expect(crawl.status).toBe(201);
  whole.set(await proposeAction(db, jobId, 'CRAWL_TRIGGER', 'CrawlJob', crawl.body.data.jobId, {}), { subgraph: 'crawl', target: { __typename: 'CrawlJob', jobName: 'Competitor prices' } });
  whole.set(await proposeAction(db, jobId, 'BUDGET_CHANGE', 'Agent', 'shop-assistant', { monthlyBudgetUsd: 50 }), { subgraph: 'llm', target: { __typename: 'Agent', code: 'shop-assistant', budget: { agentCode: 'shop-assistant' } } });
}, 240_000);

afterAll(async () => {
  for (const process of [...edges, ...Object.values(services)]) await process?.stop();
  await db?.end();
  await database?.drop();
}, 60_000);

describe('a proposal whose target is gone or unreadable', () => {
  it('is target: null with ENTITY_NOT_FOUND when its crawl job was deleted (DELETE /api/v1/crawl/jobs/{id}), the rest whole', async () => {
    const crawl = await call(`${bridge()}/api/v1/crawl/jobs`, { headers: headers(), json: { jobName: 'Old prices', targetUrl: 'https://example.com/old', cronExpression: '0 0 3 1 1 ?', selectors: { listRow: 'li' } } });
    const id = await proposeAction(db, jobId, 'CRAWL_TRIGGER', 'CrawlJob', crawl.body.data.jobId, {});
    expect((await call(`${bridge()}/api/v1/crawl/jobs/${crawl.body.data.jobId}`, { method: 'DELETE', headers: headers() })).status).toBe(200);
    for (const router of routerUrls) {
      const body = await proposals(router);
      expect(targetOf(body, id)).toBeNull();
      expect(errorAt(body, id)).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'ENTITY_NOT_FOUND', serviceName: 'crawl' }) })]);
      expectWhole(body);
    }
  });

  it('is target: null with ENTITY_NOT_FOUND when its content was removed, the rest whole', async () => {
    const created = await gql(routerUrls[0]!, 'mutation($input: CreateContentInput!) { createContent(input: $input) { id } }', { input: { siteKey: 'demo', slug: `gone-${randomUUID().slice(0, 8)}`, title: 'Spring sale' } }, headers());
    const contentId = created.body.data.createContent.id as string;
    const id = await proposeAction(db, jobId, 'CONTENT_PUBLISH', 'Content', contentId, { siteKey: 'demo', version: 1 });
    // The content service has no delete; an operator removing the row (or a restore without it) is what leaves a proposal's content gone.
    await db.query('delete from cms.content where id = $1', [contentId]);
    for (const router of routerUrls) {
      const body = await proposals(router);
      expect(targetOf(body, id)).toBeNull();
      expect(errorAt(body, id)).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'ENTITY_NOT_FOUND', serviceName: 'cms' }) })]);
      expectWhole(body);
    }
  });

  it('is target: null with FORBIDDEN when its agent belongs to another owner, the rest whole', async () => {
    const other = (await issueToken(TEST_JWT_SECRET, { subject: 'ada-other', roles: ['admin'], tenants: ['other'], sites: [] }, 300)).accessToken;
    const made = await gql(routerUrls[0]!, 'mutation { setBudget(input: {agentCode: "other-bot", monthlyBudgetUsd: 10}) { agentCode } }', {}, { authorization: `Bearer ${other}` });
    expect(made.body.errors).toBeUndefined();
    const id = await proposeAction(db, jobId, 'BUDGET_CHANGE', 'Agent', 'other-bot', { monthlyBudgetUsd: 20 });
    for (const router of routerUrls) {
      const body = await proposals(router);
      expect(targetOf(body, id)).toBeNull();
      expect(errorAt(body, id)).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN', serviceName: 'llm' }) })]);
      expectWhole(body);
    }
  });
});

describe('a proposal whose target is gone, in REST and on approval', () => {
  const action = (id: string) => call(`${bridge()}/api/v1/insight/actions/${id}`, { headers: headers() });
  const approve = (id: string) => call(`${bridge()}/api/v1/insight/actions/${id}/approve`, { headers: headers(), json: { comment: 'go' } });
  async function goneCrawlJob(name: string): Promise<string> {
    const crawl = await call(`${bridge()}/api/v1/crawl/jobs`, { headers: headers(), json: { jobName: name, targetUrl: 'https://example.com/x', cronExpression: '0 0 3 1 1 ?', selectors: { listRow: 'li' } } });
    const id = await proposeAction(db, jobId, 'CRAWL_TRIGGER', 'CrawlJob', crawl.body.data.jobId, {});
    await db.query('update insight.action set target_name = $2 where id = $1', [id, `crawl job "${name}"`]);
    expect((await call(`${bridge()}/api/v1/crawl/jobs/${crawl.body.data.jobId}`, { method: 'DELETE', headers: headers() })).status).toBe(200);
    return id;
  }

  it('reads as EXPIRED in its REST record, with its last known name and when it was found gone, and approving it is 409 naming why', async () => {
    const id = await goneCrawlJob('Old stock');
    // Reading it asks crawl (target-check.ts): the record says what it found.
    const record = await eventually(async () => {
      const reply = await action(id);
      expect(reply.status).toBe(200);
      return reply.body.data.targetGoneAt ? reply.body.data : undefined;
    }, 15_000, 'the record to say its target is gone');
    expect(record).toMatchObject({ status: 'EXPIRED', targetName: 'crawl job "Old stock"', targetGoneAt: expect.stringMatching(/Z$/), outcome: { reason: 'Its target no longer exists: the proposal expired and cannot be approved' } });
    const refused = await approve(id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Action ${id} cannot be approved: it is EXPIRED: its target, crawl job "Old stock" (CrawlJob ${record.targetId}), no longer exists`);
    expect((await action(id)).body.data.decision).toBeNull();
  });

  it('is refused on approval (409, the proposal expired) when its target went since it was last read', async () => {
    const id = await goneCrawlJob('Gone before the click');
    const refused = await approve(id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(new RegExp(`^Action ${id} cannot be approved: its target, crawl job "Gone before the click" \\(CrawlJob [0-9a-f-]{36}\\), no longer exists; the proposal expired$`));
    const record = (await action(id)).body.data;
    expect(record).toMatchObject({ status: 'EXPIRED', decision: null, targetGoneAt: expect.any(String) });
  });
});

describe('a subgraph that does not answer', () => {
  const unavailable = (body: Body, subgraph: string) => [...whole].filter(([, t]) => t.subgraph === subgraph).map(([actionId]) => [targetOf(body, actionId), errorAt(body, actionId)?.map((e) => [e.extensions?.code, e.extensions?.serviceName])]);

  it('answers the others\' data within its timeout while cms is frozen (SIGSTOP), says so in /ready, and slows nothing else', async () => {
    const cms = services.cms!;
    cms.child.kill('SIGSTOP');
    try {
      for (const router of routerUrls) {
        const started = Date.now();
        const body = await proposals(router);
        const tookMs = Date.now() - started;
        expect(unavailable(body, 'cms')).toEqual([[null, [['SUBGRAPH_UNAVAILABLE', 'cms']]], [null, [['SUBGRAPH_UNAVAILABLE', 'cms']]]]);
        expect(body.errors!.find((e) => e.extensions?.code === 'SUBGRAPH_UNAVAILABLE')!.message).toBe(`The cms subgraph did not answer within ${TIMEOUT_MS / 1000} s; its part of the answer is missing`);
        expectWhole(body, ['cms']);
        // The answer came at the timeout, not at cms's leisure (it never answers while stopped).
        expect(tookMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
        expect(tookMs).toBeLessThan(TIMEOUT_MS + 5000);
      }
      // What does not touch cms is answered as usual meanwhile, well before cms's timeout.
      const otherStarted = Date.now();
      const budgets = await gql(routerUrls[0]!, '{ budgets { agentCode } crawlJobs { jobId } }', {}, headers());
      expect(Date.now() - otherStarted).toBeLessThan(TIMEOUT_MS);
      answers.push(budgets.body as never);
      expect(budgets.body.errors).toBeUndefined();
      const rest = await call(`${bridge()}/api/v1/crawl/jobs`, { headers: headers() });
      expect(rest.status).toBe(200);
      const ready = await eventually(async () => {
        const reply = await call(routerUrls[0]!.replace('/graphql', '/ready'));
        return reply.body.status === 'degraded' ? reply : undefined;
      }, 15_000, 'the router to say it is degraded');
      expect(ready.status).toBe(200);
      expect(ready.body.dependencies).toEqual({ cms: 'down (degraded)', crawl: 'up', insight: 'up', llm: 'up' });
      // The REST route of a frozen subgraph is 503 with Retry-After, in its service's shape, within the timeout.
      const delivery = await call(`${bridge()}/api/v1/contents/welcome`, { headers: { 'x-svc-site-key': 'demo' } });
      expect([delivery.status, delivery.headers.get('retry-after'), delivery.body.type]).toEqual([503, '5', expect.stringMatching(/\/errors\/subgraph-unavailable$/)]);
    } finally {
      cms.child.kill('SIGCONT');
    }
    // Back: whole again, and ready.
    await eventually(async () => {
      const body = await proposals(routerUrls[0]!);
      return [...whole].every(([actionId, { target }]) => JSON.stringify(targetOf(body, actionId)) === JSON.stringify(target)) ? true : undefined;
    }, 20_000, 'cms to answer again');
    await eventually(async () => ((await call(routerUrls[0]!.replace('/graphql', '/ready'))).body.status === 'ready' ? true : undefined), 15_000, 'the router to be ready again');
  });

  it('answers the others\' data with SUBGRAPH_UNAVAILABLE naming crawl when crawl is stopped', async () => {
    await services.crawl!.stop();
    for (const router of routerUrls) {
      const body = await proposals(router);
      expect(unavailable(body, 'crawl')).toEqual([[null, [['SUBGRAPH_UNAVAILABLE', 'crawl']]]]);
      expect(body.errors!.find((e) => e.extensions?.serviceName === 'crawl')!.message).toBe('The crawl subgraph is unreachable; its part of the answer is missing');
      expectWhole(body, ['crawl']);
    }
    // A root field of the stopped subgraph: data null, with its reason.
    const jobs = await gql(routerUrls[0]!, '{ crawlJobs { jobId } }', {}, headers());
    answers.push(jobs.body as never);
    expect(jobs.body.data).toBeNull();
    expect(jobs.body.errors?.map((e) => [e.path, e.extensions?.code, e.extensions?.serviceName])).toEqual([[['crawlJobs'], 'SUBGRAPH_UNAVAILABLE', 'crawl']]);
    // The router asks again once its last answer (kept a second) is older.
    const ready = await eventually(async () => {
      const reply = await call(routerUrls[0]!.replace('/graphql', '/ready'));
      return reply.body.dependencies?.crawl === 'up' ? undefined : reply;
    }, 15_000, 'the router to see crawl is down');
    expect([ready.status, ready.body]).toEqual([200, { status: 'degraded', service: 'router', dependencies: { cms: 'up', crawl: 'down (degraded)', insight: 'up', llm: 'up' } }]);
  });
});

describe('the GraphQL over HTTP audit (graphql-http auditServer)', () => {
  it('passes every MUST against the router: 3 SHOULDs warned (400, not 200, for a refused document with application/json), 3 MAYs noticed (GET without a preflight header)', async () => {
    const results = await auditServer({ url: routerUrls[0]! });
    const notOk = results.filter((r) => r.status !== 'ok').map((r) => `${r.status} ${r.id} ${r.name}`).sort();
    // Apollo Server answers 400 for a document that does not parse or validate and for variables that do not coerce (the REST bridge relies on it).
    expect(notOk).toEqual([
      // GET with URL-encoded parameters is refused without a preflight header (Apollo Server's CSRF prevention), below.
      'notice 5A70 MAY accept application/x-www-form-urlencoded formatted GET requests',
      'notice 6A70 MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/json',
      'notice D6D5 MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/graphql-response+json',
      'warn 572B SHOULD use 200 status code on document parsing failure when accepting application/json',
      'warn 7B9B SHOULD use a status code of 200 on variable coercion failure when accepting application/json',
      'warn FDE2 SHOULD use 200 status code on document validation failure when accepting application/json',
    ]);
    // graphql-http 1.23's audits (README: the audit's result).
    expect(results.length).toBe(61);
    const get = await call(`${routerUrls[0]}?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    expect([get.status, get.text]).toEqual([400, expect.stringContaining('Cross-Site Request Forgery')]);
    expect((await call(`${routerUrls[0]}?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } })).body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('every answer above', () => {
  it('had errors whenever data was null, and no errors kept in extensions', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const body of answers) {
      expect(body.extensions?.valueCompletion).toBeUndefined();
      if (body.data === null || body.data === undefined) expect(body.errors?.length).toBeGreaterThan(0);
    }
  });
});
