import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeDatabase, createLogger, createRouterClient, loadOperations, openDatabase, type MikroORM, type Principal, type RouterClient } from '@svc/kit';
import { createCatalogService } from '@svc/insight/service/metric-catalog';
import { createMetricService } from '@svc/insight/service/metrics';
import { platformEvents } from '@svc/insight/service/sources/platform-events';
import { storeSource } from '@svc/insight/service/sources/store-source';
import { createTimelineService } from '@svc/insight/service/timeline';
import { createDefinitionStore } from '@svc/insight/store/definition-store';
import { INSIGHT_ENTITIES } from '@svc/insight/store/entities';
import { createEventStore } from '@svc/insight/store/event-store';
import { createMetricStore } from '@svc/insight/store/metric-store';
import { INSIGHT_MIGRATIONS } from '@svc/insight/store/migrations';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * What a tenant's metrics mean and what happened on its timeline: definitions declared over REST,
 * GraphQL and the ingest body, read back, refused with the field named, kept per tenant; events
 * posted and listed; the platform's own events (a content version published, a crawl run failed)
 * read through the router; and the two functions the analysis reads them with
 * (`catalogEntries`, `eventsBetween`) on the real stores and router.
 */

let platform: TestPlatform;
let orm: MikroORM;
let router: RouterClient;
let acme: string;
let other: string;
let reviewer: string;
const bearer = (token: string, tenant?: string) => ({ authorization: `Bearer ${token}`, ...(tenant ? { 'x-svc-tenant-id': tenant } : {}) });
const ACME: Principal = { subject: 'ana', roles: ['analyst', 'editor', 'crawler'], tenants: ['acme'], sites: ['demo'] };

const define = (name: string, definition: unknown, token = acme) => call(`${platform.bridge}/api/v1/insight/metrics/${name}/definition`, { method: 'PUT', headers: bearer(token), json: definition });
const definitionOf = (name: string, token = acme) => call(`${platform.bridge}/api/v1/insight/metrics/${name}/definition`, { headers: bearer(token) });
const pointers = (reply: { body: { errors?: { pointer: string }[] } }) => (reply.body.errors ?? []).map((e) => e.pointer).sort();
const day = (d: number) => new Date(Date.UTC(2026, 9, d)).toISOString();

/** The analysis service's catalog and timeline on the platform's own database and router, as a job reads them. */
function services(token: string) {
  const call = <T>(operation: string, variables: Record<string, unknown>, headers: Record<string, string>) => router.execute<T>(operation, variables, { headers });
  const metricStore = createMetricStore(orm);
  const definitions = createDefinitionStore(orm);
  const metrics = createMetricService({ store: metricStore, sources: [storeSource(metricStore)], definitions });
  const headers = async () => ({ authorization: `Bearer ${token}`, 'x-svc-tenant-id': 'acme' });
  return {
    catalog: createCatalogService({ definitions, metrics }),
    timeline: createTimelineService({ store: createEventStore(orm), platform: platformEvents({ call, headers }) }),
    caller: { principal: ACME, tenantId: 'acme', headers: {} },
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({ SVC_INSIGHT_WORKER: 'false' });
  acme = await platform.token(ACME);
  other = await platform.token({ subject: 'olga', roles: ['analyst', 'editor', 'crawler'], tenants: ['other'], sites: ['othersite'] });
  reviewer = await platform.token({ subject: 'rita', roles: ['reviewer'], tenants: ['acme'], sites: [] });
  orm = await openDatabase({ url: platform.databaseUrl, schema: 'insight', entities: INSIGHT_ENTITIES, migrations: INSIGHT_MIGRATIONS, poolMax: 2, log: createLogger({ level: 'silent' }) });
  router = createRouterClient({ url: platform.router, operations: await loadOperations(), timeoutMs: 30_000 });
});
afterAll(async () => {
  await router?.close();
  if (orm) await closeDatabase(orm, createLogger({ level: 'silent' }));
  await platform?.close();
});

