/**
 * Pure translation between the OpenAI chat wire format and the Anthropic Messages API
 * (https://docs.anthropic.com/en/api/messages), both ways, including streaming.
 *
 * Request (OpenAI → Anthropic):
 * - `system`/`developer` messages, wherever they appear, are joined (blank line between) into
 *   the top-level `system` string.
 * - `user` content becomes text blocks (OpenAI `image_url` parts become `image` blocks: base64
 *   for `data:` URLs, `url` sources otherwise; other part types are dropped); `assistant` content
 *   becomes a text block followed by one `tool_use` block per tool call (arguments parsed as JSON;
 *   arguments that are not a JSON object are wrapped as `{"_raw": "<text>"}`); a `tool` message
 *   becomes a user turn with a `tool_result` block (`tool_use_id` = `tool_call_id`).
 * - Empty text blocks are dropped (Anthropic rejects them), turns left without blocks are
 *   dropped, and consecutive turns of the same role are merged (Anthropic wants alternation).
 * - `max_tokens` is required by Anthropic: the request's, else `DEFAULT_ANTHROPIC_MAX_TOKENS` (4096).
 * - `temperature` is clamped to Anthropic's range 0..1 (OpenAI allows 0..2; values above 1 become 1,
 *   not rescaled). `top_p` is sent when set; `stop` becomes `stop_sequences`.
 * - `tools` become `{name, description, input_schema}` (an object schema without properties when
 *   the tool has none). `tool_choice`: `auto` → `{type:'auto'}`, `required` → `{type:'any'}`,
 *   `{function:{name}}` → `{type:'tool', name}`, `none` → tools and tool_choice omitted, unless the
 *   conversation already contains tool_use/tool_result blocks (Anthropic then requires the tool
 *   definitions), in which case the tools are sent with `{type:'none'}`.
 *
 * Response (Anthropic → OpenAI): text blocks are concatenated into `content` (null when the answer
 * is only tool calls), `tool_use` blocks become `tool_calls` with JSON-stringified arguments,
 * other blocks (thinking, ...) are ignored; `stop_reason` end_turn/stop_sequence/pause_turn → stop,
 * max_tokens → length, tool_use → tool_calls, refusal → content_filter; usage: prompt_tokens =
 * input_tokens + cache creation + cache read input tokens, completion_tokens = output_tokens.
 *
 * Streaming (`AnthropicStreamTranslator`): message_start → a role chunk `{role:'assistant', content:''}`;
 * text deltas → `{content}`; a tool_use block → a `tool_calls` delta with index (0-based among the
 * message's tool calls), id, type and function name, then its `input_json_delta` fragments as
 * `function.arguments`; message_stop → a chunk with an empty delta and the mapped finish_reason,
 * then (when usage was asked for) a chunk with `choices: []` and usage. `ping`, content_block_stop
 * and thinking/signature/citation deltas produce nothing. An `error` event throws an UpstreamError
 * (retryable for overloaded_error, api_error and rate_limit_error).
 */
import {
  UpstreamError,
  textOf,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatMessage,
  type ChunkDelta,
  type FinishReason,
  type ToolCall,
  type UpstreamChatRequest,
  type Usage,
} from '../domain/openai-types.js';

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

// ---------------------------------------------------------------------------------------------
// Anthropic wire types (the subset the gateway uses).
// ---------------------------------------------------------------------------------------------

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export type AnthropicToolChoice = { type: 'auto' } | { type: 'any' } | { type: 'none' } | { type: 'tool'; name: string };

