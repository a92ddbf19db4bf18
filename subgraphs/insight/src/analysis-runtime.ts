import { createJobs, createOutboundHttp, createRouterClient, issueToken, loadOperations, seededRandom, SvcError, type Logger, type MikroORM, type Principal } from '@svc/kit';
import { demoStory } from '@svc/kit/demo-story';
import type { JobStepWriter } from './agent/run-job.js';
import { DEMO_DEFINITIONS, demoSeries } from './domain/demo-series.js';
import type { Job } from './domain/job-records.js';
import { createActionService, type ActionService } from './service/actions.js';
import { createAnalysisService } from './service/analysis.js';
import { createAnalysisWorker } from './service/analysis-worker.js';
import { createActionExecutor } from './service/execute-action.js';
import { createExternalActions, type OperatorWebhookSettings } from './service/external-actions.js';
import { createSettingsService, type SettingsService } from './service/insight-settings.js';
import { threadAnalytics } from './service/analytics-pool.js';
import { createForecastingService, type ForecastingService } from './service/forecasting.js';
import { gatewayModel } from './service/gateway-model.js';
import type { GraphCall } from './service/graph-call.js';
import { graphReads } from './service/graph-reads.js';
import { createJobService, type JobService } from './service/jobs.js';
import { createCatalogService, type CatalogService } from './service/metric-catalog.js';
import { createMetricService, type MetricService } from './service/metrics.js';
import { createNoticeDelivery, type ReviewWebhook } from './service/review-notices.js';
import { eventTargets } from './service/sources/event-targets.js';
import { platformEvents } from './service/sources/platform-events.js';
import { platformSource } from './service/sources/platform-source.js';
import { prometheusSource } from './service/sources/prometheus-source.js';
import { storeSource } from './service/sources/store-source.js';
import type { Caller, MetricSourceAdapter } from './service/sources/metric-source.js';
import { createTimelineService, type TimelineService } from './service/timeline.js';
import { createDefinitionStore, type DefinitionStore } from './store/definition-store.js';
import { createEventStore } from './store/event-store.js';
import { createActionStore } from './store/action-store.js';
import { createExternalStore } from './store/external-store.js';
import { createJobStore } from './store/job-store.js';
import { createMetricStore, type MetricStore } from './store/metric-store.js';
import { createNoticeStore } from './store/notice-store.js';
import { createSettingsStore } from './store/settings-store.js';
import type { ToolContext } from './tools/tool.js';

