import { describe, expect, it } from '@jest/globals';
import { UpstreamError, type ChatCompletionChunk, type ToolDefinition, type UpstreamChatRequest } from '../domain/openai-types.js';
import {
  AnthropicStreamTranslator,
  fromAnthropicResponse,
  mapStopReason,
  toAnthropicRequest,
  translateAnthropicStream,
  type AnthropicStreamEvent,
} from './anthropic-translate.js';

const request = (more: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({
  model: 'claude-x',
  temperature: 0.2,
  messages: [{ role: 'user', content: 'Hi' }],
  ...more,
});

const weatherTool: ToolDefinition = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('toAnthropicRequest', () => {
  it('translates a plain conversation with defaults', () => {
    expect(toAnthropicRequest(request())).toEqual({
      model: 'claude-x',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      max_tokens: 4096,
      temperature: 0.2,
    });
  });

  it('joins system and developer messages into system, wherever they are', () => {
    const out = toAnthropicRequest(
      request({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
          { role: 'user', content: 'Hi' },
          { role: 'system', content: 'No emojis.' },
        ],
      }),
    );
    expect(out.system).toBe('Be brief.\n\nAnswer in English.\n\nNo emojis.');
    expect(out.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('merges consecutive turns of the same role and drops empty ones', () => {
    const out = toAnthropicRequest(
      request({
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: [{ type: 'text', text: 'two' }, { type: 'text', text: '' }] },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'three' },
          { role: 'assistant', content: 'four' },
        ],
      }),
    );
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }, { type: 'text', text: 'three' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'four' }] },
    ]);
  });

  it('turns assistant tool calls into tool_use blocks and tool messages into user tool_result blocks', () => {
    const out = toAnthropicRequest(
      request({
        messages: [
          { role: 'user', content: 'Weather in Berlin and Paris?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: 'not json' } },
              { id: 'call_3', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '21 °C' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '18 °C' }] },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [weatherTool],
      }),
    );
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Berlin and Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Berlin' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { _raw: 'not json' } },
          { type: 'tool_use', id: 'call_3', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '21 °C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '18 °C' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('translates image parts', () => {
    const out = toAnthropicRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
              { type: 'input_audio', input_audio: {} },
            ],
          },
        ],
      }),
    );
    expect(out.messages[0]!.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('maps max_tokens, clamps temperature to 0..1, and passes top_p and stop sequences', () => {
    expect(toAnthropicRequest(request({ max_tokens: 100, temperature: 1.7, top_p: 0.9, stop: 'END' }))).toMatchObject({
      max_tokens: 100,
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['END'],
    });
    expect(toAnthropicRequest(request({ temperature: -1, stop: ['a', '', 'b'] }))).toMatchObject({ temperature: 0, stop_sequences: ['a', 'b'] });
    const plain = toAnthropicRequest(request({ stop: [] }));
    expect(plain).not.toHaveProperty('stop_sequences');
    expect(plain).not.toHaveProperty('top_p');
    expect(plain).not.toHaveProperty('system');
    expect(plain).not.toHaveProperty('tools');
  });

  it('translates tools and every tool_choice', () => {
    const tools = [weatherTool, { type: 'function' as const, function: { name: 'now' } }];
    const expectedTools = [
      { name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.function.parameters },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ];
    const unset = toAnthropicRequest(request({ tools }));
    expect(unset.tools).toEqual(expectedTools);
    expect(unset).not.toHaveProperty('tool_choice');
    expect(toAnthropicRequest(request({ tools, tool_choice: 'auto' })).tool_choice).toEqual({ type: 'auto' });
    expect(toAnthropicRequest(request({ tools, tool_choice: 'required' })).tool_choice).toEqual({ type: 'any' });
    expect(toAnthropicRequest(request({ tools, tool_choice: { type: 'function', function: { name: 'now' } } })).tool_choice).toEqual({ type: 'tool', name: 'now' });
  });

  it('omits tools for tool_choice none, unless the conversation already uses tools', () => {
    const none = toAnthropicRequest(request({ tools: [weatherTool], tool_choice: 'none' }));
    expect(none).not.toHaveProperty('tools');
    expect(none).not.toHaveProperty('tool_choice');
    const withHistory = toAnthropicRequest(
      request({
        tools: [weatherTool],
        tool_choice: 'none',
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c', content: 'sunny' },
        ],
      }),
    );
    expect(withHistory.tools).toHaveLength(1);
    expect(withHistory.tool_choice).toEqual({ type: 'none' });
  });

  it('sets stream when asked', () => {
    expect(toAnthropicRequest(request(), true).stream).toBe(true);
    expect(toAnthropicRequest(request())).not.toHaveProperty('stream');
  });
});

