import type { BudgetService } from './budget-service.js';
import type { ChatService } from './chat-service.js';
import type { createEmbeddingService } from './embedding-service.js';
import type { KeyService } from './key-service.js';
import type { Agent } from '../schema/types.js';

/** Everything the llm resolvers and HTTP routes use, wired once in llm-subgraph.ts. */
export interface GatewayServices {
  chat: ChatService;
  embeddings: ReturnType<typeof createEmbeddingService>;
  budgets: BudgetService;
  keys: KeyService;
  modelList(): Record<string, unknown>;
  /** An agent with its budget and this month's usage, or null when unknown. */
  agentView(code: string): Promise<Agent | null>;
}
