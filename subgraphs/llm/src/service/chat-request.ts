import { describeIssue, openAiErrors, paramOf, primaryIssue, type SvcError } from '@svc/kit';
import type { z } from 'zod';
import { chatRequestSchema, embeddingRequestSchema, PARAMETER_CODES } from '../contract.js';
import type { ChatMessage, ToolChoice, ToolDefinition } from '../domain/openai-types.js';

/** A validated chat completion request. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** 0.0 to 2.0; default 0.7. */
  temperature: number;
  max_tokens?: number;
  stream: boolean;
  include_usage: boolean;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  stop?: string | string[];
  top_p?: number;
  /** Skip the cache lookup (the fresh answer is still stored). Default false. */
  cacheBypass: boolean;
  /** Mask personal data before anything leaves the gateway. Default false. */
  piiStrict: boolean;
}

/** A request error; without a code its details still say `openaiCode: null`, as GraphQL clients see them. */
export function invalid(message: string, param: string | null, code: string | null = null): SvcError {
  return openAiErrors.invalidRequest(message, param, code);
}

/** Parses a body with one of the contract's schemas, or throws a 400 naming the first bad parameter and its value. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = primaryIssue(parsed.error);
  const param = paramOf(issue.path);
  throw invalid(describeIssue(issue, body), param, (param && PARAMETER_CODES[param]) ?? null);
}

/** Validates an OpenAI chat completion body (the contract's chatRequestSchema); every error names the offending parameter and value. */
export function parseChatRequest(body: unknown): ChatRequest {
  const b = parseBody(chatRequestSchema, body);
  return {
    model: b.model,
    messages: b.messages.map((m) => ({ ...m, content: m.content ?? null }) as ChatMessage),
    temperature: b.temperature ?? 0.7,
    max_tokens: b.max_completion_tokens ?? b.max_tokens ?? undefined,
    stream: b.stream === true,
    include_usage: b.stream_options?.include_usage === true,
    tools: b.tools?.length ? (b.tools as ToolDefinition[]) : undefined,
    tool_choice: (b.tool_choice ?? undefined) as ToolChoice | undefined,
    stop: b.stop ?? undefined,
    top_p: b.top_p ?? undefined,
    cacheBypass: b.svcllm_options?.cacheBypass === true,
    piiStrict: b.svcllm_options?.piiStrict === true,
  };
}

export interface EmbeddingRequest {
  model: string;
  input: string[];
  /** `base64` (little-endian float32, the OpenAI SDK's default) or `float`. */
  encoding: 'float' | 'base64';
  /** Ask the model for vectors of this size (models that support it); others answer 400 naming it. */
  dimensions?: number;
}

export function parseEmbeddingRequest(body: unknown): EmbeddingRequest {
  const b = parseBody(embeddingRequestSchema, body);
  return { model: b.model, input: typeof b.input === 'string' ? [b.input] : b.input, encoding: b.encoding_format === 'base64' ? 'base64' : 'float', ...(typeof b.dimensions === 'number' ? { dimensions: b.dimensions } : {}) };
}
