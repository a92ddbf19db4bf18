import { openAiErrors, type SvcError } from '@svc/kit';
import type { ChatMessage, ToolChoice, ToolDefinition } from './openai-types.js';

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

/** Largest max_tokens accepted; a deployment's own limit applies on top. */
export const MAX_TOKENS_LIMIT = 128_000;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** A request error; without a code its details still say `openaiCode: null`, as GraphQL clients see them. */
export function invalid(message: string, param: string | null, code: string | null = null): SvcError {
  return openAiErrors.invalidRequest(message, param, code);
}

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** A content part: an object with a string `type`; text parts carry `text`, image parts `image_url.url`. */
function checkContentPart(part: unknown, param: string): void {
  if (!isObject(part) || typeof part.type !== 'string') throw invalid(`${param} must be a content part object with a string type; got ${JSON.stringify(part)}`, param);
  if (part.type === 'text' && typeof part.text !== 'string') throw invalid(`${param}.text must be a string`, `${param}.text`);
  if (part.type === 'image_url' && !(isObject(part.image_url) && typeof part.image_url.url === 'string')) throw invalid(`${param}.image_url.url must be a string`, `${param}.image_url.url`);
}

function checkToolCall(call: unknown, param: string): void {
  if (!isObject(call) || typeof call.id !== 'string') throw invalid(`${param} must be an object with a string id; got ${JSON.stringify(call)}`, param);
  const fn = call.function;
  if (!isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') throw invalid(`${param}.function must have a string name and string arguments`, `${param}.function`);
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function checkTools(value: unknown): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid('tools must be an array', 'tools');
  value.forEach((tool, i) => {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) throw invalid(`tools[${i}] must be {type: "function", function: {name, ...}}; got ${JSON.stringify(tool)}`, `tools[${i}]`);
    const { name, parameters } = tool.function;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) throw invalid(`tools[${i}].function.name must be 1-64 letters, digits, _ or -; got ${JSON.stringify(name)}`, `tools[${i}].function.name`);
    if (parameters !== undefined && !isObject(parameters)) throw invalid(`tools[${i}].function.parameters must be a JSON Schema object`, `tools[${i}].function.parameters`);
  });
  return value.length ? (value as ToolDefinition[]) : undefined;
}

function checkStop(value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length <= 4 && value.every((v) => typeof v === 'string')) return value as string[];
  throw invalid(`stop must be a string or an array of up to 4 strings; got ${JSON.stringify(value)}`, 'stop');
}

function checkToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'none' || value === 'auto' || value === 'required') return value;
  if (isObject(value) && value.type === 'function' && isObject(value.function) && typeof value.function.name === 'string') return value as ToolChoice;
  throw invalid(`tool_choice must be "none", "auto", "required" or {type: "function", function: {name}}; got ${JSON.stringify(value)}`, 'tool_choice');
}

function checkMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('messages must be a non-empty array', 'messages');
  value.forEach((m, i) => {
    if (!m || typeof m !== 'object') throw invalid(`messages[${i}] must be an object`, `messages[${i}]`);
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role)) throw invalid(`messages[${i}].role must be one of system, developer, user, assistant, tool; got ${JSON.stringify(role)}`, `messages[${i}].role`);
    const hasToolCalls = Array.isArray((m as { tool_calls?: unknown }).tool_calls);
    const ok = typeof content === 'string' || Array.isArray(content) || (content === null && (role === 'assistant' || hasToolCalls)) || (content === undefined && hasToolCalls);
    if (!ok) throw invalid(`messages[${i}].content must be a string or an array of content parts`, `messages[${i}].content`);
    if (Array.isArray(content)) content.forEach((part, j) => checkContentPart(part, `messages[${i}].content[${j}]`));
    const toolCalls = (m as { tool_calls?: unknown }).tool_calls;
    if (toolCalls !== undefined && toolCalls !== null) {
      if (!Array.isArray(toolCalls)) throw invalid(`messages[${i}].tool_calls must be an array`, `messages[${i}].tool_calls`);
      toolCalls.forEach((call, j) => checkToolCall(call, `messages[${i}].tool_calls[${j}]`));
    }
    if (role === 'tool' && typeof (m as { tool_call_id?: unknown }).tool_call_id !== 'string') throw invalid(`messages[${i}].tool_call_id is required for tool messages`, `messages[${i}].tool_call_id`);
  });
  return value.map((m) => ({ ...(m as ChatMessage), content: (m as ChatMessage).content ?? null }));
}

