import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, type RunningServer } from '@svc/kit';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startRouter } from './router.js';
import type { TrustedDocumentsMode } from './trusted-documents.js';

/** Runs from router/dist/src/. No subgraph is started: these documents ask the router itself (__typename). */
const SUPERGRAPH = fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url));
const PING = 'query Ping {\n  __typename\n}';
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

let routers: Record<TrustedDocumentsMode, RunningServer>;

async function start(mode: TrustedDocumentsMode): Promise<RunningServer> {
  const supergraphSdl = await readFile(SUPERGRAPH, 'utf8');
  return startRouter({
    supergraphSdl, subgraphUrls: {}, log: createLogger({ level: 'silent' }), corsOrigins: [], trustedProxies: [], maxBodyBytes: 1 << 20,
    graphiqlTabs: [], operations: new Map([['Ping', PING]]), trustedDocuments: mode,
  }, 0, '127.0.0.1');
}

async function post(mode: TrustedDocumentsMode, body: Record<string, unknown>) {
  const response = await fetch(`${routers[mode].url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'apollo-require-preflight': 'true' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } };
}

const byHash = (hash: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });

beforeAll(async () => {
  routers = { any: await start('any'), only: await start('only') };
});
afterAll(async () => {
  for (const router of Object.values(routers ?? {})) await router.close(1000);
});

describe('trusted documents', () => {
  it('by default runs any document (Apollo Studio, GraphiQL), and a known one sent by its hash alone', async () => {
    expect(await post('any', { query: '{ __typename }' })).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    expect(await post('any', byHash(hashOf(PING)))).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it('with SVC_TRUSTED_DOCUMENTS=only refuses a document it does not know with 400, before planning', async () => {
    const refused = await post('only', { query: 'query Other { __typename }' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    expect(refused.body.data).toBeUndefined();
  });

  it('with SVC_TRUSTED_DOCUMENTS=only runs a known document by text, whatever its spacing and comments, or by hash', async () => {
    expect(await post('only', { query: '# the health check\nquery Ping { __typename }' })).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    expect(await post('only', byHash(hashOf(PING)))).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it('with SVC_TRUSTED_DOCUMENTS=only lets no client register a document the APQ way', async () => {
    const other = 'query Other { __typename }';
    const register = await post('only', { query: other, ...byHash(hashOf(other)) });
    expect(register.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    const again = await post('only', byHash(hashOf(other)));
    expect(again.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});
