import { buildSubgraphSdl, type Cache, closeDatabase, createSubgraphServer, type Logger, openDatabase, type RunningServer, type SchemaParts, type SessionRevocations, type SvcContext, type TokenVerifier } from '@svc/kit';
import { openAnalysisRuntime, type AnalysisRuntime, type AnalysisSettings } from './analysis-runtime.js';
import { jobEventsRoute } from './http/job-events-route.js';
import { ActionResolver } from './schema/action-resolver.js';
import { AuthResolver } from './schema/auth-resolver.js';
import { callerOf } from './schema/caller.js';
import { CatalogResolver } from './schema/catalog-resolver.js';
import { JobResolver } from './schema/job-resolver.js';
import { MetricResolver } from './schema/metric-resolver.js';
import { SettingsResolver } from './schema/settings-resolver.js';
import { UserResolver } from './schema/user-resolver.js';
import { actionView, jobView } from './schema/views.js';
import { createAccountService } from './service/account-service.js';
import { createLoginThrottle, type LoginThrottleSettings } from './service/login-throttle.js';
import { createManageUsers } from './service/manage-users.js';
import { createAccountStore } from './store/account-store.js';
import { createPgAttemptGates } from './store/login-throttle-store.js';
import { INSIGHT_ENTITIES } from './store/entities.js';
import { INSIGHT_MIGRATIONS } from './store/migrations.js';

export interface InsightOptions {
  databaseUrl: string;
  verifier: TokenVerifier;
  log: Logger;
  jwtSecret?: string;
  tokenTtlSeconds: number;
  adminUsername: string;
  adminPassword: string;
  /** Redis (REDIS_URL) or this process's cache: the login throttle uses it on Redis, PostgreSQL otherwise. */
  sharedCache: Cache;
  sessions: SessionRevocations;
  /** SVC_JWT_MAX_LIFETIME_SECONDS. */
  maxTokenLifetimeSeconds: number;
  loginThrottle: LoginThrottleSettings;
  maxBodyBytes: number;
  poolMax: number;
  analysis: Omit<AnalysisSettings, 'databaseUrl' | 'jwtSecret'>;
}

function parts(runtime?: AnalysisRuntime, instances: object[] = []): SchemaParts {
  return {
    resolvers: [AuthResolver, UserResolver, JobResolver, ActionResolver, MetricResolver, SettingsResolver, CatalogResolver],
    instances,
    referenceResolvers: {
      InsightJob: {
        async __resolveReference(reference: { jobId: string }, ctx: SvcContext) {
          return jobView(await runtime!.jobs.get(ctx, reference.jobId));
        },
      },
      ActionProposal: {
        async __resolveReference(reference: { actionId: string }, ctx: SvcContext) {
          return actionView(await runtime!.actions.get(ctx, reference.actionId));
        },
      },
    },
  };
}

export async function insightSdl(): Promise<string> {
  return (await buildSubgraphSdl(parts())).sdl;
}

/** What an analysis worker process needs: the database and the analysis settings. */
export interface AnalysisWorkerOptions {
  databaseUrl: string;
  log: Logger;
  poolMax: number;
  jwtSecret?: string;
  analysis: Omit<AnalysisSettings, 'databaseUrl' | 'jwtSecret' | 'inProcessWorker' | 'seedDemo'>;
}

/** A worker process (`svc worker`) that runs analysis jobs and executes approved actions; it serves nothing. */
export async function startAnalysisWorker(options: AnalysisWorkerOptions): Promise<{ close(): Promise<void> }> {
  const { log } = options;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'insight', entities: INSIGHT_ENTITIES, migrations: INSIGHT_MIGRATIONS, poolMax: options.poolMax, log });
  const runtime = await openAnalysisRuntime(orm, { ...options.analysis, databaseUrl: options.databaseUrl, jwtSecret: options.jwtSecret, inProcessWorker: true, seedDemo: false }, log);
  log.info({ worker: options.analysis.workerName, lockLifetimeMs: options.analysis.lockLifetimeMs }, 'analysis worker started');
  return {
    async close() {
      await runtime.close();
      await closeDatabase(orm, log);
    },
  };
}

/** The analysis subgraph: accounts and login, analysis jobs, proposed actions, metrics. */
export async function startInsight(options: InsightOptions, port: number, host: string): Promise<{ server: RunningServer; close(): Promise<void> }> {
  const { log } = options;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'insight', entities: INSIGHT_ENTITIES, migrations: INSIGHT_MIGRATIONS, poolMax: options.poolMax, log });
  const accountStore = createAccountStore(orm);
  // Throttle state shared by every instance: Redis when configured, else the database (the in-process cache is one process only).
  const gates = options.sharedCache.kind === 'redis' ? options.sharedCache : createPgAttemptGates(orm);
  const throttle = createLoginThrottle({ gates, settings: options.loginThrottle, log });
  const accounts = createAccountService({
    accounts: accountStore, throttle, sessions: options.sessions, log, jwtSecret: options.jwtSecret, tokenTtlSeconds: options.tokenTtlSeconds, maxLifetimeSeconds: options.maxTokenLifetimeSeconds,
    configuredAdmin: options.adminUsername,
  });
  await accounts.ensureAdmin(options.adminUsername, options.adminPassword);
  await accounts.republishEndedSessions();
  const manageUsers = createManageUsers({ accounts: accountStore, sessions: options.sessions, log, configuredAdmin: options.adminUsername });
  const runtime = await openAnalysisRuntime(orm, { ...options.analysis, databaseUrl: options.databaseUrl, jwtSecret: options.jwtSecret }, log);
  const toolContext = (ctx: SvcContext) => runtime.toolContext(callerOf(ctx));
  const { schema } = await buildSubgraphSdl(
    parts(runtime, [
      new AuthResolver(accounts), new UserResolver(manageUsers), new JobResolver(runtime.jobs, runtime.actions), new ActionResolver(runtime.actions),
      new MetricResolver(runtime.metrics, toolContext), new SettingsResolver(runtime.settings), new CatalogResolver(runtime.catalog, runtime.timeline),
    ]),
  );
  const server = await createSubgraphServer({
    name: 'insight',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    publicFields: ['issueAccessToken'],
    routes: [jobEventsRoute({ jobs: runtime.jobs, verifier: options.verifier, log })],
    ready: async () => {
      await orm.em.fork().execute('select 1');
    },
  }).listen(port, host);
  return {
    server,
    async close() {
      await server.close();
      await runtime.close();
      await closeDatabase(orm, log);
    },
  };
}
