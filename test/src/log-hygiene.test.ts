import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Prompt text never reaches the logs (at debug level) nor an error response, even when an
 * upstream's error body quotes the request or a client's body is broken.
 */

const MARKER = 'PROMPT-MARKER-7f3a9c';
let platform: TestPlatform;
let upstream: Awaited<ReturnType<typeof startFakeOpenAi>>;
let key: string;
const lines: string[] = [];

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  const config = await writeGatewayConfig({
    providers: [{ name: 'echoing', kind: 'openai-compatible', baseUrl: upstream.url }],
    models: [{ name: 'echo-model', provider: 'echoing', inputPerMTok: 1, outputPerMTok: 2 }],
    aliases: { 'fast-track': ['echo-model'], 'deep-reasoning': ['echo-model'] },
  });
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  platform = await startTestPlatform({ SVCLLM_CONFIG: config }, { logTo: sink });
  key = (await call(`${platform.bridge}/admin/v1/keys`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, json: { agentCode: 'hygiene' } })).body.key;
});
afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

describe('prompt text and logs', () => {
  it('keeps an upstream error body that quotes the prompt out of the logs and the answer', async () => {
    for (const status of [400, 500]) {
      upstream.set({ failWith: status, echoInError: true });
      for (const stream of [false, true]) {
        const reply = await call(`${platform.bridge}/v1/chat/completions`, {
          headers: { authorization: `Bearer ${key}` },
          json: { model: 'fast-track', stream, messages: [{ role: 'user', content: `Summarise ${MARKER} please` }], svcllm_options: { cacheBypass: true } },
        });
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.text).not.toContain(MARKER);
      }
    }
    expect(upstream.calls.some((c) => JSON.stringify(c.body).includes(MARKER))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = lines.join('');
    expect(logged).toContain('"level":'); // the sink really receives the platform's logs
    expect(logged).not.toContain(MARKER);
  });
});
