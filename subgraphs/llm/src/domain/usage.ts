import type { Usage } from './openai-types.js';

/** One line of the usage ledger: a request, charged or not. */
export interface UsageEntry {
  kind: 'chat' | 'embedding';
  requestedModel: string;
  model?: string;
  deployment?: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  cached: boolean;
  /** `unsettled`: a hold charged in full because its request never settled (its process died). */
  outcome: 'ok' | 'error' | 'aborted' | 'refused' | 'unsettled';
  requestId?: string;
}

/** Usage summed per agent, model and UTC day (refused requests left out). */
export interface UsageRow {
  agentCode: string;
  model: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  cacheHits: number;
}

/** Which usage to sum: one agent or all, `from` inclusive, `to` exclusive. */
export interface UsageFilter {
  agentCode?: string;
  from?: Date;
  to?: Date;
}

const count = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** An upstream's usage when it can be trusted to charge by: whole, non-negative token counts. */
export function trustedUsage(usage: Usage | null | undefined): Usage | undefined {
  if (!usage || !count(usage.prompt_tokens) || !count(usage.completion_tokens)) return undefined;
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}