export interface AnthropicRequest {
  model: string;
  messages: AnthropicMessage[];
  max_tokens: number;
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: AnthropicToolChoice;
  stream?: boolean;
}

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface AnthropicResponse {
  id: string;
  type?: 'message';
  role?: 'assistant';
  model?: string;
  content: ({ type: string; text?: string; id?: string; name?: string; input?: unknown } & Record<string, unknown>)[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

export type AnthropicStreamEvent =
  | { type: 'message_start'; message: Partial<AnthropicResponse> & { id: string } }
  | { type: 'content_block_start'; index: number; content_block: { type: string; text?: string; id?: string; name?: string; input?: unknown } }
  | { type: 'content_block_delta'; index: number; delta: { type: string; text?: string; partial_json?: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason?: string | null; stop_sequence?: string | null }; usage?: AnthropicUsage }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: { type: string; message: string } };

// ---------------------------------------------------------------------------------------------
// Request.
// ---------------------------------------------------------------------------------------------

export function toAnthropicRequest(request: UpstreamChatRequest, stream = false): AnthropicRequest {
  const system: string[] = [];
  const turns: AnthropicMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text.trim() !== '') system.push(text);
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }

  const out: AnthropicRequest = {
    model: request.model,
    messages: turns,
    max_tokens: request.max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
  };
  if (system.length > 0) out.system = system.join('\n\n');
  if (Number.isFinite(request.temperature)) out.temperature = Math.min(1, Math.max(0, request.temperature));
  if (request.top_p !== undefined) out.top_p = request.top_p;
  const stops = request.stop === undefined ? [] : (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s !== '');
  if (stops.length > 0) out.stop_sequences = stops;

  if (request.tools && request.tools.length > 0) {
    const tools = request.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    }));
    const choice = request.tool_choice;
    if (choice === 'none') {
      const usesTools = turns.some((t) => t.content.some((b) => b.type === 'tool_use' || b.type === 'tool_result'));
      if (usesTools) {
        out.tools = tools;
        out.tool_choice = { type: 'none' };
      }
    } else {
      out.tools = tools;
      if (choice === 'auto') out.tool_choice = { type: 'auto' };
      else if (choice === 'required') out.tool_choice = { type: 'any' };
      else if (choice !== undefined) out.tool_choice = { type: 'tool', name: choice.function.name };
    }
  }
  if (stream) out.stream = true;
  return out;
}

function blocksOf(message: ChatMessage): AnthropicContentBlock[] {
  if (message.role === 'tool') {
    return [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) }];
  }
  const blocks: AnthropicContentBlock[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else if (content !== null) {
    for (const part of content) {
      if (part.type === 'text' && typeof part.text === 'string' && part.text !== '') blocks.push({ type: 'text', text: part.text });
      else if (part.type === 'image_url') {
        const image = imageBlock(part['image_url']);
        if (image) blocks.push(image);
      }
    }
  }
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
    }
  }
  return blocks;
}

function imageBlock(imageUrl: unknown): AnthropicContentBlock | undefined {
  const url = typeof imageUrl === 'string' ? imageUrl : (imageUrl as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string' || url === '') return undefined;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1]!, data: data[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Fall through.
  }
  return { _raw: text };
}

// ---------------------------------------------------------------------------------------------
// Response.
// ---------------------------------------------------------------------------------------------

export function mapStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn, null/unknown.
      return 'stop';
  }
}