/** Settings of the analysis service (its config slice's values). */
export interface AnalysisSettings {
  databaseUrl: string;
  workerName: string;
  /** Run analysis jobs in this process (a worker); default true. */
  inProcessWorker: boolean;
  concurrency: number;
  lockLifetimeMs: number;
  maxSteps: number;
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

export interface AnalysisRuntime {
  jobs: JobService;
  actions: ActionService;
  metrics: MetricService;
  /** What the tenant's metrics mean; `catalog.catalogEntries(caller)` is the engine's catalog. */
  catalog: CatalogService;
  /** The tenant's and the platform's events; `timeline.eventsBetween(caller, from, to)` is the engine's events. */
  timeline: TimelineService;
  forecasting: ForecastingService;
  settings: SettingsService;
  /** The tools' context for a request's caller (resolvers, the MCP server's `insightTool`). */
  toolContext(caller: Caller): ToolContext;
  close(): Promise<void>;
}

const DEMO_SEED = 42;
/** The demo shop's figures belong to tenant `demo`, as its content belongs to site `demo`. */
export const DEMO_TENANT = 'demo';
const SERVICE_TOKEN_TTL_SECONDS = 300;

/**
 * The analysis service's parts: stores, services, the router client it calls the graph with,
 * and (with `inProcessWorker`) the agenda worker that runs jobs and executes actions.
 */
export async function openAnalysisRuntime(orm: MikroORM, settings: AnalysisSettings, log: Logger): Promise<AnalysisRuntime> {
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
  });
  if (settings.seedDemo) await seedDemo(metricStore, definitionStore, log);

  const jobsAgenda = await createJobs({ url: settings.databaseUrl, name: `${settings.workerName}:insight`, log, lockLifetimeMs: settings.lockLifetimeMs });
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
      if (webhook && ids?.length) await worker.enqueueNotice(id).catch((error: unknown) => log.warn({ jobId: id, err: error }, 'could not queue the reviewer notice; the sweep will'));
      return ids;
    },
    end: (id, status, error, finalSeq) => jobStore.end(id, status, error, finalSeq),
  };
  const worker = createAnalysisWorker({
    agenda: jobsAgenda.agenda,
    jobs: jobStore,
    actions: actionStore,
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
    execute: createActionExecutor({ call, mintToken, log }),
    external: createExternalActions({
      settings: settingsStore, outbox: createExternalStore(orm), actions: actionStore, outbound, webhook: settings.operatorWebhook, log,
      enqueue: (actionId) => worker.enqueueDelivery(actionId),
    }),
    notices: webhook ? { store: noticeStore, delivery: createNoticeDelivery({ notices: noticeStore, actions: actionStore, webhook, log }) } : undefined,
    settings: { workerName: settings.workerName, lockLifetimeMs: settings.lockLifetimeMs, concurrency: settings.concurrency, requeueAfterMs: settings.sweepMs, sweepMs: settings.sweepMs },
    log,
  });
  if (settings.inProcessWorker) {
    worker.define();
    await jobsAgenda.agenda.start();
    await worker.startSweeps();
  }
  const jobs = createJobService({ store: jobStore, queue: worker, piiStrict: () => settings.piiStrict });
  const actions = createActionService({ actions: actionStore, jobs: jobStore, queue: worker });
  const tenantSettings = createSettingsService({ store: settingsStore, outbound, log });
  return {
    jobs,
    actions,
    metrics,
    catalog,
    timeline,
    forecasting,
    settings: tenantSettings,
    toolContext: (caller) => toolContext(caller),
    async close() {
      await jobsAgenda.close();
      await outbound.close();
      await router.close();
      await analytics.close();
    },
  };
}

/**
 * The demo shop: its series when the demo tenant has none, and its definitions when it has none.
 * A demo seeded before definitions existed lacks series its definitions name (orders): its demo
 * series are then seeded again, once (the definitions written with them mark it done).
 */
async function seedDemo(metricStore: MetricStore, definitionStore: DefinitionStore, log: Logger): Promise<void> {
  const now = new Date();
  // The story's falls, on the days the cms seed publishes the page versions behind them.
  const story = demoStory(now);
  const fresh = () => demoSeries(now, seededRandom(DEMO_SEED), { conversionFrom: story.pricingChange, signupsFrom: story.newsletterChange });
  if (await metricStore.isEmpty(DEMO_TENANT)) {
    log.info(await metricStore.ingest(DEMO_TENANT, fresh()), 'seeded the demo business metrics');
  } else if (await definitionStore.isEmpty(DEMO_TENANT)) {
    const present = new Set((await metricStore.names(DEMO_TENANT)).map((s) => s.name));
    const series = fresh();
    if (series.some((s) => !present.has(s.name))) {
      for (const name of new Set(series.map((s) => s.name))) await metricStore.remove(DEMO_TENANT, name, {});
      log.info(await metricStore.ingest(DEMO_TENANT, series), 'seeded the demo business metrics again (the seed gained series)');
    }
  }
  if (await definitionStore.isEmpty(DEMO_TENANT)) {
    for (const d of DEMO_DEFINITIONS) await definitionStore.put(DEMO_TENANT, 'seed', d.name, d.definition);
    log.info({ definitions: DEMO_DEFINITIONS.length }, 'seeded the demo business metric definitions');
  }
}

function onlyOne(scope: readonly string[] | '*'): string | undefined {
  return scope !== '*' && scope.length === 1 ? scope[0] : undefined;
}

