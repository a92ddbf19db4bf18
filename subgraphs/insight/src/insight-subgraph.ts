import { buildSubgraphSdl, type Cache, closeDatabase, createJobs, createOutboundHttp, createRouterClient, createSubgraphServer, issueToken, loadOperations, type Logger, type MikroORM, nativeSql, openDatabase, type Principal, type RunningSubgraph, type SchemaParts, type SessionRevocations, SvcError, type SvcContext, type TokenVerifier } from '@svc/kit';
import type { JobStepWriter } from './agent/run-job.js';
import type { Job } from './domain/job-records.js';
import { jobEventsRoute } from './http/job-events-route.js';
import { metricImportRoute } from './http/metric-import-route.js';
import { createImportMetrics, type ImportMetrics } from './service/import-metrics.js';
import { createMetricImportStore } from './store/metric-import-store.js';
import { ActionResolver } from './schema/action-resolver.js';
import { AuthResolver } from './schema/auth-resolver.js';
import { callerOf } from './schema/caller.js';
import { CatalogResolver } from './schema/catalog-resolver.js';
import { JobResolver } from './schema/job-resolver.js';
import { actionTargetType } from './schema/job-types.js';
import { MetricResolver } from './schema/metric-resolver.js';
import { SettingsResolver } from './schema/settings-resolver.js';
import { UserResolver } from './schema/user-resolver.js';
import { actionView, jobView } from './schema/views.js';
import { createAccountService } from './service/account-service.js';
import { createTargetCheck } from './service/target-check.js';
import { createActionService, type ActionService } from './service/action-proposals.js';
import { createAnalysisService } from './service/analysis.js';
import { threadAnalytics } from './service/analytics-pool.js';
import { createExternalActions, type OperatorWebhookSettings } from './service/external-actions.js';
import { createForecastingService, type ForecastingService } from './service/forecasting.js';
import { gatewayModel } from './agent/gateway-model.js';
import type { GraphCall } from './service/graph-call.js';
import { graphReads } from './service/graph-reads.js';
import { createSettingsService, type SettingsService } from './service/insight-settings.js';
import { createJobService, type JobService } from './service/jobs.js';
import { createLoginThrottle, type LoginThrottleSettings } from './service/login-throttle.js';
import { createManageUsers } from './service/manage-users.js';
import { createCatalogService, type CatalogService } from './service/metric-catalog.js';
import { createMetricService, type MetricService } from './service/metrics.js';
import { createNoticeDelivery, type ReviewWebhook } from './service/review-notices.js';
import { seedDemo } from './service/seed-demo.js';
import type { Caller, MetricSourceAdapter } from './service/sources/metric-source.js';
import { eventTargets } from './service/sources/event-targets.js';
import { platformEvents } from './service/sources/platform-events.js';
import { platformSource } from './service/sources/platform-source.js';
import { prometheusSource } from './service/sources/prometheus-source.js';
import { storeSource } from './service/sources/store-source.js';
import { createTimelineService, type TimelineService } from './service/timeline.js';
import { createAccountStore } from './store/account-store.js';
import { createActionStore } from './store/action-store.js';
import { createDefinitionStore } from './store/definition-store.js';
import { INSIGHT_ENTITIES } from './store/entities.js';
import { createEventStore } from './store/event-store.js';
import { createExternalStore } from './store/external-store.js';
import { createJobStore } from './store/job-store.js';
import { createPgAttemptGates } from './store/login-throttle-store.js';
import { createMetricStore } from './store/metric-store.js';
import { INSIGHT_MIGRATIONS } from './store/migrations.js';
import { createNoticeStore } from './store/notice-store.js';
import { createSettingsStore } from './store/settings-store.js';
import type { ToolContext } from './tools/tool.js';
import { createAnalysisQueue } from './worker/analysis-queue.js';
import { defineDeliverExternalAction } from './worker/deliver-external-action.js';
import { createActionExecutor, defineExecuteApprovedAction } from './worker/execute-approved-action.js';
import { defineNotifyReviewers } from './worker/notify-reviewers.js';
import { defineRunAnalysisJob } from './worker/run-analysis-job.js';
import { defineSweepOverdue } from './worker/sweep-overdue.js';

