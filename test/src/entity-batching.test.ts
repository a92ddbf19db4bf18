import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Entity references in batches (kit reference-loader.ts): the router asks a subgraph for 50
 * `CrawlJob` or `Content` references in one `_entities` call, as it does for 50 action cards'
 * targets; the subgraph reads them with one query per entity type, not one per reference. The
 * statements are counted on every copy of the pg driver in this process (MikroORM brings its own).
 */

let platform: TestPlatform;
let token: string;
const seen: string[] = [];
const require = createRequire(import.meta.url);
const drivers = new Set([pg, require(require.resolve('pg', { paths: [require.resolve('@mikro-orm/postgresql')] }))]);
const originals = new Map<unknown, unknown>();

beforeAll(async () => {
  for (const driver of drivers) {
    const query = driver.Client.prototype.query;
    originals.set(driver, query);
    driver.Client.prototype.query = function counted(this: unknown, config: unknown, ...rest: unknown[]) {
      const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
      if (typeof text === 'string') seen.push(text);
      return query.call(this, config, ...rest);
    };
  }
  platform = await startTestPlatform();
  token = await platform.token({ roles: ['admin'], tenants: ['batch'], sites: ['demo'] });
});
afterAll(async () => {
  for (const [driver, query] of originals) (driver as { Client: { prototype: { query: unknown } } }).Client.prototype.query = query;
  await platform?.close();
});

/**
 * The statements a call sends to PostgreSQL, with the call's result. The platform's background
 * work (job queues, schedulers, budget leases) shares the process and its pool and can add a
 * statement to any one call, never take one away: the call runs three times and the fewest count.
 */
async function counting<T>(call: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let fewest = Number.POSITIVE_INFINITY;
  let result: T | undefined;
  for (let i = 0; i < 3; i++) {
    const from = seen.length;
    const answer = await call();
    fewest = Math.min(fewest, seen.length - from);
    result ??= answer;
  }
  return { result: result as T, statements: fewest };
}

