import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { answerFor, startFakeAnthropic, startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * The model gateway as the official `openai` SDK sees it: the SDK talks to the REST bridge
 * (`/v1`), the gateway routes to local fake providers (two OpenAI-compatible, one Anthropic)
 * standing for the outside world, so every test can check both what the client got and what
 * the upstream received.
 */

type FakeOpenAi = Awaited<ReturnType<typeof startFakeOpenAi>>;
type FakeAnthropic = Awaited<ReturnType<typeof startFakeAnthropic>>;
type SvcOptions = { cacheBypass?: boolean; piiStrict?: boolean };

const AGENT = 'sdk-agent';
const BROKE_AGENT = 'sdk-broke';
const ANTHROPIC_KEY = 'fake-anthropic-key-for-sdk-tests';

let platform: TestPlatform;
let primary: FakeOpenAi;
let backup: FakeOpenAi;
let anthropic: FakeAnthropic;
let agentKey: string;
let client: OpenAI;

const admin = (path: string, json?: unknown) =>
  call(`${platform.bridge}${path}`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, ...(json !== undefined ? { json } : {}) });

/** The SDK forwards unknown body properties as they are; svcllm_options is the gateway's extension. */
function withSvc<P extends OpenAI.ChatCompletionCreateParams>(params: P, svcllm_options: SvcOptions): P {
  return { ...params, svcllm_options } as P;
}

const user = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];
const chatCalls = (fake: FakeOpenAi) => fake.calls.filter((c) => c.path.startsWith('/v1/chat/completions'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<{ chunks: OpenAI.ChatCompletionChunk[]; content: string }> {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, content: chunks.map((c) => c.choices[0]?.delta.content ?? '').join('') };
}

async function expectApiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the SDK call to fail');
}

beforeAll(async () => {
  primary = await startFakeOpenAi();
  backup = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  process.env.FAKE_ANTHROPIC_KEY = ANTHROPIC_KEY;
  const config = await writeGatewayConfig({
    providers: [
      { name: 'primary', kind: 'openai-compatible', baseUrl: primary.url },
      { name: 'backup', kind: 'openai-compatible', baseUrl: backup.url },
      { name: 'claude', kind: 'anthropic', baseUrl: anthropic.url, apiKeyEnv: 'FAKE_ANTHROPIC_KEY' },
    ],
    models: [
      { name: 'fast-a', provider: 'primary', inputPerMTok: 1, outputPerMTok: 2 },
      { name: 'fast-b', provider: 'backup', inputPerMTok: 1, outputPerMTok: 2 },
      { name: 'claude-x', provider: 'claude', inputPerMTok: 3, outputPerMTok: 15 },
    ],
    embeddings: [{ name: 'embed-a', provider: 'primary', inputPerMTok: 0.1 }],
    aliases: { 'fast-track': ['fast-a', 'fast-b'], 'deep-reasoning': ['claude-x', 'fast-a'] },
    // Short, so the fallback test can wait for the primary to come back.
    cooldownSeconds: 1,
    timeoutSeconds: 10,
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });

  const created = await admin('/admin/v1/keys', { agentCode: AGENT, name: 'sdk tests' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ agentCode: AGENT, key: expect.stringMatching(/^sk-svc-/) });
  agentKey = created.body.key;
  const budget = await admin('/admin/v1/budgets', { agentCode: AGENT, monthlyBudgetUsd: 1000, hardLimitEnabled: true });
  expect(budget.status).toBe(200);
  expect(budget.body.budget).toMatchObject({ agentCode: AGENT, allocatedUsd: 1000 });

  client = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: agentKey, maxRetries: 0, timeout: 15_000 });
});

afterAll(async () => {
  await platform?.close();
  await primary?.close();
  await backup?.close();
  await anthropic?.close();
  delete process.env.FAKE_ANTHROPIC_KEY;
});

