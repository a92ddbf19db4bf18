import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * In `svc all` the router calls the subgraphs of its own process without a socket: the subgraph
 * still runs the operation (its operation log says so, with the caller's request id), but its
 * HTTP server never sees the request.
 */
let platform: TestPlatform;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  platform = await startTestPlatform({}, { logTo: sink });
});
afterAll(() => platform?.close());

describe('subgraphs in the router\'s process', () => {
  it('answers a federated query without the subgraphs\' HTTP servers, through their own Apollo pipeline', async () => {
    const token = await platform.token({ subject: 'eddie', roles: ['editor'], sites: ['demo'], tenants: ['demo'] });
    const requestId = `in-process-${Date.now()}`;
    const reply = await call(`${platform.router}`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
      json: { query: 'query InProcess { contents(siteKey: "demo") { slug } deliveredContent(slug: "welcome", siteKey: "demo") { content { slug } } }' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.contents.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mine = lines.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as { svc?: string; msg?: string; path?: string });
    // The router's own access log line, and cms's operation log: cms ran it.
    expect(mine.some((l) => l.svc === 'router' && l.msg === 'request' && l.path === '/graphql')).toBe(true);
    expect(mine.some((l) => l.svc === 'cms' && l.msg === 'graphql operation')).toBe(true);
    // No HTTP request reached cms's server.
    expect(mine.filter((l) => l.svc === 'cms' && l.msg === 'request')).toEqual([]);
  });
});