describe('metric definitions', () => {
  it('declares a definition over REST and reads it back, for analysts and reviewers', async () => {
    const definition = { unit: { kind: 'count', noun: 'bookings' }, aggregation: 'sum', upIsGood: true, formula: { product: ['visits', 'booking_rate'] }, drivers: [{ metric: 'ad_spend', labels: { channel: 'search' }, lagDays: 2, elasticity: 0.3 }], synonyms: ['reservations'], description: 'Bookings per day' };
    const put = await define('bookings', definition);
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ name: 'bookings', definition, updatedAt: expect.any(String), updatedBy: 'ana' });
    expect((await definitionOf('bookings')).body.data.definition).toEqual(definition);
    expect((await definitionOf('bookings', reviewer)).body.data.definition).toEqual(definition);
    const replaced = await define('bookings', { unit: { kind: 'currency', code: 'EUR' } });
    expect(replaced.body.data.definition).toEqual({ unit: { kind: 'currency', code: 'EUR' } });
    expect((await define('bookings', definition)).status).toBe(200);
    expect((await define('bookings', { upIsGood: false }, reviewer)).status).toBe(403);
  });

  it('refuses a bad definition whole, naming each bad field', async () => {
    const bad = await define('signups', {
      unit: { kind: 'currency', code: 'euro' },
      aggregation: 'median',
      formula: { product: ['signups', 'Bad Name'] },
      drivers: [{ metric: 'signups', lagDays: 91 }, { metric: 'ad_spend', elasticity: 'high' }],
      colour: 'red',
    });
    expect(bad.status).toBe(422);
    expect(pointers(bad)).toEqual(expect.arrayContaining(['/definition/unit/code', '/definition/aggregation', '/definition/formula/product/1', '/definition/drivers/0/lagDays', '/definition/drivers/1/elasticity', '/definition']));
    expect(bad.body.errors.find((e: { pointer: string }) => e.pointer === '/definition').detail).toContain('colour');
    const self = await define('signups', { formula: { sum: ['signups', 'trials'] }, drivers: [{ metric: 'signups' }], aggregation: { ratio: { numerator: 'signups', denominator: 'visits' } } });
    expect(self.status).toBe(422);
    expect(pointers(self)).toEqual(['/definition/aggregation/ratio/numerator', '/definition/drivers/0/metric', '/definition/formula/sum/0']);
    expect(self.body.errors[0].detail).toContain('"signups" itself');
    expect((await define('Bad%20Name', {})).status).toBe(422);
    expect((await definitionOf('signups')).status).toBe(404);
  });

  it('keeps each tenant\'s definitions to itself', async () => {
    expect((await definitionOf('bookings', other)).status).toBe(404);
    expect((await define('bookings', { upIsGood: false }, other)).status).toBe(200);
    expect((await definitionOf('bookings')).body.data.definition.upIsGood).toBe(true);
    const listed = await gql(platform.router, '{ metricDefinitions { name definition } }', {}, bearer(other));
    expect(listed.body.data.metricDefinitions).toEqual([{ name: 'bookings', definition: { upIsGood: false } }]);
  });

  it('takes definitions with the series they describe, and shows them in the catalog', async () => {
    const series = ['north', 'south'].map((region) => ({ name: 'bookings', labels: { region }, unit: 'bookings', points: [1, 2, 3].map((d) => ({ timestamp: day(d), value: region === 'north' ? 10 * d : d })) }));
    const visits = { name: 'visits', points: [{ timestamp: day(1), value: 100 }] };
    const bad = await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(acme), json: { series: [visits], metrics: [{ name: 'visits', drivers: [{ metric: 'visits' }] }] } });
    expect(bad.status).toBe(422);
    expect(pointers(bad)).toEqual(['/metrics/0/drivers/0/metric']);
    const ingested = await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer(acme), json: { series: [...series, visits], metrics: [{ name: 'visits', unit: { kind: 'count', noun: 'visits' }, synonyms: ['traffic'] }] } });
    expect(ingested.status).toBe(200);
    const catalog = await gql(platform.router, '{ metrics { name labels source definition } }', {}, bearer(acme));
    expect(catalog.body.data.metrics).toEqual(expect.arrayContaining([
      { name: 'visits', labels: {}, source: 'store', definition: { unit: { kind: 'count', noun: 'visits' }, synonyms: ['traffic'] } },
      { name: 'bookings', labels: { region: 'north' }, source: 'store', definition: expect.objectContaining({ synonyms: ['reservations'] }) },
    ]));
    const defined = await gql(platform.router, 'mutation { defineMetric(name: "booking_rate", definition: {unit: {kind: "ratio"}, aggregation: {ratio: {numerator: "bookings", denominator: "visits"}}}) { name definition updatedBy } }', {}, bearer(acme));
    expect(defined.body.data.defineMetric).toEqual({ name: 'booking_rate', definition: { unit: { kind: 'ratio' }, aggregation: { ratio: { numerator: 'bookings', denominator: 'visits' } } }, updatedBy: 'ana' });
    const refused = await gql(platform.router, 'mutation { defineMetric(name: "x", definition: {upIsGood: "yes"}) { name } }', {}, bearer(acme));
    expect(refused.body.errors![0]!.extensions!.errors).toEqual([{ pointer: '/definition/upIsGood', detail: expect.any(String) }]);
  });

  it('gives the analysis every metric of the catalog with its definition and what the series show', async () => {
    const { catalog, caller } = services(acme);
    const entries = await catalog.catalogEntries(caller);
    // booking_rate has no series of its own: it is derived from bookings ÷ visits, with the labels both carry (none).
    expect(entries.map((e) => e.name)).toEqual(['booking_rate', 'bookings', 'visits']);
    expect(entries[0]).toEqual({ name: 'booking_rate', unit: { kind: 'ratio' }, aggregation: { ratio: { numerator: 'bookings', denominator: 'visits' } }, labels: [], labelValues: {} });
    expect(entries[1]).toEqual({
      name: 'bookings', unit: { kind: 'count', noun: 'bookings' }, aggregation: 'sum', upIsGood: true, formula: { product: ['visits', 'booking_rate'] },
      drivers: [{ metric: 'ad_spend', labels: { channel: 'search' }, lagDays: 2, elasticity: 0.3 }], synonyms: ['reservations'], description: 'Bookings per day',
      labels: ['region'], labelValues: { region: ['north', 'south'] },
    });
    expect(entries[2]).toEqual({ name: 'visits', unit: { kind: 'count', noun: 'visits' }, synonyms: ['traffic'], labels: [], labelValues: {} });
  });
});

