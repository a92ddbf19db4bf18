import { openAiErrors, type Logger } from '@svc/kit';
import { parseEmbeddingRequest } from './chat-request.js';
import { costUsd } from '../domain/cost.js';
import { UpstreamError } from '../domain/openai-types.js';
import { estimateTextTokens } from '../domain/tokens.js';
import { upstreamFailure, type ModelRouter } from '../routing/model-router.js';
import type { BudgetService } from './budget-service.js';
import type { AgentCaller } from '../domain/api-key.js';
import type { GatewayMetrics } from './metrics.js';
import { limitScopes, type RateLimiter, type ResponseMeta } from './rate-limiter.js';
import { withDeadline } from './deadline.js';

export interface EmbeddingsResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** `/v1/embeddings`: reserved, charged and recorded like chat (input tokens only). */
export function createEmbeddingService(router: ModelRouter, budgets: BudgetService, metrics: GatewayMetrics, limiter: RateLimiter, log: Logger) {
  return {
    async embed(caller: AgentCaller, body: unknown, requestId?: string, meta?: ResponseMeta): Promise<EmbeddingsResponse> {
      const started = performance.now();
      const { agentCode } = caller;
      const request = parseEmbeddingRequest(body);
      const deployment = router.routeEmbedding(request.model);
      const bound = request.input.reduce((n, s) => n + Buffer.byteLength(s) + 1, 0);
      const ticket = await limiter.admit(limitScopes(caller), () => request.input.reduce((n, s) => n + estimateTextTokens(s), 0), meta);
      let reservation;
      try {
        reservation = await budgets.reserve(agentCode, costUsd(bound, 0, deployment.price), requestId);
      } catch (error) {
        ticket.settle(0);
        throw error;
      }
      let result;
      try {
        result = await withDeadline(120_000, (signal) => deployment.provider.embed(deployment.model, request.input, signal, request.dimensions));
        // Never ignore a parameter silently: a model that cannot give the size asked for is the caller's 400.
        const size = result.vectors[0]?.length;
        if (request.dimensions !== undefined && size !== request.dimensions) {
          throw openAiErrors.invalidRequest(`${deployment.name} returns ${size}-dimensional vectors and cannot give ${request.dimensions}; leave dimensions out or ask a model that supports it`, 'dimensions', 'unsupported_parameter');
        }
      } catch (error) {
        ticket.settle(0);
        budgets.release(reservation, { kind: 'embedding', requestedModel: request.model, promptTokens: 0, completionTokens: 0, costUsd: 0, cached: false, outcome: 'error', requestId });
        log.warn({ err: error, model: request.model }, 'embedding failed');
        throw error instanceof UpstreamError ? upstreamFailure(error) : error;
      }
      const promptTokens = result.promptTokens || request.input.reduce((n, s) => n + estimateTextTokens(s), 0);
      const cost = costUsd(promptTokens, 0, deployment.price);
      ticket.settle(promptTokens);
      budgets.settle(reservation, { kind: 'embedding', requestedModel: request.model, model: deployment.name, deployment: deployment.providerName, promptTokens, completionTokens: 0, costUsd: cost, cached: false, outcome: 'ok', requestId });
      metrics.completed(agentCode, deployment.name, { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens }, cost, (performance.now() - started) / 1000);
      return {
        object: 'list',
        data: result.vectors.map((v, index) => ({ object: 'embedding', index, embedding: request.encoding === 'base64' ? toBase64(v) : v })),
        model: deployment.name,
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      };
    },
  };
}
