import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { call } from './support/http.js';
import { repeatedKeys } from './support/json-keys.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * `svc graph` (what docker/compose.yaml runs per replica): the router, the four subgraphs and the
 * bridge in one process, no dashboard. The router calls the subgraphs of its process and the
 * bridge calls the router without a socket: the subgraphs run every operation (their operation
 * logs say so, with the caller's request id), but no HTTP server of the process but the one
 * called sees the request.
 */
let graph: TestPlatform;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  graph = await startTestPlatform({ SVC_INSIGHT_WORKER: 'false', SVC_CRAWL_WORKER: 'false' }, { logTo: sink, service: 'graph' });
});
afterAll(() => graph?.close());

type Line = { svc?: string; msg?: string; path?: string };
async function linesOf(requestId: string): Promise<Line[]> {
  // Access log lines are written when a response has finished.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return lines.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as Line);
}

describe('svc graph', () => {
  it('runs the router, every subgraph and the bridge, and no dashboard', () => {
    expect(Object.keys(graph.urls).sort()).toEqual(['bridge', 'cms', 'crawl', 'insight', 'llm', 'router']);
  });

  it('answers a query across three subgraphs on its router, which calls them without a socket', async () => {
    const token = await graph.token({ roles: ['admin'], tenants: ['demo'], sites: ['demo'] });
    const requestId = `graph-${Date.now()}`;
    const reply = await call(graph.router, {
      headers: { authorization: `Bearer ${token}`, 'x-svc-tenant-id': 'demo', 'x-request-id': requestId },
      json: { query: 'query AcrossThree { contents(siteKey: "demo") { slug } crawlJobs { jobId } budgets { agentCode } }' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.contents.length).toBeGreaterThan(0);
    expect(reply.body.data.crawlJobs.length).toBeGreaterThan(0);
    expect(reply.body.data.budgets.length).toBeGreaterThan(0);
    const mine = await linesOf(requestId);
    expect(mine.some((l) => l.svc === 'router' && l.msg === 'request' && l.path === '/graphql')).toBe(true);
    for (const subgraph of ['cms', 'crawl', 'llm']) {
      expect({ subgraph, ran: mine.some((l) => l.svc === subgraph && l.msg === 'graphql operation') }).toEqual({ subgraph, ran: true });
      expect(mine.filter((l) => l.svc === subgraph && l.msg === 'request')).toEqual([]);
    }
  });

  it('answers a REST path on its bridge, which runs the operation on the router of its process', async () => {
    const requestId = `graph-rest-${Date.now()}`;
    const reply = await call(`${graph.bridge}/api/v1/contents/welcome`, { headers: { 'x-svc-site-key': 'demo', 'x-request-id': requestId } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.slug).toBe('welcome');
    const mine = await linesOf(requestId);
    expect(mine.some((l) => l.svc === 'bridge' && l.msg === 'request' && l.path === '/api/v1/contents/welcome')).toBe(true);
    expect(mine.some((l) => l.svc === 'cms' && l.msg === 'graphql operation')).toBe(true);
    // Neither the router's nor cms's HTTP server saw it.
    expect(mine.filter((l) => (l.svc === 'router' || l.svc === 'cms') && l.msg === 'request')).toEqual([]);
  });

  it('names the process and the service that logged each line once: `process` and `svc`, no key twice', () => {
    expect(repeatedKeys('{"process":"graph","svc":"graph","err":{"svc":"cms"},"svc":"cms"}')).toEqual(['svc']);
    const parsed = lines.map((line) => JSON.parse(line) as Line & { process?: string });
    expect(parsed.some((l) => l.process === 'test' && l.svc === 'cms')).toBe(true);
    expect(lines.filter((line) => repeatedKeys(line).length > 0)).toEqual([]);
  });
});
