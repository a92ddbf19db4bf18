/** The model gateway as the agent sees it: OpenAI chat completions under the agent's own key. */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  response_format?: { type: 'json_object' };
  max_tokens?: number;
  temperature?: number;
  svcllm_options?: { piiStrict?: boolean; cacheBypass?: boolean };
}

export interface ChatAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  tokens: number;
  /** USD charged, when the gateway says. */
  costUsd: number | null;
  model: string;
}

export interface ModelPort {
  /** One model call for a job of `tenantId`: the gateway charges that tenant's share of the analysis agent's budget. */
  chat(request: ChatRequest, tenantId: string): Promise<ChatAnswer>;
}

/** The gateway refused for money: the job fails with the agent and what is left. */
export class BudgetRefusal extends Error {
  constructor(readonly agentCode: string, message: string) {
    super(message);
    this.name = 'BudgetRefusal';
  }
}
