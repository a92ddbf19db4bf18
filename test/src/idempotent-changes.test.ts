/**
 * Idempotency keys on the mutations an approved action runs (through the router): a repeated
 * key changes nothing, ten concurrent calls with one key make one change, a used key for another
 * change is a 409, a malformed key a 422. Changes are counted in the database.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

const V1_SELECTORS = {
  listRow: 'ul.news-list > li.news-item',
  title: ':scope > h3.title > a',
  link: ':scope > h3.title > a::attr(href)',
  publishedAt: ':scope > h3.title + span.date',
};
const NEW_SELECTORS = { listRow: 'li.news-item', title: 'h3 > a', link: 'h3 > a::attr(href)' };

let platform: TestPlatform;
let site: FixtureSite;
let db: pg.Pool;
let editor: string;
let acme: string;
let globex: string;

beforeAll(async () => {
  site = await startFixtureSite();
  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_CRAWL_TRIGGER_WAIT_MS: '5000', SVC_CRAWL_LOCK_LIFETIME_MS: '5000' });
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });
  db.on('error', () => undefined);
  editor = await platform.token({ roles: ['editor'], sites: ['demo'] });
  acme = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
  globex = await platform.token({ roles: ['crawler'], tenants: ['globex'] });
}, 60_000);

afterAll(async () => {
  await db?.end();
  await platform?.close();
  await site?.close();
});

const key = () => `action-${randomUUID()}`;
const count = async (sql: string, params: unknown[]) => Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
const ten = <T>(fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: 10 }, (_, i) => fn(i)));

/** One GraphQL call through the router; returns `data` or throws with the errors. */
async function op(token: string, query: string, variables: Record<string, unknown>): Promise<any> {
  const reply = await gql(platform.router, query, variables, { authorization: `Bearer ${token}` });
  if (reply.body.errors) throw Object.assign(new Error(reply.body.errors[0]!.message), { extensions: reply.body.errors[0]!.extensions });
  return reply.body.data;
}

/** The error extensions of a call that must fail. */
async function failure(token: string, query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await gql(platform.router, query, variables, { authorization: `Bearer ${token}` });
  expect(reply.body.errors).toBeDefined();
  return { message: reply.body.errors![0]!.message, ...reply.body.errors![0]!.extensions };
}

const BAD_KEYS = ['', 'has space', 'x'.repeat(201), 'ünïcode'];