function optionalInteger(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`, name);
  }
  return value;
}

/** Validates an OpenAI chat completion body; every error names the offending parameter and value. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('The request body must be a JSON object', null);
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model.trim()) throw invalid('model is required: auto-route, fast-track, deep-reasoning or a model name', 'model');
  const messages = checkMessages(b.messages);
  const temperature = b.temperature ?? 0.7;
  if (typeof temperature !== 'number' || Number.isNaN(temperature) || temperature < 0 || temperature > 2) {
    throw invalid(`temperature must be a number from 0.0 to 2.0; got ${JSON.stringify(b.temperature)}`, 'temperature');
  }
  const maxTokens = optionalInteger(b, 'max_completion_tokens', 1, MAX_TOKENS_LIMIT) ?? optionalInteger(b, 'max_tokens', 1, MAX_TOKENS_LIMIT);
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') throw invalid(`stream must be a boolean; got ${JSON.stringify(b.stream)}`, 'stream');
  const streamOptions = b.stream_options as { include_usage?: unknown } | undefined | null;
  if (b.top_p !== undefined && (typeof b.top_p !== 'number' || b.top_p < 0 || b.top_p > 1)) throw invalid(`top_p must be a number from 0 to 1; got ${JSON.stringify(b.top_p)}`, 'top_p');
  if (b.n !== undefined && b.n !== null && b.n !== 1) throw invalid(`n must be 1: this gateway answers one choice per request; got ${JSON.stringify(b.n)}`, 'n', 'unsupported_parameter');
  const tools = checkTools(b.tools);
  const toolChoice = checkToolChoice(b.tool_choice);
  const stop = checkStop(b.stop);
  const options = (b.svcllm_options ?? {}) as Record<string, unknown>;
  if (typeof options !== 'object' || Array.isArray(options)) throw invalid('svcllm_options must be an object', 'svcllm_options');
  for (const name of ['cacheBypass', 'piiStrict']) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') throw invalid(`svcllm_options.${name} must be a boolean; got ${JSON.stringify(options[name])}`, `svcllm_options.${name}`);
  }
  return {
    model: b.model.trim(),
    messages,
    temperature,
    max_tokens: maxTokens,
    stream: b.stream === true,
    include_usage: streamOptions?.include_usage === true,
    tools,
    tool_choice: toolChoice,
    stop,
    top_p: b.top_p as number | undefined,
    cacheBypass: options.cacheBypass === true,
    piiStrict: options.piiStrict === true,
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
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('The request body must be a JSON object', null);
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model.trim()) throw invalid('model is required', 'model');
  const input = typeof b.input === 'string' ? [b.input] : b.input;
  if (!Array.isArray(input) || input.length === 0 || input.length > 2048 || !input.every((s) => typeof s === 'string')) {
    throw invalid('input must be a string or an array of 1 to 2048 strings', 'input');
  }
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64') {
    throw invalid(`encoding_format must be "float" or "base64"; got ${JSON.stringify(b.encoding_format)}`, 'encoding_format');
  }
  if (b.dimensions !== undefined && b.dimensions !== null && (typeof b.dimensions !== 'number' || !Number.isInteger(b.dimensions) || b.dimensions < 1 || b.dimensions > 8192)) {
    throw invalid(`dimensions must be a whole number from 1 to 8192; got ${JSON.stringify(b.dimensions)}`, 'dimensions');
  }
  return { model: b.model.trim(), input: input as string[], encoding: b.encoding_format === 'base64' ? 'base64' : 'float', ...(typeof b.dimensions === 'number' ? { dimensions: b.dimensions } : {}) };
}
