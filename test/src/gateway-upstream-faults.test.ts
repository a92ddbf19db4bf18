import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/eventually.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * An upstream that hangs: the client gets a 502 in the OpenAI shape within the configured
 * timeout (never a stalled connection), nothing is charged, the hold is freed, and the gateway
 * answers the next request as soon as the upstream is back.
 */

let platform: TestPlatform;
let upstream: Awaited<ReturnType<typeof startFakeOpenAi>>;
let key: string;
const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  const config = await writeGatewayConfig({
    timeoutSeconds: 1,
    providers: [{ name: 'slow', kind: 'openai-compatible', baseUrl: upstream.url }],
    models: [{ name: 'slow-model', provider: 'slow', inputPerMTok: 1, outputPerMTok: 1 }],
    aliases: { 'fast-track': ['slow-model'], 'deep-reasoning': ['slow-model'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });
  key = (await call(`${platform.bridge}/admin/v1/keys`, { headers: master, json: { agentCode: 'patient' } })).body.key;
  await call(`${platform.bridge}/admin/v1/budgets`, { headers: master, json: { agentCode: 'patient', monthlyBudgetUsd: 1, hardLimitEnabled: true } });
});
afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

describe('an upstream that hangs', () => {
  it('gives up after the configured timeout with a 502 that costs nothing, and recovers', async () => {
    upstream.set({ delayMs: 10_000 });
    const started = Date.now();
    const reply = await call(`${platform.bridge}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, json: { model: 'fast-track', messages: [{ role: 'user', content: 'Hello?' }], svcllm_options: { cacheBypass: true } } });
    const waited = Date.now() - started;
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
    expect(waited).toBeLessThan(5000); // the 1 s timeout, not the upstream's 10 s
    const budget = await eventually(async () => {
      const r = await gql(platform.router, '{ budgets { agentCode currentUsageUsd } }', {}, master);
      return r.body.data.budgets.find((b: { agentCode: string }) => b.agentCode === 'patient');
    }, 5000, 'the budget');
    expect(budget.currentUsageUsd).toBe(0);
    upstream.set({});
    const again = await call(`${platform.bridge}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, json: { model: 'fast-track', messages: [{ role: 'user', content: 'Back?' }], svcllm_options: { cacheBypass: true } } });
    expect(again.status).toBe(200);
  });
});