describe('entity references in batches', () => {
  it('reads 50 crawl jobs of a tenant in one query, and another tenant\'s (or none) as null with ENTITY_NOT_FOUND', async () => {
    const db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    const ids = Array.from({ length: 50 }, () => randomUUID());
    try {
      for (const [i, id] of ids.entries()) {
        await db.query(`insert into crawl.crawl_job (id, tenant_id, job_name, target_url, selectors, status) values ($1, $2, $3, 'https://example.com/', '{}', 'PAUSED')`, [id, i < 49 ? 'batch' : 'other', `job ${i}`]);
      }
    } finally {
      await db.end();
    }
    const ask = (jobIds: readonly string[]) => counting(() => gql(platform.urls.crawl!, 'query($r: [_Any!]!) { _entities(representations: $r) { ... on CrawlJob { jobId jobName } } }', { r: jobIds.map((jobId) => ({ __typename: 'CrawlJob', jobId })) }, { authorization: `Bearer ${token}`, 'x-svc-tenant-id': 'batch' }));
    const { result, statements } = await ask([...ids, 'not-a-uuid']);
    const found = result.body.data._entities as ({ jobId: string; jobName: string } | null)[];
    expect(found.slice(0, 49)).toEqual(ids.slice(0, 49).map((jobId, i) => ({ jobId, jobName: `job ${i}` })));
    expect(found.slice(49)).toEqual([null, null]);
    // Each null with its reason at its index; another tenant's job reads as one that does not exist.
    expect(result.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['_entities', 49], 'ENTITY_NOT_FOUND'], [['_entities', 50], 'ENTITY_NOT_FOUND']]);
    // One read for 51 references, as for 2.
    expect(statements).toBe(1);
    expect((await ask(ids.slice(0, 2))).statements).toBe(1);
    // Read as a reference, a job is what the root field answers, field for field.
    const FIELDS = 'jobId jobName status nextRunAt createdAt targetUrl cronExpression selectors selectorVersion enableRagSync ragConfig';
    const headers = { authorization: `Bearer ${token}`, 'x-svc-tenant-id': 'batch' };
    const asReference = await gql(platform.urls.crawl!, `query($r: [_Any!]!) { _entities(representations: $r) { ... on CrawlJob { ${FIELDS} } } }`, { r: [{ __typename: 'CrawlJob', jobId: ids[0] }] }, headers);
    const asRoot = await gql(platform.urls.crawl!, `query($id: ID!) { crawlJob(jobId: $id) { ${FIELDS} } }`, { id: ids[0] }, headers);
    expect(asRoot.body.errors).toBeUndefined();
    expect(asReference.body.data._entities[0]).toEqual(asRoot.body.data.crawlJob);
  });

  it('reads the agents of a request with their owners in one statement, however many references name them, and leaves out what the caller may not read', async () => {
    const admin = await platform.token({ roles: ['admin'], tenants: '*', sites: '*' });
    const demoAnalyst = await platform.token({ roles: ['analyst'], tenants: ['demo'], sites: ['demo'] });
    // The demo tenant's agent, one nobody has, and a code that must be quoted in the statement (null, not an error).
    const codes = ['shop-assistant', 'nobody-has-this-agent', 'odd"code\\{x,y}'];
    const ask = (list: readonly string[], bearer: string) => counting(() => gql(platform.urls.llm!, 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Agent { code budget { agentCode } } } }', { r: list.map((code) => ({ __typename: 'Agent', code })) }, { authorization: `Bearer ${bearer}` }));
    const three = await ask(codes, admin);
    expect(three.result.body.data._entities).toEqual([{ code: 'shop-assistant', budget: { agentCode: 'shop-assistant' } }, null, null]);
    expect(three.result.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['_entities', 1], 'ENTITY_NOT_FOUND'], [['_entities', 2], 'ENTITY_NOT_FOUND']]);
    expect(three.statements).toBe(1);
    const fifty = await ask(Array.from({ length: 50 }, (_, i) => codes[i % 3]!), admin);
    expect(fifty.result.body.errors).toHaveLength(33);
    expect(fifty.result.body.data._entities).toHaveLength(50);
    expect(fifty.statements).toBe(1);
    // The demo tenant's reader sees its agent; another tenant's admin does not: FORBIDDEN, where the other two do not exist.
    expect((await ask(codes, demoAnalyst)).result.body.data._entities).toEqual([{ code: 'shop-assistant', budget: { agentCode: 'shop-assistant' } }, null, null]);
    const other = await ask(codes, token);
    expect(other.result.body.data._entities).toEqual([null, null, null]);
    expect(other.result.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['_entities', 0], 'FORBIDDEN'], [['_entities', 1], 'ENTITY_NOT_FOUND'], [['_entities', 2], 'ENTITY_NOT_FOUND']]);
    // Read as a reference, an agent's budget is what the root field answers, field for field.
    const FIELDS = 'code budget { agentCode allocatedUsd currentUsageUsd remainingUsd status hardLimitEnabled }';
    const asReference = await gql(platform.urls.llm!, `query($r: [_Any!]!) { _entities(representations: $r) { ... on Agent { ${FIELDS} } } }`, { r: [{ __typename: 'Agent', code: 'shop-assistant' }] }, { authorization: `Bearer ${admin}` });
    const asRoot = await gql(platform.urls.llm!, `query { agent(code: "shop-assistant") { ${FIELDS} } }`, {}, { authorization: `Bearer ${admin}` });
    expect(asRoot.body.errors).toBeUndefined();
    expect(asReference.body.data._entities[0]).toEqual(asRoot.body.data.agent);
  });

  it('reads 50 contents of a site in one query, keeping the order of the references and repeating none', async () => {
    const created: string[] = [];
    for (let i = 0; i < 25; i++) {
      const reply = await gql(platform.router, 'mutation($input: CreateContentInput!) { createContent(input: $input) { id } }', { input: { siteKey: 'demo', slug: `batch-${i}-${randomUUID().slice(0, 6)}`, title: `Batch ${i}` } }, { authorization: `Bearer ${token}` });
      expect(reply.body.errors).toBeUndefined();
      created.push(reply.body.data.createContent.id);
    }
    // Every content twice, in another order: 50 references, 25 distinct.
    const refs = [...created, ...[...created].reverse()];
    const ask = (ids: readonly string[]) => counting(() => gql(platform.urls.cms!, 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Content { id title } } }', { r: ids.map((id) => ({ __typename: 'Content', id })) }, { authorization: `Bearer ${token}` }));
    const { result, statements } = await ask(refs);
    expect(result.body.errors).toBeUndefined();
    expect((result.body.data._entities as { id: string }[]).map((c) => c.id)).toEqual(refs);
    // As many statements for 50 references as for 2 (the contents, then their versions: a fixed few).
    const few = await ask(created.slice(0, 2));
    expect(statements).toBe(few.statements);
    expect(statements).toBeLessThanOrEqual(3);
    // Read as a reference, a content is what the root field answers, field for field (versions, dates and fields included).
    const FIELDS = 'id siteKey locale groupId slug status title latestVersion publishedVersion publishedAt scheduledPublishAt scheduledVersion createdAt updatedAt versions { version status title fields { headline description bannerUrl ctaText ctaLink } seo { metaTitle metaDescription ogImage } createdAt createdBy publishedAt }';
    const headers = { authorization: `Bearer ${token}` };
    const asReference = await gql(platform.urls.cms!, `query($r: [_Any!]!) { _entities(representations: $r) { ... on Content { ${FIELDS} } } }`, { r: [{ __typename: 'Content', id: created[0] }] }, headers);
    const asRoot = await gql(platform.urls.cms!, `query($id: ID!) { content(id: $id) { ${FIELDS} } }`, { id: created[0] }, headers);
    expect(asRoot.body.errors).toBeUndefined();
    expect(asReference.body.errors).toBeUndefined();
    expect(asReference.body.data._entities[0]).toEqual(asRoot.body.data.content);
    // A content the caller may not author is FORBIDDEN; one that does not exist is ENTITY_NOT_FOUND.
    const reviewer = await platform.token({ roles: ['reviewer'], tenants: ['batch'], sites: ['demo'] });
    const refused = await gql(platform.urls.cms!, 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Content { id } } }', { r: [{ __typename: 'Content', id: created[0] }, { __typename: 'Content', id: randomUUID() }] }, { authorization: `Bearer ${reviewer}` });
    expect(refused.body.data?._entities).toEqual([null, null]);
    expect(refused.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['_entities', 0], 'FORBIDDEN'], [['_entities', 1], 'ENTITY_NOT_FOUND']]);
  });
});
