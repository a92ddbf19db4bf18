import { buildSubgraphSdl, closeDatabase, SvcError, createCache, createJobs, createOutboundHttp, createSubgraphServer, batchedReference, type Logger, openDatabase, type RunningSubgraph, type SchemaParts, sendJson, type TokenVerifier } from '@svc/kit';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { Price } from './domain/cost.js';
import { ownerOf } from './domain/agent-owner.js';
import { resolveGatewayConfig } from './domain/gateway-config.js';
import { createProvider } from './providers/factory.js';
import { createModelRouter } from './routing/model-router.js';
import { AgentLimitsResolver, GatewayResolver } from './schema/gateway-resolver.js';
import { createAlertDelivery } from './service/alert-delivery.js';
import { createAlertUrlCheck } from './service/alert-url-check.js';
import { createBudgetService } from './service/budget-service.js';
import { createAgentAccess } from './service/agent-access.js';
import { createCallerCheck } from './service/caller-check.js';
import { createChatService } from './service/chat-service.js';
import { createEmbeddingService } from './service/embedding-service.js';
import type { GatewayServices } from './service/gateway-services.js';
import { createKeyService } from './service/key-service.js';
import { createGatewayMetrics } from './service/metrics.js';
import { createRateLimiter } from './service/rate-limiter.js';
import { openAiHandler, openAiRoutes, type OpenAiHandler } from './http/openai-routes.js';
import { createAlertStore } from './store/alert-store.js';
import { createAgentStore } from './store/agent-store.js';
import { createBudgetStore } from './store/budget-store.js';
import { createKeyStore } from './store/key-store.js';
import { createLeaseStore } from './store/lease-store.js';
import { seedDemo } from './service/seed-demo.js';
import { LLM_MIGRATIONS } from './store/migrations.js';
import { createRedisRateWindows } from './store/rate-window-redis.js';
import { createMemoryRateWindows } from './store/rate-window-store.js';
import { createUsageStore } from './store/usage-store.js';
import { createBudgetAlertJob } from './worker/budget-alert.js';
import { startExpiredLeaseSweep } from './worker/charge-expired-leases.js';

export interface LlmOptions {
  databaseUrl: string;
  redisUrl?: string;
  redisPrefix: string;
  verifier: TokenVerifier;
  log: Logger;
  masterKey: string;
  webhookSecret: string;
  configFile?: string;
  llmBaseUrl?: string;
  llmApiKey?: string;
  llmModelName?: string;
  defaultPrice: Price;
  cacheTtlSeconds: number;
  alertRetryBaseMs: number;
  /** SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: non-public hosts budget alert URLs may reach. */
  outboundAllow: readonly string[];
  maxBodyBytes: number;
  compiledExecution?: boolean;
  poolMax: number;
  workerName: string;
  /** How long a crashed instance's budget leases hold money before the sweep charges them, s. */
  leaseTtlSeconds: number;
  /** SVCLLM_TENANT_SHARE_BUDGET_USD: a platform agent's share for one tenant starts with this hard monthly budget. Default 25. */
  tenantShareBudgetUsd?: number;
  env: Record<string, string | undefined>;
  /** Seed the embedded demo's agent and its spend this month (SVC_SEED_DEMO, default in embedded mode). */
  seedDemo?: boolean;
}

function parts(services?: GatewayServices): SchemaParts {
  return {
    resolvers: [GatewayResolver, AgentLimitsResolver],
    instances: services ? [new GatewayResolver(services), new AgentLimitsResolver(services)] : [],
    referenceResolvers: {
      Agent: {
        // The request's references together (kit reference-loader.ts): who may read what is decided once, and the agents with their budgets and owners are read in one statement.
        __resolveReference: batchedReference('Agent', (r: { code: string }) => r.code, async (ctx, codes) => {
          // People and the master key by owner (agent-access.ts); an agent's key sees its own agent only.
          const readable = await services!.access.readableOwners(ctx).catch(() => undefined);
          // An agent that exists but is another owner's is FORBIDDEN (not a null: the referencing field says why it is empty).
          const agents = new Map<string, object | SvcError>();
          for (const [code, agent] of await services!.budgets.agents(codes)) {
            const { tenantId, managedBy } = agent.budget;
            const visible = readable?.(ownerOf(tenantId, managedBy === 'TENANT')) || (!ctx.principal && (await services!.callers.keySeesAgent(ctx, code)));
            agents.set(code, visible ? agent : new SvcError('FORBIDDEN', `Agent ${JSON.stringify(code)} is not yours to read`));
          }
          return agents;
        }),
      },
    },
  };
}

export async function llmSdl(): Promise<string> {
  return (await buildSubgraphSdl(parts())).sdl;
}