/**
 * The insight subgraph's one wiring file: stores → services → resolvers → server, and the
 * background jobs of worker/ registered on agenda. `startInsight` serves the subgraph (with an
 * in-process worker by default); `startAnalysisWorker` is a worker process (`svc worker`).
 */

/** Settings of the analysis service (its config slice's values). */
export interface AnalysisSettings {
  databaseUrl: string;
  workerName: string;
  /** DB_POOL_MAX: the analysis reads at most a third of it at once. Default 10. */
  poolMax?: number;
  /** Run analysis jobs in this process (a worker); default true. */
  inProcessWorker: boolean;
  concurrency: number;
  lockLifetimeMs: number;
  maxSteps: number;
  /** SVC_INSIGHT_MAX_LEAVES: labelled series of one metric an analysis drills into. */
  maxLeaves: number;
  timeoutMs: number;
  actionTtlHours: number;
  /** Sweep interval (expiry, re-queueing lost work), ms. */
  sweepMs: number;
  /** Model the agent asks for (LLM_MODEL_NAME, default auto-route). */
  modelName: string;
  /** Prompts go to the gateway with piiStrict. */
  piiStrict: boolean;
  seedDemo: boolean;
  /** The router's GraphQL URL; read when needed. */
  routerUrl: () => string;
  /** The analysis service's gateway key (agent `insight`); read when needed. */
  gatewayKey: () => string | undefined;
  /** Signs the short-lived service tokens work runs under (SVC_JWT_SECRET). */
  jwtSecret?: string | undefined;
  /** Prometheus base URL (SVC_PROMETHEUS_URL): lookups also read its series. */
  prometheusUrl?: string | undefined;
  /** Tenants that may read the Prometheus series (SVC_PROMETHEUS_TENANTS). */
  prometheusTenants?: readonly string[] | '*' | undefined;
  /** Where new proposals are announced to reviewers (signed, retried); none by default. */
  reviewWebhook?: ReviewWebhook | undefined;
  /** Retries of the tenants' operator webhooks (EXTERNAL actions). */
  operatorWebhook: OperatorWebhookSettings;
  /** SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: non-public hosts operator webhooks may reach. */
  outboundAllow: readonly string[];
}

interface AnalysisRuntime {
  jobs: JobService;
  actions: ActionService;
  metrics: MetricService;
  /** What the tenant's metrics mean; `catalog.catalogEntries(caller)` is the engine's catalog. */
  catalog: CatalogService;
  /** The tenant's and the platform's events; `timeline.eventsBetween(caller, from, to)` is the engine's events. */
  timeline: TimelineService;
  forecasting: ForecastingService;
  settings: SettingsService;
  /** Bulk import of a CSV or NDJSON file of points (POST /api/v1/insight/metrics/import). */
  importMetrics: ImportMetrics;
  /** The tools' context for a request's caller (resolvers, the MCP server's `insightTool`). */
  toolContext(caller: Caller): ToolContext;
  close(): Promise<void>;
}

const SERVICE_TOKEN_TTL_SECONDS = 300;

/**
 * The analysis service's parts: stores, services, the router client it calls the graph with,
 * and (with `inProcessWorker`) the agenda worker that runs jobs and executes actions.
 */