describe('events', () => {
  it('records tenant events and lists them by window and kind, per tenant', async () => {
    const post = (json: unknown, token = acme) => call(`${platform.bridge}/api/v1/insight/events`, { headers: bearer(token), json });
    const created = await post({ at: day(14), kind: 'price_change', title: 'Plans 10 % dearer', ref: 'pricing-7' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), at: '2026-10-14T00:00:00.000Z', kind: 'price_change', title: 'Plans 10 % dearer', ref: 'pricing-7', source: 'tenant' });
    expect((await post({ at: Date.UTC(2026, 9, 20, 12), kind: 'campaign', title: 'Autumn sale' })).status).toBe(201);
    expect((await post({ at: day(15), kind: 'deploy', title: 'Someone else\'s deploy' }, other)).status).toBe(201);
    const bad = await post({ at: '14 Oct', kind: 'Price Change', title: '', extra: 1 });
    expect(bad.status).toBe(422);
    expect(pointers(bad)).toEqual(['/', '/at', '/kind', '/title']);
    expect((await post({ at: day(1), kind: 'deploy', title: 'x' }, reviewer)).status).toBe(403);

    const list = (query: string, token = acme) => call(`${platform.bridge}/api/v1/insight/events?${query}`, { headers: bearer(token) });
    const october = await list('from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z');
    expect(october.status).toBe(200);
    expect(october.body.data.map((e: { kind: string; title: string }) => [e.kind, e.title])).toEqual([['price_change', 'Plans 10 % dearer'], ['campaign', 'Autumn sale']]);
    expect((await list('from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z&kind=campaign', reviewer)).body.data.map((e: { title: string }) => e.title)).toEqual(['Autumn sale']);
    expect((await list('from=2026-10-15T00:00:00Z&to=2026-10-16T00:00:00Z')).body.data).toEqual([]);
    const badWindow = await list('from=2026-11-01T00:00:00Z&to=2026-10-01T00:00:00Z');
    expect(badWindow.status).toBe(422);
    expect(pointers(badWindow)).toEqual(['/from']);
    const theirs = await gql(platform.router, '{ events(from: "2026-10-01T00:00:00Z", to: "2026-11-01T00:00:00Z") { kind title source } }', {}, bearer(other));
    expect(theirs.body.data.events).toEqual([{ kind: 'deploy', title: 'Someone else\'s deploy', source: 'tenant' }]);
  });

  it('records the platform\'s own events: a content version published and a crawl run failed', async () => {
    const started = Date.now();
    const contents = await gql(platform.router, '{ contents(siteKey: "demo") { id slug latestVersion } }', {}, bearer(acme));
    const welcome = contents.body.data.contents.find((c: { slug: string }) => c.slug === 'welcome');
    const draft = await gql(platform.router, 'mutation($id: ID!) { updateContentDraft(id: $id, input: {title: "Welcome, again"}) { latestVersion } }', { id: welcome.id }, bearer(acme));
    const version = draft.body.data.updateContentDraft.latestVersion;
    expect((await gql(platform.router, 'mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }', { id: welcome.id }, bearer(acme))).body.data.publishContent.publishedVersion).toBe(version);

    const job = await call(`${platform.bridge}/api/v1/crawl/jobs`, { headers: bearer(acme), json: { jobName: 'unreachable', targetUrl: 'http://10.0.0.1/', robotsTxt: 'ignore', cronExpression: '0 0 0 1 1 ?', selectors: { listRow: 'li', title: 'a' } } });
    expect(job.status).toBe(201);
    const jobId = job.body.data.jobId as string;
    const run = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/trigger`, { method: 'POST', headers: bearer(acme) });
    const executionId = run.body.data.executionId as string;
    await eventually(async () => {
      const list = await call(`${platform.bridge}/api/v1/crawl/jobs/${jobId}/executions`, { headers: bearer(acme) });
      return list.body.data.find((e: { executionId: string; status: string }) => e.executionId === executionId && e.status === 'FAILED');
    }, 30_000, 'the crawl run to fail');

    const window = `from=${new Date(started - 60_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const listed = await call(`${platform.bridge}/api/v1/insight/events?${window}`, { headers: bearer(acme) });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'content_published', source: 'platform', ref: `content:demo:${welcome.id}:v${version}`, title: expect.stringContaining('"welcome"') }),
      expect.objectContaining({ kind: 'crawl_failed', source: 'platform', ref: `crawl-job:${jobId}:execution:${executionId}`, title: expect.stringContaining('"unreachable"') }),
    ]));
    // Another tenant (and site) sees neither; a reviewer without role editor sees the crawl run only.
    const theirs = await call(`${platform.bridge}/api/v1/insight/events?${window}`, { headers: bearer(other) });
    expect(theirs.body.data.filter((e: { source: string }) => e.source === 'platform')).toEqual([]);
    const reviewed = await call(`${platform.bridge}/api/v1/insight/events?${window}&kind=content_published`, { headers: bearer(reviewer) });
    expect(reviewed.body.data).toEqual([]);
    // A token for every site does not make every site the tenant's: acme's analysis reads no
    // page of site demo then, while the demo tenant (its site is named like it) reads them.
    const everySite = await platform.token({ ...ACME, subject: 'oper', sites: '*' });
    const wide = await call(`${platform.bridge}/api/v1/insight/events?${window}`, { headers: bearer(everySite) });
    expect(wide.body.data.filter((e: { kind: string }) => e.kind === 'content_published')).toEqual([]);
    expect(wide.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'crawl_failed', ref: `crawl-job:${jobId}:execution:${executionId}` })]));
    const demoWide = await platform.token({ subject: 'oper', roles: ['analyst', 'editor'], tenants: ['demo'], sites: '*' });
    const demoEvents = await call(`${platform.bridge}/api/v1/insight/events?${window}&kind=content_published`, { headers: bearer(demoWide) });
    expect(demoEvents.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ ref: `content:demo:${welcome.id}:v${version}` })]));

    const { timeline, caller } = services(acme);
    const events = await timeline.eventsBetween(caller, started - 60_000, Date.now() + 60_000);
    expect(events).toEqual(expect.arrayContaining([
      { at: expect.any(Number), kind: 'content_published', title: expect.any(String), ref: `content:demo:${welcome.id}:v${version}`, source: 'platform' },
      { at: expect.any(Number), kind: 'crawl_failed', title: expect.any(String), ref: `crawl-job:${jobId}:execution:${executionId}`, source: 'platform' },
    ]));
    const stored = await timeline.eventsBetween(caller, Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1));
    expect(stored.map((e) => e.title)).toEqual(['Plans 10 % dearer', 'Autumn sale']);
  });
});

