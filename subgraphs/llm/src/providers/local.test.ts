import { describe, expect, it } from '@jest/globals';
import type { ChatCompletion, ChatCompletionChunk, ChatMessage, ToolDefinition, UpstreamChatRequest } from '../domain/openai-types.js';
import { createLocalProvider, LOCAL_EMBEDDING_DIMENSIONS, promptTokens } from './local.js';

const provider = createLocalProvider();
const signal = new AbortController().signal;

const request = (messages: ChatMessage[], more: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({ model: 'local-model', temperature: 0, messages, ...more });
const user = (content: string): ChatMessage => ({ role: 'user', content });

async function chat(req: UpstreamChatRequest): Promise<ChatCompletion> {
  return provider.chat(req, signal);
}

async function stream(req: UpstreamChatRequest): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const chunk of provider.chatStream(req, signal)) out.push(chunk);
  return out;
}

const contentOf = (c: ChatCompletion): string | null => c.choices[0]!.message.content;

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather and forecast for a city',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer', minimum: 1, maximum: 7 },
        },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_documents',
      description: 'Full-text search over the document store',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for' },
          limit: { type: 'integer', default: 10, maximum: 50 },
          exact: { type: 'boolean' },
          filters: { type: 'object', properties: { language: { type: 'string', default: 'en' }, since: { type: 'string', format: 'date' } } },
        },
      },
    },
  },
];

describe('local provider: plain answers', () => {
  const question = 'What was the revenue trend for ACME Corp in 2024? Please analyse the quarterly revenue numbers.';

  it('summarises the first sentence and the top keywords', async () => {
    const completion = await chat(request([user(question)]));
    expect(contentOf(completion)).toBe('Summary: What was the revenue trend for ACME Corp in 2024. Key points: revenue, trend, acme, corp, analyse.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('local-model');
  });

  it('is deterministic: same input, same completion (ids included)', async () => {
    const req = request([{ role: 'system', content: 'You are an analyst.' }, user(question)]);
    expect(await chat(req)).toEqual(await chat(structuredClone(req)));
    expect(await stream(req)).toEqual(await stream(structuredClone(req)));
    expect((await chat(req)).id).not.toBe((await chat(request([user('Something else entirely.')]))).id);
  });

  it('answers the last user message', async () => {
    const completion = await chat(request([user('First question about apples.'), { role: 'assistant', content: 'ok' }, user('Tell me about pears and more pears.')]));
    expect(contentOf(completion)).toBe('Summary: Tell me about pears and more pears. Key points: pears.');
  });

  it('copes without a user message', async () => {
    expect(contentOf(await chat(request([{ role: 'system', content: 'sys' }])))).toBe('Summary: No user message. Key points: none.');
  });

  it('counts usage with the documented heuristics', async () => {
    const messages = [{ role: 'system' as const, content: 'You are terse.' }, user(question)];
    const completion = await chat(request(messages));
    const expectedPrompt = Math.ceil(14 / 4) + 4 + Math.ceil(question.length / 4) + 4;
    expect(promptTokens({ messages })).toBe(expectedPrompt);
    const words = contentOf(completion)!.split(/\s+/).length;
    expect(completion.usage).toEqual({ prompt_tokens: expectedPrompt, completion_tokens: words, total_tokens: expectedPrompt + words });
  });
});

describe('local provider: max_tokens', () => {
  it('truncates to max_tokens words with finish_reason length', async () => {
    const completion = await chat(request([user('Explain the history of the Roman empire in detail.')], { max_tokens: 4 }));
    expect(contentOf(completion)).toBe('Summary: Explain the history');
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.usage!.completion_tokens).toBe(4);
  });

  it('does not truncate when the answer fits', async () => {
    const full = await chat(request([user('Short one.')]));
    const words = contentOf(full)!.split(' ').length;
    const exact = await chat(request([user('Short one.')], { max_tokens: words }));
    expect(contentOf(exact)).toBe(contentOf(full));
    expect(exact.choices[0]!.finish_reason).toBe('stop');
  });

  it('gives an empty answer for max_tokens 0', async () => {
    const completion = await chat(request([user('Hello there.')], { max_tokens: 0 }));
    expect(contentOf(completion)).toBe('');
    expect(completion.choices[0]!.finish_reason).toBe('length');
  });
});