describe('fromAnthropicResponse', () => {
  it('translates a text answer', () => {
    const completion = fromAnthropicResponse(
      { id: 'msg_1', model: 'claude-x-2025', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: ' there' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 3 } },
      'fallback',
      1700000000,
    );
    expect(completion).toEqual({
      id: 'msg_1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'claude-x-2025',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
  });

  it('translates tool_use blocks into tool calls with JSON arguments', () => {
    const completion = fromAnthropicResponse(
      {
        id: 'msg_2',
        content: [
          { type: 'thinking', thinking: '...' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Berlin' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 10 },
      },
      'fallback',
      0,
    );
    expect(completion.model).toBe('fallback');
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } }] },
      finish_reason: 'tool_calls',
      logprobs: null,
    });
    expect(completion.usage).toEqual({ prompt_tokens: 115, completion_tokens: 7, total_tokens: 122 });
  });

  it('maps every stop reason', () => {
    expect(mapStopReason('end_turn')).toBe('stop');
    expect(mapStopReason('stop_sequence')).toBe('stop');
    expect(mapStopReason('max_tokens')).toBe('length');
    expect(mapStopReason('tool_use')).toBe('tool_calls');
    expect(mapStopReason('refusal')).toBe('content_filter');
    expect(mapStopReason(null)).toBe('stop');
  });
});

const opts = { model: 'claude-x', created: 42, includeUsage: false };

const textEvents: AnthropicStreamEvent[] = [
  { type: 'message_start', message: { id: 'msg_s', model: 'claude-x-2025', content: [], stop_reason: null, usage: { input_tokens: 25, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' world' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 15 } },
  { type: 'message_stop' },
];

const deltas = (chunks: ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta);

describe('AnthropicStreamTranslator', () => {
  it('translates a text stream into the OpenAI chunk protocol', () => {
    const chunks = translateAnthropicStream(textEvents, opts);
    expect(chunks.every((c) => c.id === 'msg_s' && c.object === 'chat.completion.chunk' && c.created === 42 && c.model === 'claude-x-2025')).toBe(true);
    expect(deltas(chunks)).toEqual([{ role: 'assistant', content: '' }, { content: 'Hello' }, { content: ' world' }, {}]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null, null, 'length']);
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it('adds a usage chunk with empty choices when asked', () => {
    const chunks = translateAnthropicStream(textEvents, { ...opts, includeUsage: true });
    expect(chunks.at(-1)).toEqual({ id: 'msg_s', object: 'chat.completion.chunk', created: 42, model: 'claude-x-2025', choices: [], usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 } });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('length');
  });

  it('translates tool_use blocks into tool_calls deltas', () => {
    const events: AnthropicStreamEvent[] = [
      { type: 'message_start', message: { id: 'msg_t', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Ber' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'lin"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'now', input: {} } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } },
      { type: 'message_stop' },
    ];
    const chunks = translateAnthropicStream(events, opts);
    expect(chunks[0]?.model).toBe('claude-x');
    expect(deltas(chunks)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Let me check.' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "Ber' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'lin"}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'now', arguments: '' } }] },
      {},
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('ignores thinking deltas', () => {
    const events: AnthropicStreamEvent[] = [
      textEvents[0]!,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
      { type: 'message_stop' },
    ];
    expect(deltas(translateAnthropicStream(events, opts))).toEqual([{ role: 'assistant', content: '' }, {}]);
  });

  it('throws an UpstreamError for an error event, retryable for overload and api errors', () => {
    const fail = (type: string): UpstreamError => {
      const translator = new AnthropicStreamTranslator(opts);
      translator.accept(textEvents[0]!);
      try {
        translator.accept({ type: 'error', error: { type, message: 'boom' } });
      } catch (error) {
        expect(error).toBeInstanceOf(UpstreamError);
        return error as UpstreamError;
      }
      throw new Error('no error thrown');
    };
    expect(fail('overloaded_error')).toMatchObject({ retryable: true, status: undefined });
    expect(fail('api_error').retryable).toBe(true);
    expect(fail('invalid_request_error').retryable).toBe(false);
    expect(fail('overloaded_error').message).toContain('boom');
  });

  it('throws a retryable UpstreamError when the stream ends before message_stop', () => {
    let caught: unknown;
    try {
      translateAnthropicStream(textEvents.slice(0, 4), opts);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    expect((caught as UpstreamError).retryable).toBe(true);
  });
});
