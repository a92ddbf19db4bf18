import { createCache, createJobs, createSubgraphServer, buildSubgraphSdl, openDatabase, type Cache, type Logger, type RunningServer, type SchemaParts, type SvcContext, type TokenVerifier } from '@svc/kit';
import DataLoader from 'dataloader';
import { createCmsJobs } from './jobs.js';
import { CMS_ENTITIES } from './store/entities.js';
import { CMS_MIGRATIONS } from './store/migrations.js';
import { ContentResolver } from './schema/content-resolver.js';
import { FormResolver } from './schema/form-resolver.js';
import { SiteResolver } from './schema/site-resolver.js';
import { createContentService, type ContentService } from './service/content-service.js';
import { createEdgePurger } from './service/edge-purger.js';
import { createFormService } from './service/form-service.js';
import { createSiteService, type SiteService } from './service/site-service.js';
import { seedDemo } from './seed.js';
import type { Content } from './schema/content-types.js';

export interface CmsOptions {
  databaseUrl: string;
  redisUrl?: string;
  redisPrefix: string;
  verifier: TokenVerifier;
  log: Logger;
  edgePurgeUrls: readonly string[];
  cacheTtlSeconds: number;
  formRateLimitPerMinute: number;
  webhookRetryBaseMs: number;
  maxBodyBytes: number;
  poolMax: number;
  seedDemo: boolean;
  workerName: string;
}

function schemaParts(contents?: ContentService, sites?: SiteService, instances: object[] = []): SchemaParts {
  const loaders = new WeakMap<SvcContext, DataLoader<string, Content | null>>();
  return {
    resolvers: [ContentResolver, FormResolver, SiteResolver],
    instances,
    referenceResolvers: {
      Content: {
        __resolveReference(reference: { id: string }, ctx: SvcContext) {
          let loader = loaders.get(ctx);
          if (!loader) loaders.set(ctx, (loader = new DataLoader((ids) => contents!.byIds(ctx.principal, ids))));
          return loader.load(reference.id);
        },
      },
      Site: {
        async __resolveReference(reference: { siteKey: string }, ctx: SvcContext) {
          const [site] = await sites!.bySiteKeys([reference.siteKey]);
          return site && ctx.principal && (ctx.principal.sites === '*' || ctx.principal.sites.includes(site.siteKey)) ? site : null;
        },
      },
    },
  };
}

/** The cms SDL, without any I/O: used for the schema snapshot. */
export async function cmsSdl(): Promise<string> {
  return (await buildSubgraphSdl(schemaParts())).sdl;
}

export interface CmsRuntime {
  server: RunningServer;
  cache: Cache;
  close(): Promise<void>;
}

/** Starts the content subgraph: database, cache, jobs and the GraphQL server. */
export async function startCms(options: CmsOptions, port: number, host: string): Promise<CmsRuntime> {
  const log = options.log;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'cms', entities: CMS_ENTITIES, migrations: CMS_MIGRATIONS, poolMax: options.poolMax, log });
  const cache = createCache({ redisUrl: options.redisUrl, prefix: options.redisPrefix });
  const jobs = await createJobs({ url: options.databaseUrl, name: `${options.workerName}:cms`, log });
  const cmsJobs = createCmsJobs(jobs.agenda, orm, log, options.webhookRetryBaseMs);
  const contents = createContentService({
    orm,
    cache,
    edge: createEdgePurger(options.edgePurgeUrls, log),
    scheduler: cmsJobs.scheduler,
    cacheTtlSeconds: options.cacheTtlSeconds,
    log,
  });
  const forms = createFormService({ orm, cache, webhooks: cmsJobs.webhooks, defaultRateLimitPerMinute: options.formRateLimitPerMinute, log });
  const sites = createSiteService(orm);
  cmsJobs.define(contents);
  await jobs.agenda.start();
  if (options.seedDemo) await seedDemo(orm, log);

  const { schema } = await buildSubgraphSdl(schemaParts(contents, sites, [new ContentResolver(contents), new FormResolver(forms), new SiteResolver(sites)]));
  const subgraph = createSubgraphServer({
    name: 'cms',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    siteKeyFields: ['deliveredContent', 'submitForm'],
    ready: async () => {
      await orm.em.fork().execute('select 1');
      await cache.ping();
    },
  });
  const server = await subgraph.listen(port, host);
  return {
    server,
    cache,
    async close() {
      await server.close();
      await jobs.close();
      await cache.close();
      await orm.close();
    },
  };
}

