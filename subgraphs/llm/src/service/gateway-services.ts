import type { AgentAccess } from './agent-access.js';
import type { AlertUrlCheck } from './alert-url-check.js';
import type { BudgetService } from './budget-service.js';
import type { CallerCheck } from './caller-check.js';
import type { ChatService } from './chat-service.js';
import type { createEmbeddingService } from './embedding-service.js';
import type { KeyService } from './key-service.js';

/** Everything the llm resolvers and HTTP routes use, wired once in llm-subgraph.ts. */
/** GET /v1/models: the aliases, then every configured chat and embedding model. */
export interface ModelList {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
}

export interface GatewayServices {
  chat: ChatService;
  embeddings: ReturnType<typeof createEmbeddingService>;
  budgets: BudgetService;
  alertUrls: AlertUrlCheck;
  keys: KeyService;
  callers: CallerCheck;
  /** Who administers and reads which agent (agent-access.ts). */
  access: AgentAccess;
  modelList(): ModelList;
}
