import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { promptTokenBound } from '@svc/llm/domain/prompt-bound';
import { estimatePromptTokens, heldPromptTokens, SHORT_PROMPT_TOKENS } from '@svc/llm/domain/tokens';
import OpenAI from 'openai';
import { answerFor, startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Rate limits per key and per agent through the bridge, with the official `openai` SDK: set by
 * /admin/v1 and GraphQL, OpenAI's x-ratelimit-* headers on every answer, 429 with Retry-After
 * that the SDK's own retry honours, and a stream's tokens counted against TPM when it ends.
 */

type FakeOpenAi = Awaited<ReturnType<typeof startFakeOpenAi>>;
let platform: TestPlatform;
let fake: FakeOpenAi;
const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };
const user = (content: string) => [{ role: 'user' as const, content }];

async function newKey(agentCode: string): Promise<{ id: string; key: string }> {
  const created = await call(`${platform.bridge}/admin/v1/keys`, { headers: master, json: { agentCode } });
  expect(created.status).toBe(201);
  return created.body;
}

const putLimits = (path: string, json: unknown) => call(`${platform.bridge}/admin/v1/${path}/limits`, { headers: master, json });

/** One chat request as raw HTTP (cache bypassed, so every one goes upstream). */
const chat = (key: string, content: string, max_tokens = 5) =>
  call(`${platform.bridge}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, json: { model: 'fast-a', max_tokens, messages: user(content), svcllm_options: { cacheBypass: true } } });

/** What the gateway holds against TPM while a request runs: the prompt's tokens (a short one's bound, a long one's o200k estimate) plus max_tokens. */
const estimate = (content: string, maxTokens: number) => heldPromptTokens(promptTokenBound(user(content), undefined), user(content)) + maxTokens;
/** What the fake upstream reports: 10 prompt tokens, one completion token per word of its echo. */
const actual = (content: string) => 10 + answerFor({ messages: user(content) }).split(' ').length;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  const config = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'fast-a', provider: 'fake', inputPerMTok: 1, outputPerMTok: 2 }],
    aliases: { 'fast-track': ['fast-a'], 'deep-reasoning': ['fast-a'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });
}, 60_000);

afterAll(async () => {
  await platform?.close();
  await fake?.close();
});

describe('setting limits', () => {
  it('sets agent and key limits by /admin/v1 and GraphQL, keeps absent members, removes null ones, and names bad values', async () => {
    const { id } = await newKey('limits-admin');
    const set = await putLimits('agents/limits-admin', { requestsPerMinute: 600, tokensPerMinute: 200_000 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ limits: { requestsPerMinute: 600, tokensPerMinute: 200_000, maxConcurrent: null } });
    const changed = await putLimits('agents/limits-admin', { tokensPerMinute: null, maxConcurrent: 4 });
    expect(changed.body).toEqual({ limits: { requestsPerMinute: 600, tokensPerMinute: null, maxConcurrent: 4 } });

    const viaGraphql = await gql(`${platform.router}`, 'mutation($id: ID!) { setKeyLimits(id: $id, input: { requestsPerMinute: 30 }) { requestsPerMinute tokensPerMinute maxConcurrent } }', { id }, master);
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data.setKeyLimits).toEqual({ requestsPerMinute: 30, tokensPerMinute: null, maxConcurrent: null });
    const listed = await call(`${platform.bridge}/admin/v1/keys?agentCode=limits-admin`, { headers: master });
    expect(listed.body.keys[0].limits).toEqual({ requestsPerMinute: 30, tokensPerMinute: null, maxConcurrent: null });
    const agent = await gql(`${platform.router}`, '{ agent(code: "limits-admin") { limits { requestsPerMinute maxConcurrent } } }', {}, master);
    expect(agent.body.data.agent.limits).toEqual({ requestsPerMinute: 600, maxConcurrent: 4 });

    const bad = await putLimits(`keys/${id}`, { requestsPerMinute: 0, maxConcurrent: -1 });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('requestsPerMinute');
    expect(bad.text).toContain('maxConcurrent');
    const fraction = await putLimits(`keys/${id}`, { maxConcurrent: 2.5 });
    expect(fraction.status).toBe(400);
    expect(fraction.text).toContain('maxConcurrent');
    expect((await putLimits('keys/00000000-0000-0000-0000-000000000000', { requestsPerMinute: 1 })).status).toBe(404);
    const agentKey = (await newKey('limits-admin-2')).key;
    expect((await call(`${platform.bridge}/admin/v1/agents/x/limits`, { headers: { authorization: `Bearer ${agentKey}` }, json: { requestsPerMinute: 1 } })).status).toBe(403);
  });
});

describe('answers under limits', () => {
  it('carries the x-ratelimit-* headers on every answer, counting down exactly, and 429 rate_limit_exceeded past the limit', async () => {
    const { id, key } = await newKey('limits-headers');
    await putLimits(`keys/${id}`, { requestsPerMinute: 3, tokensPerMinute: 100_000 });
    const answers = [await chat(key, 'first'), await chat(key, 'second'), await chat(key, 'third')];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining-requests'))).toEqual(['2', '1', '0']);
    for (const a of answers) {
      expect(a.headers.get('x-ratelimit-limit-requests')).toBe('3');
      expect(a.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+(\.\d+)?s|1m[\d.]+s)$/);
      expect(a.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    }
    // Each answer settled its actual tokens before the next was admitted.
    expect(Number(answers[2]!.headers.get('x-ratelimit-remaining-tokens'))).toBe(100_000 - actual('first') - actual('second') - estimate('third', 5));

    const refused = await chat(key, 'fourth');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', message: expect.stringMatching(/^Rate limit reached for API key .+ on requests per min \(RPM\): Limit 3, Used 3, Requested 1\. Please try again in/) });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(58);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThan(57_000);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('100000');

    // Embeddings count against the same limits.
    const { id: embedId, key: embedKey } = await newKey('limits-embeddings');
    await putLimits(`keys/${embedId}`, { requestsPerMinute: 1 });
    const embed = () => call(`${platform.bridge}/v1/embeddings`, { headers: { authorization: `Bearer ${embedKey}` }, json: { model: 'svc-local-embedding', input: 'limits apply here too' } });
    const embedded = await embed();
    expect(embedded.status).toBe(200);
    expect(embedded.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const embedRefused = await embed();
    expect(embedRefused.status).toBe(429);
    expect(embedRefused.body.error.code).toBe('rate_limit_exceeded');

    // A request whose estimate can never fit is told so, not told to wait.
    const { id: small, key: smallKey } = await newKey('limits-headers');
    await putLimits(`keys/${small}`, { tokensPerMinute: 50 });
    const tooLarge = await chat(smallKey, 'hello', 200);
    expect(tooLarge.status).toBe(429);
    expect(tooLarge.body.error.message).toMatch(/^Request too large for API key .+ on tokens per min \(TPM\): Limit 50, Requested \d+/);
    expect(tooLarge.headers.get('retry-after')).toBeNull();

    // A long prompt is held at its o200k estimate, not its bound (one token per byte): 6,000
    // bytes of English fit a 2,000-token limit, and the answer's headers show what was held.
    const long = 'the quick brown fox jumps over the lazy dog '.repeat(136);
    expect(promptTokenBound(user(long), undefined)).toBeGreaterThan(Math.max(2_000, SHORT_PROMPT_TOKENS));
    expect(estimate(long, 5)).toBe(estimatePromptTokens(user(long)) + 5);
    const { id: longId, key: longKey } = await newKey('limits-headers');
    await putLimits(`keys/${longId}`, { tokensPerMinute: 2_000 });
    const fits = await chat(longKey, long);
    expect(fits.status).toBe(200);
    expect(Number(fits.headers.get('x-ratelimit-remaining-tokens'))).toBe(2_000 - estimate(long, 5));
  });

  it("the openai SDK's own retry honours Retry-After: a concurrency limit of 1 serves two concurrent calls", async () => {
    const { id, key } = await newKey('limits-sdk');
    await putLimits(`keys/${id}`, { maxConcurrent: 1 });
    fake.set({ delayMs: 400 });
    const statuses: number[] = [];
    const client = new OpenAI({
      baseURL: `${platform.bridge}/v1`, apiKey: key, maxRetries: 3, timeout: 15_000,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    });
    try {
      const before = fake.calls.length;
      const answers = await Promise.all(['one at a time', 'please wait'].map((content) => client.chat.completions.create({ model: 'fast-a', messages: user(content) })));
      expect(answers.map((a) => a.choices[0]!.message.content)).toEqual(['echo: one at a time', 'echo: please wait']);
      expect(fake.calls.length - before).toBe(2); // a refused call never reached the upstream
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    } finally {
      fake.set({});
    }
  });

  it('the openai SDK waits out a requests-per-minute window and succeeds once it allows', async () => {
    const { id, key } = await newKey('limits-sdk-rpm');
    await putLimits(`keys/${id}`, { requestsPerMinute: 2 });
    expect((await chat(key, 'a')).status).toBe(200);
    expect((await chat(key, 'b')).status).toBe(200);
    // Two seconds on, the oldest request frees within 60 s: a wait the SDK honours (it ignores longer ones).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const statuses: number[] = [];
    const client = new OpenAI({
      baseURL: `${platform.bridge}/v1`, apiKey: key, maxRetries: 1, timeout: 15_000,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    });
    const started = Date.now();
    const answer = await client.chat.completions.create({ model: 'fast-a', messages: user('after the window') });
    expect(answer.choices[0]!.message.content).toBe('echo: after the window');
    expect(statuses).toEqual([429, 200]);
    expect(Date.now() - started).toBeGreaterThan(55_000);
  }, 90_000);

  it("counts a stream's tokens against TPM when it ends: its estimate is held while it runs", async () => {
    const { id, key } = await newKey('limits-stream');
    const LIMIT = 100_000;
    await putLimits(`keys/${id}`, { tokensPerMinute: LIMIT });
    const remaining = (reply: { headers: Headers }) => Number(reply.headers.get('x-ratelimit-remaining-tokens'));
    const client = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: key, maxRetries: 0, timeout: 15_000 });

    const first = await chat(key, 'probe one');
    expect(remaining(first)).toBe(LIMIT - estimate('probe one', 5));

    const prompt = 'stream seven words for the limit';
    fake.set({ chunkDelayMs: 150 });
    const stream = await client.chat.completions.create({ model: 'fast-a', messages: user(prompt), max_tokens: 50, stream: true, stream_options: { include_usage: true }, ...{ svcllm_options: { cacheBypass: true } } });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next(); // the stream is running
    const during = await chat(key, 'probe two');
    expect(remaining(during)).toBe(LIMIT - actual('probe one') - estimate(prompt, 50) - estimate('probe two', 5));
    let usage: OpenAI.CompletionUsage | undefined;
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) usage = step.value.usage ?? usage;
    fake.set({});
    expect(usage!.prompt_tokens + usage!.completion_tokens).toBe(actual(prompt));

    const after = await chat(key, 'probe three');
    expect(remaining(after)).toBe(LIMIT - actual('probe one') - actual('probe two') - actual(prompt) - estimate('probe three', 5));
  });
});
