import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * No way around a hard budget: image parts are reserved by what they can cost, an upstream
 * reporting more than was reserved leaves the agent blocked, untrustworthy usage is charged at
 * the bounds, and a malformed upstream answer is a 502 that costs nothing.
 */

const ALLOCATION = 1;
let platform: TestPlatform;
let upstream: Awaited<ReturnType<typeof startFakeOpenAi>>;
const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };

async function agent(code: string): Promise<string> {
  const key = await call(`${platform.bridge}/admin/v1/keys`, { headers: master, json: { agentCode: code } });
  const budget = await call(`${platform.bridge}/admin/v1/budgets`, { headers: master, json: { agentCode: code, monthlyBudgetUsd: ALLOCATION, hardLimitEnabled: true } });
  expect(budget.status).toBeLessThan(300);
  return key.body.key;
}

/** What the agent has spent once nothing is held any more (settlement follows the answer). */
async function spent(code: string): Promise<number> {
  return eventually(async () => {
    const reply = await gql(platform.router, '{ budgets { agentCode currentUsageUsd reservedUsd } }', {}, master);
    const budget = reply.body.data.budgets.find((b: { agentCode: string }) => b.agentCode === code);
    return budget.reservedUsd === 0 ? { usd: budget.currentUsageUsd as number } : undefined;
  }, 5000, `the settlements of ${code}`).then((r) => r.usd);
}

const chat = (key: string, content: unknown) =>
  call(`${platform.bridge}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, json: { model: 'priced', max_tokens: 10, messages: [{ role: 'user', content }], svcllm_options: { cacheBypass: true } } });

const image = { type: 'image_url', image_url: { url: 'https://example.com/chart.png', detail: 'high' } };

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  const config = await writeGatewayConfig({
    providers: [{ name: 'vision', kind: 'openai-compatible', baseUrl: upstream.url }],
    // $10 per million input tokens: one high-detail image at the ceiling (25,500 tokens) is $0.255.
    models: [{ name: 'priced', provider: 'vision', inputPerMTok: 10, outputPerMTok: 10, maxOutputTokens: 100 }],
    aliases: { 'fast-track': ['priced'], 'deep-reasoning': ['priced'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });
});
afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

describe('hard budgets and what a request can cost', () => {
  it('reserves image parts at what they can cost, so images cannot spend past the limit', async () => {
    const key = await agent('vision-agent');
    // The upstream bills each image request as a big image: 25,000 prompt tokens ($0.25).
    upstream.set({ usage: { prompt_tokens: 25_000, completion_tokens: 5 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await chat(key, [{ type: 'text', text: 'Describe it' }, image])).status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses).toContain(429);
    expect(await spent('vision-agent')).toBeLessThanOrEqual(ALLOCATION);
  });

  it('leaves an agent blocked when the upstream reports more than was reserved', async () => {
    const key = await agent('overbilled');
    upstream.set({ usage: { prompt_tokens: 500_000, completion_tokens: 5 } }); // $5 for a short text
    expect((await chat(key, 'Hi')).status).toBe(200);
    expect(await spent('overbilled')).toBeGreaterThan(ALLOCATION); // charged what was reported, visible to an admin
    upstream.set({});
    const next = await chat(key, 'Hi again');
    expect(next.status).toBe(429);
  });

  it('charges untrustworthy usage at the bounds, and a malformed answer is a 502 that costs nothing', async () => {
    const key = await agent('untrusted');
    upstream.set({ usage: { prompt_tokens: -100, completion_tokens: 1.5 } });
    expect((await chat(key, 'Hi')).status).toBe(200);
    // Not the reported negative figures: the prompt's bound (3 + 4 + 2 framing, 2 bytes of "Hi")
    // and the answer's bytes ("echo: Hi", 8; at most max_tokens 10), at $10 per million.
    const charged = await spent('untrusted');
    expect(charged).toBeCloseTo(((3 + 4 + 2 + 2) + 8) * 10 / 1e6, 8);
    for (const raw of ['{"choices": []}', '{"choices": [{"message": 5}]}', 'not json', '{}']) {
      upstream.set({ rawBody: raw });
      const reply = await chat(key, 'Hi');
      expect({ raw, status: reply.status }).toEqual({ raw, status: 502 });
    }
    expect(await spent('untrusted')).toBe(charged);
  });

  it('reads an agent\'s usage when the query asks for it, and only its budget when not', async () => {
    const key = await agent('usage-reader');
    upstream.set({ usage: { prompt_tokens: 10, completion_tokens: 5 } });
    expect((await chat(key, 'Hi')).status).toBe(200);
    await spent('usage-reader');
    const both = await gql(platform.router, '{ agent(code: "usage-reader") { budget { agentCode } usage { agentCode requests } } }', {}, master);
    expect(both.body.errors).toBeUndefined();
    expect(both.body.data.agent.usage).toEqual([expect.objectContaining({ agentCode: 'usage-reader', requests: 1 })]);
    const budgetOnly = await gql(platform.router, '{ agent(code: "usage-reader") { code budget { agentCode } } }', {}, master);
    expect(budgetOnly.body.data.agent).toEqual({ code: 'usage-reader', budget: { agentCode: 'usage-reader' } });
  });
});