/** The model gateway subgraph: routing, budgets, keys, cache, PII masking, metrics and the SSE route. */
export interface LlmRuntime {
  server: RunningSubgraph;
  /** The OpenAI paths' handler, for a bridge in the same process (no socket). */
  openAi: OpenAiHandler;
  /** A fresh key for an in-process service's agent; earlier keys of that name are revoked. */
  issueServiceKey(agentCode: string, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startLlm(options: LlmOptions, port: number, host: string): Promise<LlmRuntime> {
  const { log } = options;
  const gateway = resolveGatewayConfig({
    configFile: options.configFile,
    configText: options.configFile ? await readFile(options.configFile, 'utf8') : undefined,
    llmBaseUrl: options.llmBaseUrl,
    llmApiKey: options.llmApiKey,
    llmModelName: options.llmModelName,
    defaultPrice: options.defaultPrice,
    env: options.env,
  });
  log.info({ models: gateway.models.map((m) => `${m.name}@${m.provider}`), aliases: gateway.aliases }, 'model gateway routing table');
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'llm', entities: [], migrations: LLM_MIGRATIONS, poolMax: options.poolMax, log });
  const cache = createCache({ redisUrl: options.redisUrl, prefix: options.redisPrefix, log });
  const jobs = await createJobs({ url: options.databaseUrl, name: `${options.workerName}:llm`, log });
  const alertJob = createBudgetAlertJob(jobs.agenda);
  // Lease renewals have a connection of their own: under load they never wait behind settlements.
  const renewals = new pg.Pool({ connectionString: options.databaseUrl, max: 1, connectionTimeoutMillis: 5000 });
  renewals.on('error', (error) => log.warn({ reason: error.message }, 'lease renewal connection lost; reconnecting on the next renewal'));
  const alertStore = createAlertStore(orm);
  const budgetStores = { budgets: createBudgetStore(orm), usage: createUsageStore(orm), alerts: alertStore, leases: createLeaseStore(orm, { ttlMs: options.leaseTtlSeconds * 1000, renewals }) };
  const budgets = createBudgetService(budgetStores, alertJob.queue, log, { instance: options.workerName });
  if (options.seedDemo) await seedDemo(budgetStores.budgets, log);
  const metrics = createGatewayMetrics(() => budgets.list());
  const router = createModelRouter(gateway, createProvider);
  const keys = createKeyService(createKeyStore(orm), options.masterKey, log);
  const agents = createAgentStore(orm);
  const callers = createCallerCheck(keys, agents, { tenantShareBudgetUsd: options.tenantShareBudgetUsd ?? 25 });
  const outbound = createOutboundHttp({ allow: options.outboundAllow });
  const alertDelivery = createAlertDelivery(alertStore, outbound, options.webhookSecret, options.alertRetryBaseMs, log);
  // Rate windows in Redis are shared by every instance on it; without Redis they are this process's.
  const limiter = createRateLimiter(options.redisUrl ? createRedisRateWindows(options.redisUrl, options.redisPrefix, log) : createMemoryRateWindows(), log);
  const created = Math.floor(Date.now() / 1000);
  const services: GatewayServices = {
    chat: createChatService({ router, budgets, cache, cacheTtlSeconds: options.cacheTtlSeconds, metrics, limiter, log }),
    embeddings: createEmbeddingService(router, budgets, metrics, limiter, log),
    budgets,
    alertUrls: createAlertUrlCheck(outbound),
    keys,
    callers,
    access: createAgentAccess(agents, keys),
    modelList: () => ({
      object: 'list',
      data: ['auto-route', 'fast-track', 'deep-reasoning', ...router.chatModelNames(), ...router.embeddingModelNames()].map((id) => ({ id, object: 'model', created, owned_by: 'svc-platform' })),
    }),
  };
  alertJob.define(alertDelivery);
  await jobs.agenda.start();
  const stopSweep = await startExpiredLeaseSweep(budgets, Math.min(60_000, options.leaseTtlSeconds * 1000), log);

  const { schema } = await buildSubgraphSdl(parts(services));
  const openAi = openAiHandler(services, options.maxBodyBytes, log);
  const server = await createSubgraphServer({
    name: 'llm',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    compiledExecution: options.compiledExecution,
    isOwnCredential: keys.isGatewayCredential,
    routes: [
      ...openAiRoutes(openAi),
      {
        method: 'GET',
        path: '/metrics',
        async handle(req, res) {
          const caller = await callers.tryIdentify(req);
          if (caller?.kind !== 'master') return sendJson(res, 401, { error: 'GET /metrics needs Authorization: Bearer <SVCLLM_MASTER_KEY>' });
          res.setHeader('content-type', metrics.registry.contentType);
          res.end(await metrics.registry.metrics());
        },
      },
    ],
    ready: async () => {
      await orm.em.fork().execute('select 1');
      // The cache is optional: without it the service degrades (see the README's failure table).
      return { postgres: 'up', redis: await cache.ping().then(() => 'up', () => 'down (degraded)') };
    },
  }).listen(port, host);
  return {
    server,
    openAi,
    async issueServiceKey(agentCode, name) {
      for (const old of await keys.list(agentCode)) if (old.name === name && !old.revokedAt) await keys.revoke(old.id);
      return (await keys.create(agentCode, name)).key;
    },
    async close() {
      stopSweep();
      await server.close();
      await budgets.drain();
      await renewals.end();
      await jobs.close();
      await outbound.close();
      await cache.close();
      await limiter.close();
      await closeDatabase(orm, log);
    },
  };
}
