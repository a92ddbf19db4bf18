import { buildSubgraphSdl, canUseSite, requirePrincipal, SvcError, type Cache, closeDatabase, createCache, createPurgeChannel, createJobs, createOutboundHttp, createSubgraphServer, batchedReference, type Logger, openDatabase, type RunningSubgraph, type SchemaParts, type TokenVerifier } from '@svc/kit';
import { CMS_ENTITIES } from './store/entities.js';
import { CMS_MIGRATIONS } from './store/migrations.js';
import { ContentResolver } from './schema/content-resolver.js';
import { FormResolver } from './schema/form-resolver.js';
import { SiteResolver } from './schema/site-resolver.js';
import { createAuthoring, type Authoring } from './service/authoring.js';
import { createContentDelivery } from './service/delivery.js';
import { createEdgePurger } from './service/edge-purger.js';
import { createForms } from './service/forms.js';
import { createPreviews } from './service/preview.js';
import { createPublishing } from './service/publishing.js';
import { createCachePurge } from './service/purge.js';
import { createSites, type Sites } from './service/sites.js';
import { createSubmitForm } from './service/submit-form.js';
import { seedDemo } from './seed.js';
import { createContentStore } from './store/content-store.js';
import { createFormStore } from './store/form-store.js';
import { createSiteStore } from './store/site-store.js';
import { createSubmissionStore } from './store/submission-store.js';
import { createDeliverFormWebhook } from './worker/deliver-form-webhook.js';
import { createPublishScheduled } from './worker/publish-scheduled.js';

export interface CmsOptions {
  databaseUrl: string;
  redisUrl?: string;
  redisPrefix: string;
  verifier: TokenVerifier;
  log: Logger;
  edgePurgeUrls: readonly string[];
  cacheTtlSeconds: number;
  /** Lifetime of a preview link when the author names none, seconds. */
  previewTtlSeconds: number;
  formRateLimitPerMinute: number;
  webhookRetryBaseMs: number;
  /** How often the webhook outbox is swept for deliveries without a queued job, ms. */
  webhookSweepMs: number;
  /** SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: non-public hosts form webhooks may reach. */
  outboundAllow: readonly string[];
  maxBodyBytes: number;
  compiledExecution?: boolean;
  poolMax: number;
  seedDemo: boolean;
  workerName: string;
}

function schemaParts(authoring?: Authoring, sites?: Sites, instances: object[] = []): SchemaParts {
  return {
    resolvers: [ContentResolver, FormResolver, SiteResolver],
    instances,
    // One query per entity type for all the references of a request (kit reference-loader.ts).
    referenceResolvers: {
      Content: {
        __resolveReference: batchedReference('Content', (r: { id: string }) => r.id, (ctx, ids) => authoring!.byIds(ctx.principal, ids)),
      },
      Site: {
        __resolveReference: batchedReference('Site', (r: { siteKey: string }) => r.siteKey, async (ctx, keys) => {
          const principal = requirePrincipal(ctx.principal);
          const found = await sites!.bySiteKeys(keys);
          return new Map(found.map((site) => [site.siteKey, canUseSite(principal, site.siteKey) ? site : new SvcError('FORBIDDEN', `Your token does not grant site ${JSON.stringify(site.siteKey)}`)] as const));
        }),
      },
    },
  };
}

/** The cms SDL, without any I/O: used for the schema snapshot. */
export async function cmsSdl(): Promise<string> {
  return (await buildSubgraphSdl(schemaParts())).sdl;
}

export interface CmsRuntime {
  server: RunningSubgraph;
  cache: Cache;
  close(): Promise<void>;
}

/** Starts the content subgraph: database, cache, jobs and the GraphQL server. */
export async function startCms(options: CmsOptions, port: number, host: string): Promise<CmsRuntime> {
  const log = options.log;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'cms', entities: CMS_ENTITIES, migrations: CMS_MIGRATIONS, poolMax: options.poolMax, log });
  const cache = createCache({ redisUrl: options.redisUrl, prefix: options.redisPrefix, log });
  const jobs = await createJobs({ url: options.databaseUrl, name: `${options.workerName}:cms`, log });
  const stores = { sites: createSiteStore(orm), contents: createContentStore(orm), forms: createFormStore(orm), submissions: createSubmissionStore(orm) };
  const outbound = createOutboundHttp({ allow: options.outboundAllow });
  const publishScheduled = createPublishScheduled(jobs.agenda, log);
  const deliverFormWebhook = createDeliverFormWebhook(jobs.agenda, stores.submissions, outbound, log, options.webhookRetryBaseMs);
  // Processes that keep deliveries in memory (the REST bridge) hear of every purge (kit purge-channel.ts).
  const announcements = createPurgeChannel({ redisUrl: options.redisUrl, prefix: options.redisPrefix, log });
  const purge = createCachePurge({ sites: stores.sites, contents: stores.contents, cache, announcements, edge: createEdgePurger(options.edgePurgeUrls, log), log });
  const delivery = createContentDelivery({ ...stores, cache, cacheTtlSeconds: options.cacheTtlSeconds, log });
  const authoring = createAuthoring(stores);
  const previews = createPreviews({ ...stores, defaultTtlSeconds: options.previewTtlSeconds });
  const publishing = createPublishing({ contents: stores.contents, purge, scheduler: publishScheduled.scheduler, log });
  const forms = createForms({ ...stores, outbound });
  const submitForm = createSubmitForm({ ...stores, cache, webhooks: deliverFormWebhook.queue, defaultRateLimitPerMinute: options.formRateLimitPerMinute, log });
  const sites = createSites({
    sites: stores.sites,
    contents: stores.contents,
    localesChanged: async (before, after) => {
      delivery.forgetSite(after.siteKey);
      await purge.afterSiteChange(before, after);
    },
  });
  publishScheduled.define(publishing);
  deliverFormWebhook.define();
  await jobs.agenda.start();
  if (options.seedDemo) await seedDemo(orm, log);
  const sweep = () => void deliverFormWebhook.sweep().catch((error: unknown) => log.error({ err: error }, 'webhook outbox sweep failed'));
  sweep();
  const sweeper = setInterval(sweep, options.webhookSweepMs);
  sweeper.unref();

  const { schema } = await buildSubgraphSdl(schemaParts(authoring, sites, [new ContentResolver({ delivery, authoring, publishing, purge, previews }), new FormResolver(forms, submitForm), new SiteResolver(sites)]));
  const subgraph = createSubgraphServer({
    name: 'cms',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    compiledExecution: options.compiledExecution,
    // Delivery is public content: the resolver demands a site key (400 site-key-required), or
    // for a preview the token, which is the credential a link carries (a browser sends no headers).
    publicFields: ['deliveredContent'],
    siteKeyFields: ['submitForm'],
    ready: async () => {
      await orm.em.fork().execute('select 1');
      // The cache is optional: without it the service degrades (see the README's failure table).
      return { postgres: 'up', redis: await cache.ping().then(() => 'up', () => 'down (degraded)') };
    },
  });
  const server = await subgraph.listen(port, host);
  return {
    server,
    cache,
    async close() {
      clearInterval(sweeper);
      await server.close();
      await jobs.close();
      await outbound.close();
      await cache.close();
      await announcements.close();
      await closeDatabase(orm, log);
    },
  };
}