describe('local provider: JSON mode', () => {
  it('answers valid JSON when the system prompt asks for JSON', async () => {
    const completion = await chat(request([{ role: 'system', content: 'Reply with a JSON object only.' }, user('Compare the revenue of ACME and Globex! Revenue matters.')]));
    const parsed = JSON.parse(contentOf(completion)!) as unknown;
    expect(parsed).toEqual({ summary: 'Compare the revenue of ACME and Globex', keyPoints: ['revenue', 'compare', 'acme', 'globex', 'matters'], confidence: 0.5 });
  });

  it('summarises tool results in JSON too', async () => {
    const completion = await chat(
      request([
        { role: 'developer', content: 'Output json.' },
        user('weather?'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'Sunny, 21 degrees' },
      ]),
    );
    const parsed = JSON.parse(contentOf(completion)!) as { summary: string; keyPoints: string[]; confidence: number };
    expect(parsed.summary).toBe('Result of get_weather: Sunny, 21 degrees. Figures: 21');
    expect(parsed.keyPoints).toEqual(['sunny', 'degrees']);
  });
});

describe('local provider: tool calls', () => {
  it('calls the tool that shares the most words with the user message, filling its schema', async () => {
    const completion = await chat(request([user('What is the weather in city: Berlin for the next 3 days, in fahrenheit?')], { tools }));
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    expect(call.id).toMatch(/^call_[0-9a-f]{8}$/);
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Berlin', unit: 'fahrenheit', days: 3 });
  });

  it('fills an e-mail argument in linear time, even from a long message without one', async () => {
    const contact: ToolDefinition[] = [{ type: 'function', function: { name: 'send_mail', description: 'send mail', parameters: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] } } }];
    const found = await chat(request([user('send mail to ada.l@example.com please')], { tools: contact, tool_choice: 'required' }));
    expect(JSON.parse(found.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({ email: 'ada.l@example.com' });
    // Linear: four times the text takes about four times as long (the old pattern took sixteen
    // times, about 7 s at 80,000 characters). Each size's best of five runs, and their ratio under
    // 10 (between linear's 4 and quadratic's 16), not a wall-clock bound, so a loaded machine does
    // not fail it (CI once took 3.9 s for 0.1 s of work; another run measured 9.8 with best of three).
    const best = async (n: number) => {
      let fastest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await chat(request([user(`send mail ${'a'.repeat(n)}`)], { tools: contact, tool_choice: 'required' }));
        fastest = Math.min(fastest, performance.now() - started);
      }
      return fastest;
    };
    const small = await best(20_000);
    const large = await best(80_000);
    expect(large).toBeLessThan(10 * small + 50);
  });

  it('fills quoted phrases, numbers, defaults, booleans and nested objects', async () => {
    const completion = await chat(request([user('Search the documents for "solar panels" since 2023-05-01 and show 5 results')], { tools }));
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.function.name).toBe('search_documents');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'solar panels', limit: 5, exact: false, filters: { language: 'en', since: '2023-05-01' } });
  });

  it('uses the key phrase, schema defaults and minimums when the message has no values', async () => {
    const weather = await chat(request([user('Weather forecast for Paris please')], { tools }));
    expect(JSON.parse(weather.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({ city: 'weather forecast paris', unit: 'celsius', days: 1 });
    const search = await chat(request([user('search documents about tax law')], { tools }));
    expect(JSON.parse(search.choices[0]!.message.tool_calls![0]!.function.arguments)).toMatchObject({ query: 'search documents tax law', limit: 10 });
  });

  it('answers normally when no tool matches, or tool_choice is none', async () => {
    const unrelated = await chat(request([user('Tell me a joke about cats.')], { tools }));
    expect(unrelated.choices[0]!.finish_reason).toBe('stop');
    expect(contentOf(unrelated)).toMatch(/^Summary: /);
    const none = await chat(request([user('What is the weather in Berlin?')], { tools, tool_choice: 'none' }));
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it('honours a named tool_choice and required', async () => {
    const named = await chat(request([user('What is the weather in Berlin?')], { tools, tool_choice: { type: 'function', function: { name: 'search_documents' } } }));
    expect(named.choices[0]!.message.tool_calls![0]!.function.name).toBe('search_documents');
    const required = await chat(request([user('Tell me a joke about cats.')], { tools, tool_choice: 'required' }));
    expect(required.choices[0]!.message.tool_calls![0]!.function.name).toBe('get_weather');
  });

  it('summarises the tool result instead of calling again', async () => {
    const completion = await chat(
      request(
        [
          user('What is the weather in Berlin?'),
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"city":"Berlin","temperature":21.5,"conditions":"sunny","forecast":[20,19]}' },
        ],
        { tools },
      ),
    );
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(contentOf(completion)).toBe('Result of get_weather: city: Berlin; temperature: 21.5; conditions: sunny; forecast: 2 items. Figures: 21.5, 20, 19.');
  });

  it('quotes the first lines of a text tool result', async () => {
    const completion = await chat(
      request([user('Read it'), { role: 'tool', tool_call_id: 'x', name: 'read_file', content: 'Revenue: 42 million\n\nGrowth 7%\nthird line\nfourth line' }]),
    );
    expect(contentOf(completion)).toBe('Result of read_file: Revenue: 42 million / Growth 7% / third line. Figures: 42, 7%.');
  });
});

describe('local provider: streaming', () => {
  const req = request([user('Summarise the annual report of ACME. It is long.')], { include_usage: true });

  it('follows the OpenAI chunk protocol and matches the non-streaming answer', async () => {
    const chunks = await stream(req);
    const completion = await chat(req);
    expect(chunks[0]!.choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null });
    const body = chunks.slice(1, -2);
    expect(body.length).toBe(contentOf(completion)!.split(' ').length);
    expect(body.every((c) => typeof c.choices[0]!.delta.content === 'string' && c.choices[0]!.finish_reason === null)).toBe(true);
    expect(body.map((c) => c.choices[0]!.delta.content).join('')).toBe(contentOf(completion));
    expect(chunks.at(-2)!.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', logprobs: null });
    expect(chunks.at(-1)).toEqual({ id: completion.id, object: 'chat.completion.chunk', created: 0, model: 'local-model', choices: [], usage: completion.usage });
    expect(chunks.every((c) => c.id === completion.id && c.object === 'chat.completion.chunk')).toBe(true);
  });

  it('omits the usage chunk unless asked', async () => {
    const chunks = await stream({ ...req, include_usage: false });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it('streams a tool call as tool_calls deltas', async () => {
    const toolReq = request([user('What is the weather in city: Berlin?')], { tools });
    const completion = await chat(toolReq);
    const chunks = await stream(toolReq);
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(chunks[1]!.choices[0]!.delta).toEqual({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: 'get_weather', arguments: '' } }] });
    const args = chunks.slice(2, -1).map((c) => c.choices[0]!.delta.tool_calls![0]!.function!.arguments).join('');
    expect(args).toBe(call.function.arguments);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('ends with finish_reason length when truncated', async () => {
    const chunks = await stream(request([user('One two three four five six seven.')], { max_tokens: 3 }));
    expect(chunks.slice(1, -1).map((c) => c.choices[0]!.delta.content)).toEqual(['Summary:', ' One', ' two']);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length');
  });

  it('stops with an AbortError when the caller aborts', async () => {
    const controller = new AbortController();
    const seen: ChatCompletionChunk[] = [];
    await expect(
      (async () => {
        for await (const chunk of provider.chatStream(req, controller.signal)) {
          seen.push(chunk);
          if (seen.length === 2) controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(2);
    await expect(provider.chat(req, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('local provider: embeddings', () => {
  it('returns one normalised 384-dimensional vector per input, deterministically', async () => {
    const result = await provider.embed('any-model', ['solar panels on the roof', '', 'solar panel roofs'], signal);
    expect(LOCAL_EMBEDDING_DIMENSIONS).toBe(384);
    expect(result.vectors).toHaveLength(3);
    expect(result.vectors.every((v) => v.length === 384)).toBe(true);
    expect(Math.hypot(...result.vectors[0]!)).toBeCloseTo(1, 10);
    expect(result.vectors[1]!.every((x) => x === 0)).toBe(true);
    expect(result.promptTokens).toBe(Math.ceil(24 / 4) + 0 + Math.ceil(17 / 4));
    expect((await provider.embed('other', ['solar panels on the roof'], signal)).vectors[0]).toEqual(result.vectors[0]);
  });
});
