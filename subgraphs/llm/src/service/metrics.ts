import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Usage } from '../domain/openai-types.js';

/** Prometheus metrics of the gateway (GET /metrics on the llm subgraph, master key required). */
export function createGatewayMetrics(budgetRemaining: () => Promise<{ agentCode: string; remainingUsd: number; allocatedUsd: number }[]>) {
  const registry = new Registry();
  const requests = new Counter({ name: 'svcllm_requests_total', help: 'Chat and embedding requests by agent, model and outcome', labelNames: ['agent', 'model', 'outcome'], registers: [registry] });
  const latency = new Histogram({ name: 'svcllm_request_duration_seconds', help: 'Time from request to last byte', labelNames: ['model'], buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry] });
  const tokens = new Counter({ name: 'svcllm_tokens_total', help: 'Tokens charged, by agent, model and direction', labelNames: ['agent', 'model', 'direction'], registers: [registry] });
  const spend = new Counter({ name: 'svcllm_spend_usd_total', help: 'USD charged', labelNames: ['agent', 'model'], registers: [registry] });
  const cacheHits = new Counter({ name: 'svcllm_cache_hits_total', help: 'Responses served from the cache', labelNames: ['agent'], registers: [registry] });
  const fallbacks = new Counter({ name: 'svcllm_fallbacks_total', help: 'Deployments that failed and were skipped', labelNames: ['deployment'], registers: [registry] });
  new Gauge({
    name: 'svcllm_budget_remaining_usd',
    help: 'Allocated minus spent minus held, this month',
    labelNames: ['agent'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const b of await budgetRemaining()) this.set({ agent: b.agentCode }, b.remainingUsd);
    },
  });
  return {
    registry,
    request: (agent: string, model: string, outcome: string) => requests.inc({ agent, model, outcome }),
    completed(agent: string, model: string, usage: Usage, costUsd: number, seconds: number, outcome = 'ok') {
      requests.inc({ agent, model, outcome });
      latency.observe({ model }, seconds);
      tokens.inc({ agent, model, direction: 'prompt' }, usage.prompt_tokens);
      tokens.inc({ agent, model, direction: 'completion' }, usage.completion_tokens);
      spend.inc({ agent, model }, costUsd);
    },
    cacheHit: (agent: string) => {
      cacheHits.inc({ agent });
      requests.inc({ agent, model: 'cache', outcome: 'ok' });
    },
    fallback: (deployment: string) => fallbacks.inc({ deployment }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