describe('llm setBudget(input, idempotencyKey)', () => {
  const SET = `mutation($input: SetBudgetInput!, $key: String) { setBudget(input: $input, idempotencyKey: $key) { agentCode allocatedUsd hardLimitEnabled } }`;
  const set = (input: Record<string, unknown>, k?: string) => op(TEST_MASTER_KEY, SET, { input, key: k });
  const updatedAt = async (code: string) => (await db.query('select updated_at from llm.agent where code = $1', [code])).rows[0]!.updated_at as Date;

  it('a repeated key changes nothing and answers the budget as it is', async () => {
    const agentCode = `idem-${randomUUID().slice(0, 8)}`;
    const k = key();
    expect((await set({ agentCode, monthlyBudgetUsd: 10 }, k)).setBudget).toMatchObject({ agentCode, allocatedUsd: 10 });
    const first = await updatedAt(agentCode);
    expect((await set({ agentCode, monthlyBudgetUsd: 20, hardLimitEnabled: true }, k)).setBudget).toMatchObject({ allocatedUsd: 10, hardLimitEnabled: false });
    expect(await updatedAt(agentCode)).toEqual(first);
    expect(await count('select count(*) n from llm.idempotent_change where key = $1 and operation = $2 and entity_id = $3', [k, 'setBudget', agentCode])).toBe(1);
    // Without a key, as before: every call changes the budget.
    expect((await set({ agentCode, monthlyBudgetUsd: 30 })).setBudget.allocatedUsd).toBe(30);
    expect((await set({ agentCode, monthlyBudgetUsd: 40 })).setBudget.allocatedUsd).toBe(40);
  });

  it('ten concurrent calls with one key make exactly one change', async () => {
    const agentCode = `idem-${randomUUID().slice(0, 8)}`;
    await set({ agentCode, monthlyBudgetUsd: 1 });
    const k = key();
    const replies = await ten((i) => set({ agentCode, monthlyBudgetUsd: 100 + i }, k));
    const amounts = new Set(replies.map((r) => r.setBudget.allocatedUsd));
    expect(amounts.size).toBe(1); // every call saw the one change; two changes would give two amounts
    expect([...amounts][0]).toBeGreaterThanOrEqual(100);
    expect((await op(TEST_MASTER_KEY, `query($c: String!) { agent(code: $c) { budget { allocatedUsd } } }`, { c: agentCode })).agent.budget.allocatedUsd).toBe([...amounts][0]);
  });

  it('a used key for another agent is a 409 naming the key; a malformed key a 422', async () => {
    const k = key();
    await set({ agentCode: `idem-${randomUUID().slice(0, 8)}`, monthlyBudgetUsd: 5 }, k);
    const other = `idem-${randomUUID().slice(0, 8)}`;
    expect(await failure(TEST_MASTER_KEY, SET, { input: { agentCode: other, monthlyBudgetUsd: 5 }, key: k })).toMatchObject({ code: 'CONFLICT', status: 409, message: expect.stringContaining(k) });
    expect(await count('select count(*) n from llm.agent where code = $1', [other])).toBe(0);
    for (const bad of BAD_KEYS) {
      expect(await failure(TEST_MASTER_KEY, SET, { input: { agentCode: other, monthlyBudgetUsd: 5 }, key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
    }
    expect(await count('select count(*) n from llm.agent where code = $1', [other])).toBe(0);
  });
});

describe('cms publishContent, updateContentDraft and restoreContentVersion with idempotencyKey', () => {
  const CONTENT = 'id latestVersion publishedVersion title versions { version status title }';
  const PUBLISH = `mutation($id: ID!, $v: Int, $key: String) { publishContent(id: $id, version: $v, idempotencyKey: $key) { ${CONTENT} } }`;
  const UPDATE = `mutation($id: ID!, $t: String, $key: String) { updateContentDraft(id: $id, input: { title: $t }, idempotencyKey: $key) { ${CONTENT} } }`;
  const create = async () => (await op(editor, `mutation($i: CreateContentInput!) { createContent(input: $i) { id } }`, { i: { siteKey: 'demo', slug: `idem-${randomUUID().slice(0, 8)}`, title: 'First' } })).createContent.id as string;
  const publish = async (id: string, k?: string, v?: number) => (await op(editor, PUBLISH, { id, key: k, v })).publishContent;
  const update = async (id: string, t: string, k?: string) => (await op(editor, UPDATE, { id, t, key: k })).updateContentDraft;
  const content = async (id: string) => (await op(editor, `query($id: ID!) { content(id: $id) { ${CONTENT} } }`, { id })).content;

  it('publishContent twice with a key: the second call leaves the versions as they are', async () => {
    const id = await create();
    const k = key();
    expect(await publish(id, k)).toMatchObject({ publishedVersion: 1 });
    await update(id, 'Second'); // v2 DRAFT
    const before = await content(id);
    const again = await publish(id, k);
    expect(again).toEqual(before);
    expect(again).toMatchObject({ publishedVersion: 1, versions: [{ version: 2, status: 'DRAFT' }, { version: 1, status: 'PUBLISHED' }] });
    // Without a key, as before: publishing makes the draft live.
    expect(await publish(id)).toMatchObject({ publishedVersion: 2 });
  });

  it('ten concurrent publishContent calls with one key make exactly one change', async () => {
    const id = await create();
    await publish(id); // v1 live
    await update(id, 'Second');
    await publish(id); // v2 live, v1 SUPERSEDED
    await update(id, 'Third'); // v3 DRAFT
    const k = key();
    // Alternating targets: without the key these would flip the live version back and forth.
    const replies = await ten((i) => publish(id, k, i % 2 ? 1 : 3));
    const live = new Set(replies.map((r) => r.publishedVersion));
    expect(live.size).toBe(1);
    const published = [...live][0] as number;
    expect([1, 3]).toContain(published);
    const statuses = Object.fromEntries((await content(id)).versions.map((v: { version: number; status: string }) => [v.version, v.status]));
    expect(statuses).toEqual(published === 3 ? { 1: 'SUPERSEDED', 2: 'SUPERSEDED', 3: 'PUBLISHED' } : { 1: 'PUBLISHED', 2: 'SUPERSEDED', 3: 'DRAFT' });
  });

  it('updateContentDraft twice with a key: one new draft version, with the first title', async () => {
    const id = await create();
    await publish(id);
    const k = key();
    expect(await update(id, 'Edited once', k)).toMatchObject({ latestVersion: 2, title: 'Edited once' });
    expect(await update(id, 'Edited twice', k)).toMatchObject({ latestVersion: 2, title: 'Edited once' });
    expect(await count('select count(*) n from cms.content_version where content_id = $1', [id])).toBe(2);
  });

  it('ten concurrent updateContentDraft calls with one key make exactly one new version', async () => {
    const id = await create();
    await publish(id);
    const k = key();
    const replies = await ten((i) => update(id, `Edit ${i}`, k));
    expect(new Set(replies.map((r) => r.title)).size).toBe(1);
    expect(replies.every((r) => r.latestVersion === 2)).toBe(true);
    expect(await count('select count(*) n from cms.content_version where content_id = $1', [id])).toBe(2);
  });

  it('a used key for another operation or content is a 409 naming the key; a malformed key a 422', async () => {
    const id = await create();
    const k = key();
    await publish(id, k);
    expect(await failure(editor, UPDATE, { id, t: 'Other', key: k })).toMatchObject({ code: 'CONFLICT', status: 409, message: expect.stringContaining(k) });
    const other = await create();
    expect(await failure(editor, PUBLISH, { id: other, key: k })).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect((await content(other)).publishedVersion).toBeNull();
    expect((await content(id)).latestVersion).toBe(1);
    for (const bad of BAD_KEYS) {
      expect(await failure(editor, PUBLISH, { id: other, key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
      expect(await failure(editor, UPDATE, { id: other, t: 'x', key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
    }
    expect(await content(other)).toMatchObject({ publishedVersion: null, latestVersion: 1, title: 'First' });
  });

  it('restoreContentVersion with publish and a key: one restored version, live once, however often or concurrently it is called', async () => {
    const RESTORE = `mutation($id: ID!, $v: Int!, $p: Boolean, $key: String) { restoreContentVersion(id: $id, version: $v, publish: $p, idempotencyKey: $key) { ${CONTENT} } }`;
    const restore = async (id: string, v: number, k?: string, p = true) => (await op(editor, RESTORE, { id, v, p, key: k })).restoreContentVersion;
    const id = await create();
    await publish(id); // v1 live, "First"
    await update(id, 'Worse');
    await publish(id); // v2 live, "Worse"
    const k = key();
    const replies = await ten(() => restore(id, 1, k));
    expect(replies.every((r) => r.latestVersion === 3 && r.publishedVersion === 3 && r.title === 'First')).toBe(true);
    expect((await content(id)).versions).toEqual([{ version: 3, status: 'PUBLISHED', title: 'First' }, { version: 2, status: 'SUPERSEDED', title: 'Worse' }, { version: 1, status: 'SUPERSEDED', title: 'First' }]);
    expect(await restore(id, 2, k)).toMatchObject({ latestVersion: 3, publishedVersion: 3 });
    // Without publish, as before: the copy waits as a draft.
    expect(await restore(id, 2, undefined, false)).toMatchObject({ latestVersion: 4, publishedVersion: 3, versions: [{ version: 4, status: 'DRAFT', title: 'Worse' }, { version: 3, status: 'PUBLISHED' }, { version: 2 }, { version: 1 }] });
    for (const bad of BAD_KEYS) expect(await failure(editor, RESTORE, { id, v: 1, p: true, key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
    expect(await failure(editor, RESTORE, { id, v: 99, p: true, key: key() })).toMatchObject({ code: 'NOT_FOUND' });
    expect((await content(id)).latestVersion).toBe(4);
  });

  it('a repeated key is checked like the first call: another site\'s editor gets 404', async () => {
    const id = await create();
    const k = key();
    await publish(id, k);
    const stranger = await platform.token({ roles: ['editor'], sites: ['elsewhere'] });
    expect(await failure(stranger, PUBLISH, { id, key: k })).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('crawl triggerCrawlJob and changeCrawlSelectors with idempotencyKey', () => {
  const TRIGGER = `mutation($j: ID!, $key: String) { triggerCrawlJob(jobId: $j, idempotencyKey: $key) { executionId status } }`;
  const CHANGE = `mutation($j: ID!, $s: JSONObject!, $key: String) { changeCrawlSelectors(jobId: $j, selectors: $s, idempotencyKey: $key) { jobId selectors selectorVersion } }`;
  const createJob = async (token = acme) => {
    const path = `/idem-${randomUUID().slice(0, 8)}/latest/`;
    site.serve(path, 'v1.html');
    const input = { jobName: `idem ${path}`, targetUrl: site.url(path), cronExpression: '0 0 9 * * ?', selectors: V1_SELECTORS };
    return (await op(token, `mutation($i: JSONObject!) { createCrawlJob(input: $i) { jobId } }`, { i: input })).createCrawlJob.jobId as string;
  };
  const trigger = async (jobId: string, k?: string, token = acme) => (await op(token, TRIGGER, { j: jobId, key: k })).triggerCrawlJob;
  const change = async (jobId: string, s: Record<string, string>, k?: string) => (await op(acme, CHANGE, { j: jobId, s, key: k })).changeCrawlSelectors;
  const executions = (jobId: string) => count('select count(*) n from crawl.crawl_execution where job_id = $1', [jobId]);
  const versions = (jobId: string) => count('select count(*) n from crawl.selector_version where job_id = $1', [jobId]);

  it('triggerCrawlJob twice with a key: one execution, and the second call answers it', async () => {
    const jobId = await createJob();
    const k = key();
    const first = await trigger(jobId, k);
    const again = await trigger(jobId, k);
    expect(again.executionId).toBe(first.executionId);
    expect(await executions(jobId)).toBe(1);
    // Without a key, as before: a new run each time.
    expect((await trigger(jobId)).executionId).not.toBe(first.executionId);
    expect(await executions(jobId)).toBe(2);
  }, 30_000);

  it('ten concurrent triggers with one key create exactly one execution', async () => {
    const jobId = await createJob();
    const k = key();
    const replies = await ten(() => trigger(jobId, k));
    expect(new Set(replies.map((r) => r.executionId)).size).toBe(1);
    expect(await executions(jobId)).toBe(1);
  }, 30_000);

  it('changeCrawlSelectors: a new selector version, fingerprints dropped; twice with a key changes once', async () => {
    const jobId = await createJob();
    const run = await trigger(jobId);
    const done = (e: string) => eventually(async () => {
      const { crawlExecution } = await op(acme, `query($e: ID!) { crawlExecution(executionId: $e) { status totalCount } }`, { e });
      if (crawlExecution.status === 'FAILED') throw new Error(`execution ${e} failed`);
      return crawlExecution.status === 'COMPLETED' ? (crawlExecution.totalCount as number) + 1 : undefined;
    }).then((n) => n - 1);
    const items = await done(run.executionId);
    expect(items).toBeGreaterThan(0);
    expect(await count('select count(*) n from crawl.crawl_job where id = $1 and fingerprints is not null', [jobId])).toBe(1);
    const k = key();
    expect(await change(jobId, NEW_SELECTORS, k)).toEqual({ jobId, selectors: NEW_SELECTORS, selectorVersion: 2 });
    expect(await change(jobId, V1_SELECTORS, k)).toEqual({ jobId, selectors: NEW_SELECTORS, selectorVersion: 2 });
    expect(await versions(jobId)).toBe(2);
    expect((await db.query('select reason, selectors from crawl.selector_version where job_id = $1 and version = 2', [jobId])).rows).toEqual([{ reason: 'changed', selectors: NEW_SELECTORS }]);
    expect(await count('select count(*) n from crawl.crawl_job where id = $1 and fingerprints is null', [jobId])).toBe(1);
    // Without a key, as before: every call is a new version.
    expect((await change(jobId, V1_SELECTORS)).selectorVersion).toBe(3);
    // The changed selectors crawl: the next run completes with the same items.
    expect(await done((await trigger(jobId)).executionId)).toBe(items);
  }, 30_000);

  it('ten concurrent changeCrawlSelectors calls with one key make one new version', async () => {
    const jobId = await createJob();
    const k = key();
    const replies = await ten(() => change(jobId, NEW_SELECTORS, k));
    expect(replies.every((r) => r.selectorVersion === 2)).toBe(true);
    expect(await versions(jobId)).toBe(2);
  });

  it('validates the selectors as createCrawlJob does (422 naming the field)', async () => {
    const jobId = await createJob();
    expect(await failure(acme, CHANGE, { j: jobId, s: { title: 'h3 > a' } })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/selectors/listRow' }] });
    expect(await failure(acme, CHANGE, { j: jobId, s: { listRow: 'li::text', extra: 'a' } })).toMatchObject({ status: 422, errors: expect.arrayContaining([{ pointer: '/selectors/extra', detail: expect.any(String) }, { pointer: '/selectors/listRow', detail: expect.any(String) }]) });
    expect(await failure(acme, CHANGE, { j: jobId, s: { listRow: 7 } })).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(await failure(acme, CHANGE, { j: randomUUID(), s: NEW_SELECTORS })).toMatchObject({ code: 'NOT_FOUND' });
    expect(await failure(await platform.token({ roles: ['analyst'], tenants: ['acme'] }), CHANGE, { j: jobId, s: NEW_SELECTORS })).toMatchObject({ code: 'FORBIDDEN' });
    expect(await versions(jobId)).toBe(1);
  });

  it('a used key for another operation or tenant is a 409 naming the key; a malformed key a 422', async () => {
    const jobId = await createJob();
    const k = key();
    await trigger(jobId, k);
    expect(await failure(acme, CHANGE, { j: jobId, s: NEW_SELECTORS, key: k })).toMatchObject({ code: 'CONFLICT', status: 409, message: expect.stringContaining(k) });
    expect(await versions(jobId)).toBe(1);
    // Another tenant's key is refused, never replayed (it would show the other tenant's execution).
    const theirs = await createJob(globex);
    expect(await failure(globex, TRIGGER, { j: theirs, key: k })).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(await executions(theirs)).toBe(0);
    for (const bad of BAD_KEYS) {
      expect(await failure(acme, TRIGGER, { j: jobId, key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
      expect(await failure(acme, CHANGE, { j: jobId, s: NEW_SELECTORS, key: bad })).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/idempotencyKey' }] });
    }
    expect(await executions(jobId)).toBe(1);
    expect(await versions(jobId)).toBe(1);
  }, 30_000);
});