describe('the demo shop\'s definitions', () => {
  it('are seeded with its series, and a demo seeded before them gets the series they name, once', async () => {
    const demo = await platform.token({ subject: 'dina', roles: ['analyst'], tenants: ['demo'], sites: [] });
    const revenue = await definitionOf('revenue', demo);
    expect(revenue.body.data.definition).toMatchObject({ unit: { kind: 'currency', code: 'USD' }, formula: { product: ['sessions', 'conversion_rate', 'average_order_value'] }, synonyms: expect.arrayContaining(['sales', 'income']) });
    expect((await definitionOf('conversion_rate', demo)).body.data.definition.aggregation).toEqual({ ratio: { numerator: 'orders', denominator: 'sessions' } });

    // As a platform of the version before: no definitions, no orders series.
    await orm.em.fork().execute(`delete from insight.metric_definition where tenant_id = 'demo'`);
    await orm.em.fork().execute(`delete from insight.metric_series where tenant_id = 'demo' and name = 'orders'`);
    await platform.stop();
    platform = await startTestPlatform({ SVC_INSIGHT_WORKER: 'false' }, { reuse: { databaseUrl: platform.databaseUrl, redisPrefix: platform.redisPrefix } });
    const catalog = await gql(platform.router, '{ metrics { name pointCount definition } }', {}, bearer(demo));
    const counts = Object.fromEntries(catalog.body.data.metrics.filter((m: { name: string }) => m.name !== 'ad_spend').map((m: { name: string; pointCount: number }) => [m.name, m.pointCount]));
    expect(counts).toMatchObject({ revenue: 730, sessions: 730, orders: 730, conversion_rate: 730, average_order_value: 730 });
    expect(catalog.body.data.metrics.find((m: { name: string }) => m.name === 'orders').definition).toMatchObject({ unit: { kind: 'count', noun: 'orders' } });
  });
});