async function openAnalysisRuntime(orm: MikroORM, settings: AnalysisSettings, log: Logger): Promise<AnalysisRuntime> {
  const operations = await loadOperations();
  const router = createRouterClient({ url: settings.routerUrl, operations, timeoutMs: 120_000 });
  const call: GraphCall = (operation, variables, headers) => router.execute(operation, variables, { headers });
  const mintToken = async (principal: Principal) => {
    if (!settings.jwtSecret) throw new SvcError('UNAVAILABLE', 'The analysis service needs SVC_JWT_SECRET to act for people in other services');
    return (await issueToken(settings.jwtSecret, principal, SERVICE_TOKEN_TTL_SECONDS)).accessToken;
  };

  const metricStore = createMetricStore(orm);
  const jobStore = createJobStore(orm);
  const actionStore = createActionStore(orm);
  const noticeStore = createNoticeStore(orm);
  const settingsStore = createSettingsStore(orm);
  const outbound = createOutboundHttp({ allow: settings.outboundAllow });
  const webhook = settings.reviewWebhook;
  // The platform's figures are read with the caller's own credential, or, in a job (no request
  // in hand), with a short-lived token acting for the requester with the requester's rights
  // narrowed to the job's tenant; either way for that one tenant.
  const callerHeaders = async (caller: Caller): Promise<Record<string, string>> =>
    caller.headers.authorization
      ? { ...caller.headers, 'x-svc-tenant-id': caller.tenantId }
      : {
          authorization: `Bearer ${await mintToken({ subject: 'svc:insight', actor: caller.principal.subject, roles: caller.principal.roles, tenants: [caller.tenantId], sites: caller.principal.sites })}`,
          'x-svc-tenant-id': caller.tenantId,
        };
  const sources: MetricSourceAdapter[] = [storeSource(metricStore), platformSource({ call, headers: callerHeaders }), ...(settings.prometheusUrl ? [prometheusSource({ baseUrl: settings.prometheusUrl, log, tenants: settings.prometheusTenants ?? [] })] : [])];
  const definitionStore = createDefinitionStore(orm);
  const metrics = createMetricService({ store: metricStore, sources, definitions: definitionStore });
  const catalog = createCatalogService({ definitions: definitionStore, metrics });
  const timeline = createTimelineService({ store: createEventStore(orm), platform: platformEvents({ call, headers: callerHeaders, log }) });
  const analytics = threadAnalytics();
  const forecasting = createForecastingService({ metrics, analytics });
  // The engine reads the tenant's declared catalog and its events (stored and the platform's own).
  const analysis = createAnalysisService({
    metrics,
    analytics,
    catalog: (caller) => catalog.catalogEntries(caller),
    events: (caller, from, to) => timeline.eventsBetween(caller, from, to),
    targets: eventTargets({ call, headers: callerHeaders, log }).read,
    // A third of the pool (at least 1, at most 6): step writes and other requests keep connections.
    parallelReads: Math.max(1, Math.min(6, Math.floor((settings.poolMax ?? 10) / 3))),
    maxLeaves: settings.maxLeaves,
  });
  if (settings.seedDemo) await seedDemo(metricStore, definitionStore, log);

  const jobsAgenda = await createJobs({ url: settings.databaseUrl, name: `${settings.workerName}:insight`, log, lockLifetimeMs: settings.lockLifetimeMs });
  const queue = createAnalysisQueue(jobsAgenda.agenda);
  // Everything a tool reads, it reads for one tenant: the request's, or the job's.
  const toolContext = (caller: Caller, job?: Job): ToolContext => ({
    caller,
    metrics,
    forecasting,
    analysis,
    graph: graphReads({ call, mintToken, authority: { ...(job?.authority ?? { subject: caller.principal.subject, roles: caller.principal.roles, sites: caller.principal.sites }), tenants: [caller.tenantId] }, tenantId: caller.tenantId }),
    now: Date.now,
  });
  const writer: JobStepWriter = {
    steps: (id) => jobStore.steps(id),
    appendStep: (id, seq, step) => jobStore.appendStep(id, seq, step),
    get: (id) => jobStore.get(id),
    async complete(id, report, proposed, finalSeq) {
      const ids = await jobStore.complete(id, report, proposed, finalSeq, { ttlHours: settings.actionTtlHours, notifyReviewers: !!webhook });
      // The notice is already stored; if queueing it fails the sweep queues it later.
      if (webhook && ids?.length) await queue.enqueueNotice(id).catch((error: unknown) => log.warn({ jobId: id, err: error }, 'could not queue the reviewer notice; the sweep will'));
      return ids;
    },
    end: (id, status, error, finalSeq) => jobStore.end(id, status, error, finalSeq),
  };
  const external = createExternalActions({
    settings: settingsStore, outbox: createExternalStore(orm), actions: actionStore, outbound, webhook: settings.operatorWebhook, log,
    enqueue: (actionId) => queue.enqueueDelivery(actionId),
  });
  if (settings.inProcessWorker) {
    // The background jobs this process runs (worker/): registered before agenda starts.
    const { agenda } = jobsAgenda;
    const workerSettings = { workerName: settings.workerName, lockLifetimeMs: settings.lockLifetimeMs, concurrency: settings.concurrency, requeueAfterMs: settings.sweepMs, sweepMs: settings.sweepMs };
    defineRunAnalysisJob(agenda, {
      jobs: jobStore,
      run: {
        store: writer,
        workerName: settings.workerName,
        model: gatewayModel({ call, apiKey: settings.gatewayKey, agentCode: 'insight' }),
        modelName: settings.modelName,
        agentCode: 'insight',
        tools: (job) => {
          const principal: Principal = { subject: job.owner, roles: job.authority.roles, tenants: [job.tenantId], sites: job.authority.sites };
          return toolContext({ principal, tenantId: job.tenantId, headers: {} }, job);
        },
        limits: { maxSteps: settings.maxSteps, timeoutMs: settings.timeoutMs, maxExtraCalls: 3 },
        siteKey: (job) => onlyOne(job.authority.sites) ?? 'demo',
        log,
      },
      settings: workerSettings,
      log,
    });
    defineExecuteApprovedAction(agenda, { actions: actionStore, execute: createActionExecutor({ call, mintToken, log }), external, settings: workerSettings, log });
    if (webhook) defineNotifyReviewers(agenda, createNoticeDelivery({ notices: noticeStore, actions: actionStore, webhook, log }));
    defineDeliverExternalAction(agenda, external);
    const sweep = defineSweepOverdue(agenda, { jobs: jobStore, actions: actionStore, notices: webhook ? noticeStore : undefined, external, queue, settings: workerSettings, log });
    await agenda.start();
    await sweep.startSweeps();
  }
  const jobs = createJobService({ store: jobStore, queue, piiStrict: () => settings.piiStrict });
  // Whether proposals' targets still exist, asked of their subgraphs with the reader's credential (target-check.ts).
  const targets = createTargetCheck({ actions: actionStore, call: (operation, variables, headers) => router.raw(operation, variables, { headers }), log });
  const actions = createActionService({ actions: actionStore, jobs: jobStore, queue, targets });
  const tenantSettings = createSettingsService({ store: settingsStore, outbound, log });
  return {
    jobs,
    actions,
    metrics,
    catalog,
    timeline,
    forecasting,
    settings: tenantSettings,
    importMetrics: createImportMetrics({ store: createMetricImportStore(nativeSql(orm)), log }),
    toolContext: (caller) => toolContext(caller),
    async close() {
      await jobsAgenda.close();
      await outbound.close();
      await router.close();
      await analytics.close();
    },
  };
}

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
  compiledExecution?: boolean;
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
      // Synchronous: type-graphql's resolveType is async, a promise for every action's target (50 a page of actions).
      ActionTarget: { __resolveType: actionTargetType },
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
  const runtime = await openAnalysisRuntime(orm, { ...options.analysis, databaseUrl: options.databaseUrl, jwtSecret: options.jwtSecret, poolMax: options.poolMax, inProcessWorker: true, seedDemo: false }, log);
  log.info({ worker: options.analysis.workerName, lockLifetimeMs: options.analysis.lockLifetimeMs }, 'analysis worker started');
  return {
    async close() {
      await runtime.close();
      await closeDatabase(orm, log);
    },
  };
}

/** The analysis subgraph: accounts and login, analysis jobs, proposed actions, metrics. */
export async function startInsight(options: InsightOptions, port: number, host: string): Promise<{ server: RunningSubgraph; close(): Promise<void> }> {
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
  const runtime = await openAnalysisRuntime(orm, { ...options.analysis, databaseUrl: options.databaseUrl, jwtSecret: options.jwtSecret, poolMax: options.poolMax }, log);
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
    compiledExecution: options.compiledExecution,
    publicFields: ['issueAccessToken'],
    routes: [jobEventsRoute({ jobs: runtime.jobs, verifier: options.verifier, log }), metricImportRoute({ importMetrics: runtime.importMetrics, verifier: options.verifier, log })],
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

function onlyOne(scope: readonly string[] | '*'): string | undefined {
  return scope !== '*' && scope.length === 1 ? scope[0] : undefined;
}