export function toUsage(usage: AnthropicUsage | undefined): Usage {
  const prompt = (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  const completion = usage?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** `created` is passed in (Anthropic has no timestamp) to keep this module pure. */
export function fromAnthropicResponse(response: AnthropicResponse, fallbackModel: string, created: number): ChatCompletion {
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      hasText = true;
    } else if (block.type === 'tool_use') {
      toolCalls.push({ id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  return {
    id: response.id,
    object: 'chat.completion',
    created,
    model: response.model ?? fallbackModel,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: hasText || toolCalls.length === 0 ? text : null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: mapStopReason(response.stop_reason),
        logprobs: null,
      },
    ],
    usage: toUsage(response.usage),
  };
}

// ---------------------------------------------------------------------------------------------
// Streaming.
// ---------------------------------------------------------------------------------------------

export interface StreamTranslatorOptions {
  /** Used until message_start names the model. */
  model: string;
  created: number;
  /** Emit a final `choices: []` chunk with usage. */
  includeUsage: boolean;
}

/** Turns Anthropic stream events, in order, into OpenAI chunks. */
export class AnthropicStreamTranslator {
  private id = '';
  private model: string;
  private readonly created: number;
  private readonly includeUsage: boolean;
  private started = false;
  private stopped = false;
  private stopReason: string | null | undefined;
  private usage: AnthropicUsage = {};
  /** Anthropic content block index → OpenAI tool call index. */
  private readonly toolIndex = new Map<number, number>();

  constructor(options: StreamTranslatorOptions) {
    this.model = options.model;
    this.created = options.created;
    this.includeUsage = options.includeUsage;
  }

  /** True once message_stop has been seen. */
  get done(): boolean {
    return this.stopped;
  }

  /** The chunks for one event; throws an UpstreamError for an `error` event. */
  accept(event: AnthropicStreamEvent): ChatCompletionChunk[] {
    switch (event.type) {
      case 'message_start': {
        this.id = event.message.id ?? this.id;
        if (event.message.model) this.model = event.message.model;
        this.mergeUsage(event.message.usage);
        return this.start();
      }
      case 'content_block_start': {
        const out = this.start();
        const block = event.content_block;
        if (block.type === 'text' && block.text) out.push(this.chunk({ content: block.text }));
        else if (block.type === 'tool_use') {
          const index = this.toolIndex.size;
          this.toolIndex.set(event.index, index);
          out.push(this.chunk({ tool_calls: [{ index, id: block.id ?? '', type: 'function', function: { name: block.name ?? '', arguments: '' } }] }));
        }
        return out;
      }
      case 'content_block_delta': {
        const out = this.start();
        const delta = event.delta;
        if (delta.type === 'text_delta' && delta.text) out.push(this.chunk({ content: delta.text }));
        else if (delta.type === 'input_json_delta' && delta.partial_json) {
          const index = this.toolIndex.get(event.index);
          if (index !== undefined) out.push(this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] }));
        }
        return out;
      }
      case 'message_delta': {
        if (event.delta.stop_reason !== undefined) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        return [];
      }
      case 'message_stop': {
        if (this.stopped) return [];
        const out = this.start();
        this.stopped = true;
        out.push({ ...this.base(), choices: [{ index: 0, delta: {}, finish_reason: mapStopReason(this.stopReason), logprobs: null }] });
        if (this.includeUsage) out.push({ ...this.base(), choices: [], usage: toUsage(this.usage) });
        return out;
      }
      case 'error': {
        const type = event.error?.type ?? 'error';
        const retryable = type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error';
        throw new UpstreamError(`upstream error: ${type}: ${event.error?.message ?? 'no details'}`, undefined, retryable);
      }
      default:
        // ping, content_block_stop, unknown future events.
        return [];
    }
  }

  /** Call when the event stream ended; throws when it ended before message_stop. */
  finish(): void {
    if (!this.stopped) throw new UpstreamError('Anthropic stream ended before message_stop', undefined, true);
  }

  private mergeUsage(usage: AnthropicUsage | undefined): void {
    if (!usage) return;
    for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      const value = usage[key];
      if (typeof value === 'number') this.usage[key] = value;
    }
  }

  private start(): ChatCompletionChunk[] {
    if (this.started) return [];
    this.started = true;
    return [this.chunk({ role: 'assistant', content: '' })];
  }

  private base(): Omit<ChatCompletionChunk, 'choices'> {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model };
  }

  private chunk(delta: ChunkDelta): ChatCompletionChunk {
    return { ...this.base(), choices: [{ index: 0, delta, finish_reason: null, logprobs: null }] };
  }
}

/** Translates a whole event sequence (handy for tests and replay). */
export function translateAnthropicStream(events: Iterable<AnthropicStreamEvent>, options: StreamTranslatorOptions): ChatCompletionChunk[] {
  const translator = new AnthropicStreamTranslator(options);
  const out: ChatCompletionChunk[] = [];
  for (const event of events) out.push(...translator.accept(event));
  translator.finish();
  return out;
}
