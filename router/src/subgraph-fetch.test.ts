import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SubgraphTimeoutError, subgraphFetcher, undiciTransport, type SubgraphRequest } from './subgraph-fetch.js';

/** A subgraph that answers after a turn, counting what it was sent. */
function fakeSubgraph(status = 200) {
  const calls: { url: string; body: string; auth: string | null }[] = [];
  const fetchImpl = async (url: string, init: SubgraphRequest) => {
    calls.push({ url, body: String(init.body), auth: init.headers?.authorization ?? null });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { n: calls.length } }) };
  };
  return { calls, fetchImpl };
}

const post = (query: string, auth = 'Bearer a', variables: Record<string, unknown> = {}): SubgraphRequest & { headers: Record<string, string> } => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ query, variables }) });

describe('subgraphFetcher', () => {
  it('sends identical queries in flight once and gives each caller the whole answer', async () => {
    const { calls, fetchImpl } = fakeSubgraph();
    const send = subgraphFetcher(fetchImpl);
    const answers = await Promise.all(Array.from({ length: 10 }, () => send('http://cms/graphql', post('{ a }'))));
    expect(calls).toHaveLength(1);
    for (const answer of answers) expect(await answer.json()).toEqual({ data: { n: 1 } });
    // Once it has answered, the next one is sent again: nothing is cached.
    await send('http://cms/graphql', post('{ a }'));
    expect(calls).toHaveLength(2);
  });

  it('shares between requests that differ only in their own request id and the second of the client address\'s signature', async () => {
    const { calls, fetchImpl } = fakeSubgraph();
    const send = subgraphFetcher(fetchImpl);
    const withIds = (id: string, signature: string) => {
      const init = post('{ a }');
      return { ...init, headers: { ...init.headers, 'x-request-id': id, 'x-svc-client-ip': '10.0.0.1', 'x-svc-client-ip-signature': signature } };
    };
    await Promise.all([send('http://cms/graphql', withIds('r1', '100.aa')), send('http://cms/graphql', withIds('r2', '101.bb'))]);
    expect(calls).toHaveLength(1);
    // Another client address is another caller.
    const other = withIds('r3', '101.bb');
    await Promise.all([send('http://cms/graphql', withIds('r4', '101.bb')), send('http://cms/graphql', { ...other, headers: { ...other.headers, 'x-svc-client-ip': '10.0.0.2' } })]);
    expect(calls).toHaveLength(3);
  });

  it('hands an in-process answer to its one reader as it is, and to readers sharing it each their own copy of it as it came', async () => {
    const made: Record<string, unknown>[] = [];
    const send = subgraphFetcher(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const result = { data: { items: [{ id: 'a' }] } };
      made.push(result);
      return { status: 200, headers: { 'content-type': 'application/json' }, result };
    });
    const alone = await (await send('http://insight/graphql', post('{ items { id } }'))).json();
    expect(alone).toBe(made[0]);
    const readers = await Promise.all(Array.from({ length: 3 }, () => send('http://insight/graphql', post('{ items { id } }'))));
    expect(made).toHaveLength(2);
    // The gateway merges other subgraphs' data into what it read: the first reader doing so changes nobody else's.
    const first = (await readers[0]!.json()) as { data: { items: { id: string; title?: string }[] } };
    first.data.items[0]!.title = 'merged';
    for (const reader of readers.slice(1)) expect(await reader.json()).toEqual({ data: { items: [{ id: 'a' }] } });
    expect(first).not.toBe(made[1]);
    expect(made[1]).toEqual({ data: { items: [{ id: 'a' }] } });
    expect(await readers[2]!.text()).toBe('{"data":{"items":[{"id":"a"}]}}');
  });

  it('never shares across callers, variables, documents or subgraphs, and never a mutation', async () => {
    const { calls, fetchImpl } = fakeSubgraph();
    const send = subgraphFetcher(fetchImpl);
    await Promise.all([
      send('http://cms/graphql', post('{ a }', 'Bearer a')),
      send('http://cms/graphql', post('{ a }', 'Bearer b')),
      send('http://cms/graphql', post('query($x: Int) { a(x: $x) }', 'Bearer a', { x: 1 })),
      send('http://cms/graphql', post('query($x: Int) { a(x: $x) }', 'Bearer a', { x: 2 })),
      send('http://crawl/graphql', post('{ a }', 'Bearer a')),
      send('http://cms/graphql', post('mutation { publish }')),
      send('http://cms/graphql', post('mutation { publish }')),
      send('http://cms/graphql', post('  mutation M { publish }')),
    ]);
    expect(calls).toHaveLength(8);
  });

  it('hands a subgraph\'s 400 with GraphQL errors on as a 200, shared or not', async () => {
    const { fetchImpl } = fakeSubgraph(400);
    const send = subgraphFetcher(fetchImpl);
    const [a, b] = await Promise.all([send('http://cms/graphql', post('{ a }')), send('http://cms/graphql', post('{ a }'))]);
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect((await send('http://cms/graphql', post('mutation { x }'))).status).toBe(200);
  });

  it('sends over kept-alive connections, the body at its length in one piece, and reads the answer whole', async () => {
    const seen: { chunked: boolean; length: string | undefined; body: string; port: number | undefined }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push({ chunked: req.headers['transfer-encoding'] === 'chunked', length: req.headers['content-length'], body, port: req.socket.remotePort });
        res.writeHead(seen.length === 1 ? 200 : 400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ data: { n: seen.length } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const pools = undiciTransport();
    const fetcher = subgraphFetcher(pools.send);
    try {
      const first = await fetcher(url, post('{ a }', 'Bearer a'));
      const second = await fetcher(url, post('{ b }'));
      expect([first.status, first.ok, first.headers.get('Content-Type')]).toEqual([200, true, 'application/json']);
      expect(await first.json()).toEqual({ data: { n: 1 } });
      // The subgraph's 400 with JSON is handed on as a 200.
      expect([second.status, await second.text()]).toEqual([200, '{"data":{"n":2}}']);
      const sent = String(post('{ a }', 'Bearer a').body);
      expect(seen[0]).toMatchObject({ chunked: false, length: String(Buffer.byteLength(sent)), body: sent });
      // Kept alive: more requests one after another reuse the connections (undici's pool may open a second while the first finishes).
      for (let i = 0; i < 4; i++) await (await fetcher(url, post(`{ c${i} }`))).text();
      expect(new Set(seen.map((s) => s.port)).size).toBeLessThanOrEqual(2);
    } finally {
      await pools.close();
      server.close();
    }
  });

  it('gives up on a subgraph past the timeout of the operation\'s kind, closing the connection, and shares the refusal', async () => {
    const opened: import('node:net').Socket[] = [];
    const closed: boolean[] = [];
    // A subgraph that reads requests and never answers (as a SIGSTOPped process's connections do).
    const server = createServer(() => undefined);
    server.on('connection', (socket) => {
      opened.push(socket);
      socket.on('close', () => closed.push(true));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const pools = undiciTransport();
    const fetcher = subgraphFetcher(pools.send, { queryMs: 150, mutationMs: 400 });
    try {
      // Two identical queries share one call, and its refusal: one connection.
      const queries = await Promise.allSettled([fetcher(url, post('{ a }')), fetcher(url, post('{ a }'))]);
      expect(queries.map((q) => (q.status === 'rejected' ? (q.reason as SubgraphTimeoutError).timeoutMs : 'answered'))).toEqual([150, 150]);
      const mutation = fetcher(url, post('mutation { publish }')).then(() => 'answered', (error: SubgraphTimeoutError) => error.timeoutMs);
      expect(await mutation).toBe(400);
      // The waiting connections were closed, not left to the frozen subgraph.
      await new Promise<void>((resolve) => {
        const check = () => (closed.length >= opened.length ? resolve() : setTimeout(check, 10));
        check();
      });
      expect(opened.length).toBe(2);
    } finally {
      await pools.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