describe('chat completions through the openai SDK', () => {
  it('answers a non-streamed fast-track request from the first deployment, with gateway headers', async () => {
    const prompt = 'Summarise the quarter in one line';
    const before = chatCalls(primary).length;
    const { data, response } = await client.chat.completions.create({ model: 'fast-track', messages: user(prompt) }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('fast-a');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]!.message).toMatchObject({ role: 'assistant', content: `echo: ${prompt}` });
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toEqual({ prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 });
    expect(response.headers.get('x-svc-model')).toBe('fast-a');
    expect(response.headers.get('x-svc-cache')).toBe('MISS');

    const calls = chatCalls(primary);
    expect(calls).toHaveLength(before + 1);
    const sent = calls.at(-1)!.body;
    expect(sent).toMatchObject({ model: 'fast-a', temperature: 0.7, max_tokens: 4096, messages: [{ role: 'user', content: prompt }] });
    expect(sent.stream).toBeFalsy();
  });

  it('streams chunks the SDK assembles: role first, one finish_reason, then a usage chunk, then [DONE]', async () => {
    const prompt = 'Stream me the weekly numbers please';
    const stream = await client.chat.completions.create({ model: 'fast-track', messages: user(prompt), stream: true, stream_options: { include_usage: true } });
    const { chunks, content } = await collect(stream);

    const plain = await client.chat.completions.create(withSvc({ model: 'fast-track', messages: user(prompt) }, { cacheBypass: true }));
    expect(content).toBe(plain.choices[0]!.message.content);
    expect(content).toBe(answerFor({ messages: user(prompt) }));

    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'fast-a' });
    const finished = chunks.map((c, i) => (c.choices.some((ch) => ch.finish_reason) ? i : -1)).filter((i) => i >= 0);
    expect(finished).toHaveLength(1);
    const finishAt = finished[0]!;
    expect(chunks[finishAt]!.choices[0]!.finish_reason).toBe('stop');
    // The finishing chunk is the last one with choices; exactly one usage chunk follows it.
    expect(chunks.slice(0, finishAt).every((c) => c.choices.length === 1)).toBe(true);
    expect(chunks.slice(finishAt + 1)).toHaveLength(1);
    const usageChunk = chunks[finishAt + 1]!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });

    const upstream = chatCalls(primary).find((c) => c.body.stream === true && c.body.messages?.[0]?.content === prompt);
    expect(upstream?.body).toMatchObject({ model: 'fast-a', stream: true, stream_options: { include_usage: true } });

    // The wire format: Server-Sent Events ending in [DONE].
    const raw = await fetch(`${platform.bridge}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fast-track', messages: user(`${prompt} raw`), stream: true }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await raw.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    expect(events.filter((e) => e === '[DONE]')).toHaveLength(1);
    const rawContent = events.slice(0, -1).map((e) => JSON.parse(e).choices[0]?.delta.content ?? '').join('');
    expect(rawContent).toBe(`echo: ${prompt} raw`);
  });
});

describe('embeddings through the openai SDK', () => {
  it('decodes the base64 vectors the SDK asks for by default, and answers float lists when asked', async () => {
    const inputs = ['quarterly revenue', 'churn'];
    const direct = await call(`${primary.url}/embeddings`, { json: { model: 'embed-a', input: inputs } });
    const expected: number[][] = direct.body.data.map((d: { embedding: number[] }) => d.embedding);
    const before = primary.calls.length;

    const result = await client.embeddings.create({ model: 'embed-a', input: inputs });
    expect(result.object).toBe('list');
    expect(result.model).toBe('embed-a');
    expect(result.data).toHaveLength(2);
    result.data.forEach((d, i) => {
      expect(d.index).toBe(i);
      expect(d.embedding).toHaveLength(8);
      d.embedding.forEach((v, j) => expect(v).toBeCloseTo(expected[i]![j]!, 6));
    });
    expect(result.usage).toMatchObject({ prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(primary.calls).toHaveLength(before + 1);
    expect(primary.calls.at(-1)).toMatchObject({ path: '/v1/embeddings', body: { model: 'embed-a', input: inputs } });

    const raw = await call(`${platform.bridge}/v1/embeddings`, { headers: { authorization: `Bearer ${agentKey}` }, json: { model: 'embed-a', input: 'quarterly revenue', encoding_format: 'float' } });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: expected[0] }],
      model: 'embed-a',
      usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    expect(raw.body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('serves the built-in svc-local-embedding model: 384 dimensions, unit norm', async () => {
    const result = await client.embeddings.create({ model: 'svc-local-embedding', input: 'a sentence to embed locally' });
    expect(result.model).toBe('svc-local-embedding');
    const vector = result.data[0]!.embedding;
    expect(vector).toHaveLength(384);
    expect(Math.sqrt(vector.reduce((s, v) => s + v * v, 0))).toBeCloseTo(1, 4);
  });
});

describe('errors as SDK error classes', () => {
  it('rejects temperature 3 with BadRequestError naming the parameter and value', async () => {
    const before = primary.calls.length;
    const error = await expectApiError(client.chat.completions.create({ model: 'fast-a', messages: user('hot'), temperature: 3 }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/temperature/);
    expect(error.message).toMatch(/\b3\b/);
    expect(error.param).toBe('temperature');
    expect(error.type).toBe('invalid_request_error');
    expect(primary.calls).toHaveLength(before);
  });

  it('rejects an unknown key with AuthenticationError invalid_api_key', async () => {
    const stranger = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: 'sk-svc-not-a-real-key-000000000000', maxRetries: 0 });
    const error = await expectApiError(stranger.chat.completions.create({ model: 'fast-a', messages: user('hello') }));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
  });

  it('answers an unknown model with NotFoundError model_not_found', async () => {
    const error = await expectApiError(client.chat.completions.create({ model: 'gpt-nonexistent', messages: user('hello') }));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.status).toBe(404);
    expect(error.code).toBe('model_not_found');
    expect(error.param).toBe('model');
    expect(error.message).toContain('gpt-nonexistent');
  });

  it('refuses an agent over its hard limit with RateLimitError insufficient_quota naming the agent', async () => {
    const created = await admin('/admin/v1/keys', { agentCode: BROKE_AGENT });
    expect(created.status).toBe(201);
    const budget = await admin('/admin/v1/budgets', { agentCode: BROKE_AGENT, monthlyBudgetUsd: 0.000001, hardLimitEnabled: true });
    expect(budget.status).toBe(200);
    const broke = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: created.body.key, maxRetries: 0 });
    const before = primary.calls.length;
    const error = await expectApiError(broke.chat.completions.create({ model: 'fast-a', messages: user('one more thing') }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.code).toBe('insufficient_quota');
    expect(error.type).toBe('insufficient_quota');
    expect(error.message).toContain(BROKE_AGENT);
    expect(primary.calls).toHaveLength(before);
  });
});

describe('routing', () => {
  it('falls back to the next deployment on a 5xx and skips the failed one while it cools down', async () => {
    primary.set({ failWith: 500 });
    try {
      const before = { primary: chatCalls(primary).length, backup: chatCalls(backup).length };
      const first = await client.chat.completions.create({ model: 'fast-track', messages: user('fallback please') }).withResponse();
      expect(first.response.headers.get('x-svc-model')).toBe('fast-b');
      expect(first.data.model).toBe('fast-b');
      expect(first.data.choices[0]!.message.content).toBe('echo: fallback please');
      expect(chatCalls(primary)).toHaveLength(before.primary + 1);
      expect(chatCalls(primary).at(-1)!.body.messages).toEqual(user('fallback please'));
      expect(chatCalls(backup)).toHaveLength(before.backup + 1);
      expect(chatCalls(backup).at(-1)!.body.model).toBe('fast-b');

      // Cooling down: the next call goes straight to the backup.
      const second = await client.chat.completions.create({ model: 'fast-track', messages: user('still cooling?') }).withResponse();
      expect(second.response.headers.get('x-svc-model')).toBe('fast-b');
      expect(chatCalls(primary)).toHaveLength(before.primary + 1);
      expect(chatCalls(backup)).toHaveLength(before.backup + 2);
    } finally {
      primary.set({});
    }
    // cooldownSeconds is 1 in this config: afterwards the primary is preferred again.
    await sleep(1100);
    const back = await client.chat.completions.create({ model: 'fast-track', messages: user('primary is back') }).withResponse();
    expect(back.response.headers.get('x-svc-model')).toBe('fast-a');
  });

  it('translates deep-reasoning and claude-x requests to the Anthropic Messages API', async () => {
    const before = anthropic.calls.length;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Think hard about margins' }];
    const { data, response } = await client.chat.completions.create({ model: 'deep-reasoning', messages }).withResponse();
    expect(data.model).toBe('claude-x');
    expect(data.choices[0]!.message.content).toBe('echo: Think hard about margins');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    expect(response.headers.get('x-svc-model')).toBe('claude-x');
    expect(anthropic.calls).toHaveLength(before + 1);
    const sent = anthropic.calls.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.headers['anthropic-version']).toEqual(expect.any(String));
    expect(sent.body).toMatchObject({ model: 'claude-x', system: 'You are terse.', max_tokens: 4096, messages: [{ role: 'user' }] });
    expect(JSON.stringify(sent.body.messages)).not.toContain('You are terse.');

    const direct = await client.chat.completions.create({ model: 'claude-x', messages: user('plain claude'), max_tokens: 64 });
    expect(direct.model).toBe('claude-x');
    expect(direct.choices[0]!.message.content).toBe('echo: plain claude');
    expect(anthropic.calls.at(-1)!.body).toMatchObject({ max_tokens: 64 });
    expect(anthropic.calls.at(-1)!.body.system).toBeUndefined();

    const { data: stream, response: streamed } = await client.chat.completions
      .create({ model: 'claude-x', messages: [{ role: 'system', content: 'Stream tersely.' }, { role: 'user', content: 'stream from claude' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(streamed.headers.get('x-svc-model')).toBe('claude-x');
    const { chunks, content } = await collect(stream);
    expect(content).toBe('echo: stream from claude');
    expect(chunks.every((c) => c.model === 'claude-x')).toBe(true);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason)).toHaveLength(1);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 12 });
    const streamCall = anthropic.calls.at(-1)!;
    expect(streamCall.body).toMatchObject({ model: 'claude-x', stream: true, system: 'Stream tersely.', max_tokens: expect.any(Number) });
    expect(streamCall.headers['x-api-key']).toBe(ANTHROPIC_KEY);

    const { data: aliasStream } = await client.chat.completions.create({ model: 'deep-reasoning', messages: user('alias stream'), stream: true }).withResponse();
    const aliased = await collect(aliasStream);
    expect(aliased.content).toBe('echo: alias stream');
    expect(aliased.chunks.every((c) => c.model === 'claude-x')).toBe(true);
    expect(anthropic.calls).toHaveLength(before + 4);
  });

  it('auto-route sends short prompts to fast-track and reasoning prompts to deep-reasoning', async () => {
    const short = await client.chat.completions.create({ model: 'auto-route', messages: user('Hello there') }).withResponse();
    expect(['fast-a', 'fast-b']).toContain(short.data.model);
    expect(short.response.headers.get('x-svc-model')).toBe(short.data.model);
    expect(short.data.choices[0]!.message.content).toBe('echo: Hello there');

    const before = anthropic.calls.length;
    const deep = await client.chat.completions.create({ model: 'auto-route', messages: user('Explain why churn rose, step by step') }).withResponse();
    expect(deep.data.model).toBe('claude-x');
    expect(deep.response.headers.get('x-svc-model')).toBe('claude-x');
    expect(anthropic.calls).toHaveLength(before + 1);
  });

  it('lists aliases and models with client.models.list()', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['auto-route', 'fast-track', 'deep-reasoning', 'fast-a', 'fast-b', 'claude-x', 'embed-a', 'svc-local']));
  });

  it('passes tools through and returns the tool_calls of the upstream', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup_metric', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }];
    const result = await client.chat.completions.create({ model: 'fast-a', messages: user('revenue last week'), tools });
    const sent = chatCalls(primary).at(-1)!.body;
    expect(sent.tools).toEqual(tools);
    expect(result.choices[0]!.finish_reason).toBe('tool_calls');
    const message = result.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([{ id: 'call_fake_1', type: 'function', function: { name: 'lookup_metric', arguments: JSON.stringify({ query: 'echo: revenue last week' }) } }]);
  });
});

describe('response cache', () => {
  it('serves a repeated request from the cache, bypasses it on request, and replays hits as streams', async () => {
    const request = { model: 'fast-a', messages: user('cache me if you can'), temperature: 0.2 };
    const first = await client.chat.completions.create(request).withResponse();
    expect(first.response.headers.get('x-svc-cache')).toBe('MISS');
    const after = chatCalls(primary).length;

    const second = await client.chat.completions.create(request).withResponse();
    expect(second.response.headers.get('x-svc-cache')).toBe('HIT');
    expect(second.response.headers.get('x-svc-model')).toBe('fast-a');
    expect(second.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
    expect(chatCalls(primary)).toHaveLength(after);

    const bypass = await client.chat.completions.create(withSvc(request, { cacheBypass: true })).withResponse();
    expect(bypass.response.headers.get('x-svc-cache')).toBe('BYPASS');
    expect(bypass.data.choices[0]!.message.content).toBe('echo: cache me if you can');
    expect(chatCalls(primary)).toHaveLength(after + 1);

    const { data: stream, response } = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }).withResponse();
    expect(response.headers.get('x-svc-cache')).toBe('HIT');
    const replayed = await collect(stream);
    expect(replayed.content).toBe(first.data.choices[0]!.message.content);
    expect(replayed.chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(replayed.chunks.filter((c) => c.choices[0]?.finish_reason)).toHaveLength(1);
    expect(replayed.chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(chatCalls(primary)).toHaveLength(after + 1);
  });
});

describe('PII masking (piiStrict)', () => {
  const EMAIL = 'ada@example.com';
  const PHONE = '+44 20 7946 0958';
  const prompt = `Write to ${EMAIL} or call ${PHONE} today`;

  it('masks what leaves the gateway and restores the originals in the answer, never caching it', async () => {
    const before = chatCalls(primary).length;
    const request = withSvc({ model: 'fast-a', messages: user(prompt) }, { piiStrict: true });
    const first = await client.chat.completions.create(request).withResponse();
    expect(first.data.choices[0]!.message.content).toBe(`echo: ${prompt}`);
    expect(first.response.headers.get('x-svc-cache')).toBe('BYPASS');
    const sent = JSON.stringify(chatCalls(primary).at(-1)!.body);
    expect(sent).toContain('[EMAIL_1]');
    expect(sent).toMatch(/\[PHONE_1\]/);
    expect(sent).not.toContain(EMAIL);
    expect(sent).not.toContain(PHONE);
    expect(sent).not.toContain('7946');

    const second = await client.chat.completions.create(request).withResponse();
    expect(second.response.headers.get('x-svc-cache')).toBe('BYPASS');
    expect(second.data.choices[0]!.message.content).toBe(`echo: ${prompt}`);
    expect(chatCalls(primary)).toHaveLength(before + 2);
  });

  it('restores the originals in a streamed answer', async () => {
    const before = chatCalls(primary).length;
    const { data: stream, response } = await client.chat.completions
      .create(withSvc({ model: 'fast-a', messages: user(`Stream: ${prompt}`), stream: true }, { piiStrict: true }))
      .withResponse();
    expect(response.headers.get('x-svc-cache')).toBe('BYPASS');
    const { content } = await collect(stream);
    expect(content).toBe(`echo: Stream: ${prompt}`);
    expect(content).not.toMatch(/\[(EMAIL|PHONE)_\d+\]/);
    expect(chatCalls(primary)).toHaveLength(before + 1);
    const sent = JSON.stringify(chatCalls(primary).at(-1)!.body);
    expect(sent).toContain('[EMAIL_1]');
    expect(sent).not.toContain(EMAIL);
    expect(sent).not.toContain(PHONE);
  });
});

describe('usage and metrics', () => {
  it('records usage per agent and model for the admin API', async () => {
    type Row = { agentCode: string; model: string; requests: number; costUsd: number; promptTokens: number; cacheHits: number };
    // Answers are settled in batches after they have gone (README: the model gateway), so the
    // ledger may lag the last answers on a busy machine: wait for both models' lines.
    const rows = await eventually(async () => {
      const reply = await admin(`/admin/v1/usage?agentCode=${AGENT}`);
      expect(reply.status).toBe(200);
      const usage = reply.body.usage as Row[];
      return ['fast-a', 'claude-x'].every((model) => usage.some((r) => r.model === model && r.costUsd > 0)) ? usage : undefined;
    }, 15_000, `usage lines of agent ${AGENT} for fast-a and claude-x`);
    expect(rows.every((r) => r.agentCode === AGENT)).toBe(true);
    const fastA = rows.find((r) => r.model === 'fast-a');
    expect(fastA).toBeDefined();
    expect(fastA!.requests).toBeGreaterThan(0);
    expect(fastA!.promptTokens).toBeGreaterThan(0);
    expect(fastA!.costUsd).toBeGreaterThan(0);
    expect(rows.find((r) => r.model === 'claude-x')?.costUsd).toBeGreaterThan(0);
    expect(rows.reduce((n, r) => n + r.cacheHits, 0)).toBeGreaterThan(0);
    const other = await admin(`/admin/v1/usage?agentCode=${BROKE_AGENT}`);
    expect(other.body.usage).toEqual([]);
  });

  it('exposes Prometheus metrics on the llm subgraph to the master key only', async () => {
    const url = `${platform.urls.llm!.replace(/\/graphql$/, '')}/metrics`;
    const denied = await call(url);
    expect(denied.status).toBe(401);
    const agent = await call(url, { headers: { authorization: `Bearer ${agentKey}` } });
    expect(agent.status).toBe(401);
    const metrics = await call(url, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(new RegExp(`^svcllm_requests_total\\{[^}]*agent="${AGENT}"[^}]*model="fast-a"[^}]*\\} [1-9]`, 'm'));
    expect(metrics.text).toMatch(new RegExp(`^svcllm_cache_hits_total\\{agent="${AGENT}"\\} [1-9]`, 'm'));
  });
});
