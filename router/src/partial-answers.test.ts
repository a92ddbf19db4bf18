import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@svc/kit';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startRouter, type RunningRouter } from './router.js';

/**
 * Partial answers through the real router over stand-in subgraphs on port 0: insight lists five
 * proposals whose targets are contents (cms), a crawl job (crawl) and an agent (llm); the stand-ins
 * answer their references as the platform's subgraphs do (kit reference-loader.ts): a missing
 * entity null with ENTITY_NOT_FOUND at its `_entities` index, an unreadable one with FORBIDDEN.
 * Each case says what one stand-in does.
 */
const SUPERGRAPH = fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url));

type Behaviour = 'answer' | 'bare-null' | 'down' | 'http-503' | 'hang';
const behaviour: Record<string, Behaviour> = { insight: 'answer', cms: 'answer', crawl: 'answer', llm: 'answer' };

const PROPOSALS = [
  { actionId: 'a0', targetType: 'Content', target: { __typename: 'Content', id: 'c-live' } },
  { actionId: 'a1', targetType: 'CrawlJob', target: { __typename: 'CrawlJob', jobId: 'j-gone' } },
  { actionId: 'a2', targetType: 'Agent', target: { __typename: 'Agent', code: 'other-owners' } },
  { actionId: 'a3', targetType: 'Content', target: { __typename: 'Content', id: 'c-gone' } },
  { actionId: 'a4', targetType: 'CrawlJob', target: { __typename: 'CrawlJob', jobId: 'j-live' } },
];

/** What each stand-in knows: found entities by key, and the keys it refuses. */
const ENTITIES: Record<string, { found: Record<string, Record<string, unknown>>; forbidden?: string[] }> = {
  cms: { found: { 'c-live': { __typename: 'Content', title: 'Pricing' } } },
  crawl: { found: { 'j-live': { __typename: 'CrawlJob', jobName: 'Competitor prices' } } },
  llm: { found: {}, forbidden: ['other-owners'] },
};

function answerOf(name: string, body: { query: string; variables?: { representations?: Record<string, string>[] } }): Record<string, unknown> {
  if (name === 'insight') return { data: { actionProposals: PROPOSALS } };
  const known = ENTITIES[name]!;
  const errors: Record<string, unknown>[] = [];
  const entities = (body.variables?.representations ?? []).map((representation, i) => {
    const key = representation.id ?? representation.jobId ?? representation.code ?? '';
    const found = known.found[key];
    if (found) return found;
    if (behaviour[name] === 'bare-null') return null;
    const code = known.forbidden?.includes(key) ? 'FORBIDDEN' : 'ENTITY_NOT_FOUND';
    errors.push({ message: `${representation.__typename} ${key}: ${code}`, path: ['_entities', i], extensions: { code } });
    return null;
  });
  return { data: { _entities: entities }, ...(errors.length ? { errors } : {}) };
}

const servers: Server[] = [];
const urls: Record<string, string> = {};
let router: RunningRouter;

beforeAll(async () => {
  for (const name of Object.keys(behaviour)) {
    const server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
        const how = behaviour[name];
        if (how === 'hang') return; // never answers, like a SIGSTOPped process
        if (how === 'down') req.socket.destroy();
        else if (how === 'http-503') {
          res.writeHead(503, { 'content-type': 'text/html' });
          res.end('<h1>Service Unavailable</h1>');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(req.url === '/ready' ? { status: 'ready' } : answerOf(name, JSON.parse(text))));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  }
  router = await startRouter({
    supergraphSdl: await readFile(SUPERGRAPH, 'utf8'),
    subgraphUrls: urls,
    log: createLogger({ level: 'silent' }),
    corsOrigins: [],
    trustedProxies: [],
    maxBodyBytes: 1 << 20,
    graphiqlTabs: [],
    // Long enough for the stand-ins that do answer on a loaded machine; the hanging one costs it once per case.
    subgraphTimeouts: { queryMs: 1500, mutationMs: 1500 },
  }, 0, '127.0.0.1');
});

