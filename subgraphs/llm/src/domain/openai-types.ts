/**
 * The OpenAI wire format as the gateway speaks it (chat completions, streaming chunks,
 * embeddings). Providers translate to and from these shapes.
 */

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ContentPart {
  type: 'text' | string;
  text?: string;
  [key: string]: unknown;
}

export interface ChatMessage {
  role: Role;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

/** What the gateway sends to a provider: already routed, validated and (maybe) PII-masked. */
export interface UpstreamChatRequest {
  /** The provider's own model id. */
  model: string;
  messages: ChatMessage[];
  temperature: number;
  max_tokens?: number;
  top_p?: number;
  stop?: string | string[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  /** Ask the provider for a final usage chunk when streaming. */
  include_usage?: boolean;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | null;

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null }; finish_reason: FinishReason; logprobs?: null }[];
  usage?: Usage;
  system_fingerprint?: string | null;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: (Omit<Partial<ToolCall>, 'function'> & { index: number; function?: { name?: string; arguments?: string } })[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChunkDelta; finish_reason: FinishReason; logprobs?: null }[];
  usage?: Usage | null;
  system_fingerprint?: string | null;
}

export interface EmbeddingResult {
  vectors: number[][];
  promptTokens: number;
}

/** An upstream failure, classified for retries and fallback. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    /** HTTP status from the provider, if it answered. */
    readonly status: number | undefined,
    /** 429, 5xx, timeouts and connection errors: worth trying another deployment. */
    readonly retryable: boolean,
    /** From Retry-After, when the provider sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** One upstream API (OpenAI-compatible endpoint, Anthropic, or the built-in local model). */
export interface Provider {
  readonly kind: 'openai-compatible' | 'anthropic' | 'local';
  chat(request: UpstreamChatRequest, signal: AbortSignal): Promise<ChatCompletion>;
  /** Chunks in OpenAI shape; when `include_usage` is set the last chunk carries `usage` with empty `choices`. */
  chatStream(request: UpstreamChatRequest, signal: AbortSignal): AsyncIterable<ChatCompletionChunk>;
  /** `dimensions`: ask for vectors of that size (providers that cannot give it answer otherwise; the service checks). */
  embed(model: string, input: string[], signal: AbortSignal, dimensions?: number): Promise<EmbeddingResult>;
}

/** Text content of a message, whatever its shape. */
export function textOf(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}
