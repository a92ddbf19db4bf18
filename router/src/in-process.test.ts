import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLIENT_IP_HEADER, CLIENT_IP_SIGNATURE_HEADER, clientAddressKey, createLogger, isSignedClientAddress } from '@svc/kit';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startRouter, type RunningRouter } from './router.js';

/** Runs from router/dist/src/. The llm subgraph is a stand-in on port 0 that records what it is sent. */
const SUPERGRAPH = fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url));
const KEY = clientAddressKey('in-process test secret');
const MODELS = 'query Models { models }';

let subgraph: Server;
const seen: IncomingHttpHeaders[] = [];
let router: RunningRouter;

beforeAll(async () => {
  subgraph = createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { models: { object: 'list', data: [] } } }));
    });
  });
  await new Promise<void>((resolve) => subgraph.listen(0, '127.0.0.1', resolve));
  router = await startRouter({
    supergraphSdl: await readFile(SUPERGRAPH, 'utf8'),
    subgraphUrls: { llm: `http://127.0.0.1:${(subgraph.address() as AddressInfo).port}/graphql` },
    log: createLogger({ level: 'silent' }),
    corsOrigins: [],
    // The bridge's peers: a load balancer in 10/8. Loopback is not trusted, so an HTTP caller is its own address.
    trustedProxies: ['10.0.0.0/8'],
    clientAddressKey: KEY,
    maxBodyBytes: 1 << 20,
    graphiqlTabs: [],
  }, 0, '127.0.0.1');
});

afterAll(async () => {
  await router?.close(1000);
  subgraph.closeAllConnections();
  await new Promise<void>((resolve) => subgraph.close(() => resolve()));
});

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

describe("the router's endpoint for callers in its process (the bridge in svc all)", () => {
  it('answers what HTTP answers, as an object', async () => {
    const body = JSON.stringify({ query: MODELS, operationName: 'Models' });
    const overHttp = await fetch(`${router.url}/graphql`, { method: 'POST', headers: jsonHeaders, body });
    const local = await router.graphql({ method: 'POST', headers: jsonHeaders, body });
    expect(local.status).toBe(overHttp.status);
    expect(local.result).toEqual(await overHttp.json());
    expect(local.result).toEqual({ data: { models: { object: 'list', data: [] } } });
  });

  it("trusts its caller like a proxy: the client is the last untrusted hop of the caller's X-Forwarded-For, signed for the subgraph", async () => {
    seen.length = 0;
    const body = JSON.stringify({ query: MODELS });
    await router.graphql({ method: 'POST', headers: { ...jsonHeaders, 'x-forwarded-for': '198.51.100.4, 203.0.113.7, 10.1.2.3' }, body });
    // Over HTTP from loopback (not a trusted proxy) the same header is the client's own word: ignored.
    await fetch(`${router.url}/graphql`, { method: 'POST', headers: { ...jsonHeaders, 'x-forwarded-for': '203.0.113.7' }, body });
    expect(seen.map((headers) => headers[CLIENT_IP_HEADER])).toEqual(['203.0.113.7', '127.0.0.1']);
    for (const headers of seen) {
      expect(isSignedClientAddress(KEY, headers[CLIENT_IP_HEADER] as string, headers[CLIENT_IP_SIGNATURE_HEADER] as string)).toBe(true);
    }
  });

  it('refuses what HTTP refuses, with the same status and code', async () => {
    const body = JSON.stringify({ query: '{ models nope }' });
    const overHttp = await fetch(`${router.url}/graphql`, { method: 'POST', headers: jsonHeaders, body });
    const local = await router.graphql({ method: 'POST', headers: jsonHeaders, body });
    expect(local.status).toBe(400);
    expect(overHttp.status).toBe(400);
    expect(local.result).toEqual(await overHttp.json());
    expect((local.result.errors as { extensions: { code: string } }[])[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