afterAll(async () => {
  await router?.close(1000);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const QUERY = '{ actionProposals { actionId targetType target { __typename ... on Content { title } ... on CrawlJob { jobName } ... on Agent { budget { agentCode } } } } }';

async function ask(query = QUERY): Promise<{ data?: { actionProposals: { actionId: string; target: unknown }[] } | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> }> {
  const response = await fetch(`${router.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

const targets = (body: Awaited<ReturnType<typeof ask>>) => body.data?.actionProposals.map((p) => [p.actionId, p.target]);
const located = (body: Awaited<ReturnType<typeof ask>>) => (body.errors ?? []).map((e) => [e.path, e.extensions?.code, e.extensions?.serviceName]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('a federated answer with entities that cannot be read', () => {
  it('nulls only each unreadable target, with its code at its own path (not at the n-th target of the list)', async () => {
    const body = await ask();
    expect(targets(body)).toEqual([
      ['a0', { __typename: 'Content', title: 'Pricing' }],
      ['a1', null],
      ['a2', null],
      ['a3', null],
      ['a4', { __typename: 'CrawlJob', jobName: 'Competitor prices' }],
    ]);
    expect(located(body)).toEqual([
      [['actionProposals', 1, 'target'], 'ENTITY_NOT_FOUND', 'crawl'],
      [['actionProposals', 2, 'target'], 'FORBIDDEN', 'llm'],
      [['actionProposals', 3, 'target'], 'ENTITY_NOT_FOUND', 'cms'],
    ]);
    expect(body.extensions?.valueCompletion).toBeUndefined();
  });

  it('reports in errors, never in extensions.valueCompletion, a null a subgraph answered without a reason', async () => {
    behaviour.cms = 'bare-null';
    try {
      // Only cms is asked: no fetch fails, and the gateway alone would answer this null in extensions.valueCompletion.
      const alone = await ask('{ actionProposals { actionId target { ... on Content { title } } } }');
      expect(targets(alone)).toEqual([['a0', { title: 'Pricing' }], ['a1', {}], ['a2', {}], ['a3', null], ['a4', {}]]);
      expect(alone.extensions).toBeUndefined();
      expect(alone.errors).toEqual([expect.objectContaining({ message: 'Cannot return null for non-nullable field Content.title.', path: ['actionProposals', 3, 'target', 'title'] })]);
      // Beside failed fetches the gateway would drop it: it is kept, at a path no other error covers.
      const beside = await ask();
      expect(targets(beside)![3]).toEqual(['a3', null]);
      expect(beside.extensions?.valueCompletion).toBeUndefined();
      expect(beside.errors?.map((e) => [e.message, e.path])).toEqual(expect.arrayContaining([['Cannot return null for non-nullable field Content.title.', ['actionProposals', 3, 'target', 'title']]]));
      expect(beside.errors?.filter((e) => JSON.stringify(e.path).startsWith('["actionProposals",1,'))).toHaveLength(1);
    } finally {
      behaviour.cms = 'answer';
    }
  });

  it.each([
    ['down', 'is unreachable'],
    ['http-503', 'answered HTTP 503'],
    ['hang', 'did not answer within 1.5 s'],
  ] as const)('answers the other subgraphs\' data when crawl is %s, with SUBGRAPH_UNAVAILABLE naming crawl at each of its targets', async (how, words) => {
    behaviour.crawl = how;
    try {
      const body = await ask();
      expect(targets(body)).toEqual([['a0', { __typename: 'Content', title: 'Pricing' }], ['a1', null], ['a2', null], ['a3', null], ['a4', null]]);
      expect(located(body)).toEqual([
        [['actionProposals', 1, 'target'], 'SUBGRAPH_UNAVAILABLE', 'crawl'],
        [['actionProposals', 2, 'target'], 'FORBIDDEN', 'llm'],
        [['actionProposals', 3, 'target'], 'ENTITY_NOT_FOUND', 'cms'],
        [['actionProposals', 4, 'target'], 'SUBGRAPH_UNAVAILABLE', 'crawl'],
      ]);
      expect(body.errors!.find((e) => e.extensions?.serviceName === 'crawl')!.message).toContain(words);
    } finally {
      behaviour.crawl = 'answer';
    }
  });

  it('answers data: null with its reason in errors when the subgraph of a non-null root field is down', async () => {
    behaviour.insight = 'down';
    try {
      const body = await ask();
      expect(body.data).toBeNull();
      expect(located(body)).toEqual([[['actionProposals'], 'SUBGRAPH_UNAVAILABLE', 'insight']]);
    } finally {
      behaviour.insight = 'answer';
    }
  });

  it('says in /ready which subgraph is down, and stays ready for the others', async () => {
    // Probes are kept for a second: wait for one made after the cases above.
    const readyBody = async () => (await (await fetch(`${router.url}/ready`)).json()) as { status: string; dependencies: Record<string, string> };
    for (let body = await readyBody(); body.status !== 'ready'; body = await readyBody()) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readyBody()).toEqual({ status: 'ready', service: 'router', dependencies: { cms: 'up', crawl: 'up', insight: 'up', llm: 'up' } });
    behaviour.crawl = 'hang';
    try {
      const degraded = await (async () => {
        for (;;) {
          const ready = await fetch(`${router.url}/ready`);
          const body = (await ready.json()) as { status: string; dependencies: Record<string, string> };
          if (body.status !== 'ready') return { status: ready.status, body };
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      expect(degraded).toEqual({ status: 200, body: { status: 'degraded', service: 'router', dependencies: { cms: 'up', crawl: 'down (degraded)', insight: 'up', llm: 'up' } } });
    } finally {
      behaviour.crawl = 'answer';
    }
  });
});
