import { SvcError } from '@svc/kit';
import { BudgetRefusal, type ChatAnswer, type ModelPort, type ToolCall } from './model.js';
import type { GraphCall } from '../service/graph-call.js';

interface Completion {
  choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[];
  usage?: { total_tokens?: number };
}

/**
 * The model gateway's chat completions (OpenAI wire format, through the router's
 * `chatCompletion`) under the analysis service's own virtual key, so every call the agent
 * makes is metered and budgeted like any other agent's: each call names its job's tenant, and
 * the gateway charges that tenant's share of the agent (`insight:<tenant>`), with its own budget.
 */
export function gatewayModel(deps: { call: GraphCall; apiKey: () => string | undefined; agentCode: string }): ModelPort {
  return {
    async chat(request, tenantId): Promise<ChatAnswer> {
      const key = deps.apiKey();
      if (!key) throw new SvcError('UNAVAILABLE', 'The analysis service has no model gateway key (SVC_INSIGHT_GATEWAY_KEY)');
      let data: { chatCompletion: { completion: Completion; model: string; costUsd?: number | null } };
      try {
        data = await deps.call('InsightChat', { request }, { authorization: `Bearer ${key}`, 'x-svc-tenant-id': tenantId });
      } catch (error) {
        if (error instanceof SvcError && error.code === 'BUDGET_EXCEEDED') throw new BudgetRefusal(`${deps.agentCode}:${tenantId}`, error.message);
        throw error;
      }
      const { completion, model } = data.chatCompletion;
      const message = completion.choices?.[0]?.message ?? {};
      return {
        content: message.content ?? null,
        toolCalls: message.tool_calls ?? [],
        tokens: completion.usage?.total_tokens ?? 0,
        costUsd: typeof data.chatCompletion.costUsd === 'number' ? data.chatCompletion.costUsd : null,
        model,
      };
    },
  };
}
