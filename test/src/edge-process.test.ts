import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadPlatformConfig, startPlatform, type Platform } from '@svc/cli';
import { createLogger } from '@svc/kit';
import { PassThrough } from 'node:stream';
import { call } from './support/http.js';
import { startTestPlatform, TEST_JWT_SECRET, type TestPlatform } from './support/platform.js';
import { REDIS_URL } from './support/services.js';

/**
 * `svc edge` (the front of a deployment whose subgraphs run apart): the router and the bridge
 * in one process, the subgraphs in others. The bridge runs its operations on the router of its
 * process: the router's HTTP server never sees them, the subgraphs are reached over HTTP.
 */
let subgraphs: TestPlatform;
let edge: Platform;
const lines: string[] = [];

beforeAll(async () => {
  subgraphs = await startTestPlatform();
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const config = loadPlatformConfig({
    REDIS_URL,
    SVC_REDIS_PREFIX: subgraphs.redisPrefix,
    SVC_JWT_SECRET: TEST_JWT_SECRET,
    SERVER_PORT: '0',
    SVC_ROUTER_PORT: '0',
    SVC_INSIGHT_URL: subgraphs.urls.insight!,
    SVC_LLM_URL: subgraphs.urls.llm!,
    SVC_CRAWL_URL: subgraphs.urls.crawl!,
    SVC_CMS_URL: subgraphs.urls.cms!,
  }, 'edge');
  edge = await startPlatform(config, 'edge', createLogger({ level: 'debug', name: 'edge', destination: sink }));
});
afterAll(async () => {
  await edge?.close();
  await subgraphs?.close();
});

describe('svc edge', () => {
  it('runs the router and the bridge, and no subgraph', () => {
    expect(Object.keys(edge.urls).sort()).toEqual(['bridge', 'router']);
  });

  it('answers a REST path as svc all does, running its operation on the router of its process', async () => {
    const requestId = `edge-${Date.now()}`;
    const atEdge = await call(`${edge.urls.bridge}/api/v1/contents/welcome`, { headers: { 'x-svc-site-key': 'demo', 'x-request-id': requestId } });
    const inAll = await call(`${subgraphs.bridge}/api/v1/contents/welcome`, { headers: { 'x-svc-site-key': 'demo' } });
    expect(atEdge.status).toBe(200);
    expect(atEdge.body.data.slug).toBe('welcome');
    expect(atEdge.body.data).toEqual(inAll.body.data);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mine = lines.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as { svc?: string; msg?: string; path?: string });
    expect(mine.some((l) => l.svc === 'bridge' && l.msg === 'request' && l.path === '/api/v1/contents/welcome')).toBe(true);
    // No HTTP request from the bridge reached the router's server.
    expect(mine.filter((l) => l.svc === 'router' && l.msg === 'request')).toEqual([]);
  });

  it('serves GraphQL clients on its router, which reaches the subgraphs over HTTP', async () => {
    const token = await subgraphs.token();
    const reply = await call(edge.urls.router!, { headers: { authorization: `Bearer ${token}` }, json: { query: '{ contents(siteKey: "demo") { slug } }' } });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.contents.length).toBeGreaterThan(0);
  });
});
