import { describe, expect, it } from '@jest/globals';
import { subgraphFetcher } from './subgraph-fetch.js';

/** A subgraph that answers after a turn, counting what it was sent. */
function fakeSubgraph(status = 200) {
  const calls: { url: string; body: string; auth: string | null }[] = [];
  const fetchImpl = async (url: string, init: RequestInit) => {
    calls.push({ url, body: String(init.body), auth: new Headers(init.headers).get('authorization') });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return new Response(JSON.stringify({ data: { n: calls.length } }), { status, headers: { 'content-type': 'application/json' } });
  };
  return { calls, fetchImpl };
}

const post = (query: string, auth = 'Bearer a', variables: Record<string, unknown> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ query, variables }) });

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
    const withIds = (id: string, signature: string): RequestInit => {
      const init = post('{ a }');
      return { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': id, 'x-svc-client-ip': '10.0.0.1', 'x-svc-client-ip-signature': signature } };
    };
    await Promise.all([send('http://cms/graphql', withIds('r1', '100.aa')), send('http://cms/graphql', withIds('r2', '101.bb'))]);
    expect(calls).toHaveLength(1);
    // Another client address is another caller.
    const other = withIds('r3', '101.bb');
    await Promise.all([send('http://cms/graphql', withIds('r4', '101.bb')), send('http://cms/graphql', { ...other, headers: { ...(other.headers as Record<string, string>), 'x-svc-client-ip': '10.0.0.2' } })]);
    expect(calls).toHaveLength(3);
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
});
