import { describe, expect, it } from '@jest/globals';
import { RemoteGraphQLDataSource } from '@apollo/gateway';
import { CLIENT_IP_HEADER, CLIENT_IP_SIGNATURE_HEADER, FORWARDED_HEADERS } from '@svc/kit';
import { SubgraphDataSource, type ForwardingContext } from './data-source.js';
import { SubgraphTimeoutError, type SubgraphRequest, type SubgraphResponse } from './subgraph-fetch.js';

/** A subgraph answering `answer`, recording what each data source sent it. */
function fakeFetch(answer: { status: number; type?: string; body: string; cacheControl?: string }) {
  const sent: { url: string; method?: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = async (url: string, init: SubgraphRequest): Promise<SubgraphResponse> => {
    sent.push({ url, method: init.method, headers: { ...(init.headers ?? {}) }, body: init.body });
    const headers: Record<string, string> = { 'content-type': answer.type ?? 'application/json' };
    if (answer.cacheControl) headers['cache-control'] = answer.cacheControl;
    return {
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      statusText: answer.status === 200 ? 'OK' : answer.status === 401 ? 'Unauthorized' : 'Internal Server Error',
      url,
      headers: { get: (name) => headers[name.toLowerCase()] ?? null },
      text: async () => answer.body,
      json: async () => JSON.parse(answer.body) as unknown,
    };
  };
  return { sent, fetch };
}

/** RemoteGraphQLDataSource as the router configured it before, forwarding the same headers. */
function remote(fetch: ReturnType<typeof fakeFetch>['fetch']) {
  return new RemoteGraphQLDataSource<ForwardingContext>({
    url: 'http://cms/graphql',
    fetcher: fetch as unknown as NonNullable<RemoteGraphQLDataSource['fetcher']>,
    willSendRequest({ request, context }) {
      if (!context.headers) return;
      for (const name of FORWARDED_HEADERS) {
        const value = context.headers[name];
        if (typeof value === 'string') request.http?.headers.set(name, value);
      }
      if (context.clientIp) {
        request.http?.headers.set(CLIENT_IP_HEADER, context.clientIp);
        if (context.clientIpSignature) request.http?.headers.set(CLIENT_IP_SIGNATURE_HEADER, context.clientIpSignature);
      }
    },
  });
}

const context: ForwardingContext = {
  headers: { authorization: 'Bearer t', 'x-svc-tenant-id': 'demo', 'x-request-id': 'r-1', cookie: 'not forwarded' },
  clientIp: '198.51.100.7',
  clientIpSignature: '1700000000.ab',
};

function optionsFor(restrict: (hint: object) => void) {
  return {
    kind: 'incoming operation',
    request: { query: 'query Q($id: ID!) { _entities(representations: []) { __typename } }', variables: { id: '1' }, operationName: 'Q', http: undefined },
    incomingRequestContext: { overallCachePolicy: { restrict } },
    context,
  } as never;
}

/** Runs both data sources on the same answer: what each sent, returned or threw, and the cache hints each gave. */
async function both(answer: Parameters<typeof fakeFetch>[0]) {
  const run = async (make: (fetch: ReturnType<typeof fakeFetch>['fetch']) => { process(options: never): Promise<unknown> }) => {
    const { sent, fetch } = fakeFetch(answer);
    const hints: object[] = [];
    let outcome: unknown;
    try {
      const result = (await make(fetch).process(optionsFor((hint) => hints.push(hint)))) as Record<string, unknown>;
      const { http, ...rest } = result;
      outcome = { result: rest, status: (http as { status: number }).status };
    } catch (error) {
      outcome = { error: (error as Error).message, extensions: (error as { extensions?: unknown }).extensions };
    }
    return { sent, outcome, hints };
  };
  return { ours: await run((fetch) => new SubgraphDataSource<ForwardingContext>('http://cms/graphql', fetch, 'cms')), theirs: await run((fetch) => remote(fetch)) };
}

describe('SubgraphDataSource does what RemoteGraphQLDataSource did for the router', () => {
  it('sends the same request: body in the same order, forwarded headers, client address', async () => {
    const { ours, theirs } = await both({ status: 200, body: '{"data":{"_entities":[]}}' });
    expect(ours.sent).toEqual(theirs.sent);
    expect(ours.sent[0]!.body).toBe('{"query":"query Q($id: ID!) { _entities(representations: []) { __typename } }","variables":{"id":"1"},"operationName":"Q"}');
    expect(ours.sent[0]!.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer t', 'x-svc-tenant-id': 'demo', 'x-request-id': 'r-1', [CLIENT_IP_HEADER]: '198.51.100.7', [CLIENT_IP_SIGNATURE_HEADER]: '1700000000.ab' });
    expect(ours.outcome).toEqual(theirs.outcome);
    expect(ours.outcome).toEqual({ result: { data: { _entities: [] } }, status: 200 });
  });

  it('fails the same way for a 401', async () => {
    const { ours, theirs } = await both({ status: 401, body: '{"errors":[{"message":"no"}]}' });
    expect(ours.outcome).toEqual(theirs.outcome);
    expect(ours.outcome).toHaveProperty('error');
  });


  it('restricts the cache policy by the answer\'s Cache-Control as before', async () => {
    for (const cacheControl of [undefined, 'max-age=60, public', 'private, max-age="30"', 'no-store']) {
      const { ours, theirs } = await both({ status: 200, body: '{"data":{}}', cacheControl });
      expect(ours.hints).toEqual(theirs.hints);
      expect(ours.hints).toHaveLength(1);
    }
  });
});

describe('SubgraphDataSource answers for a subgraph that does not answer', () => {
  const entities = (representations: unknown[]) => ({
    kind: 'incoming operation',
    request: { query: 'query Q($representations: [_Any!]!) { _entities(representations: $representations) { ... on Content { title } } }', variables: { representations }, operationName: 'Q', http: undefined },
    incomingRequestContext: { overallCachePolicy: { restrict: () => undefined } },
    context,
    pathInIncomingRequest: ['actionProposals', '@', 'target'],
  }) as never;
  const root = {
    kind: 'incoming operation',
    request: { query: 'query Q { contents(siteKey: "demo") { id } first: content(id: "1") { id } __typename }', variables: {}, operationName: 'Q', http: undefined },
    incomingRequestContext: { overallCachePolicy: { restrict: () => undefined } },
    context,
    pathInIncomingRequest: [],
  } as never;
  const failing = (how: 'refused' | 'timeout' | 'status' | 'not json') => async (url: string): Promise<SubgraphResponse> => {
    if (how === 'refused') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4004'), { code: 'ECONNREFUSED' });
    if (how === 'timeout') throw new SubgraphTimeoutError(2500);
    const status = how === 'status' ? 503 : 200;
    return { ok: status === 200, status, statusText: '', url, headers: { get: () => 'text/html' }, text: async () => '<html>', json: async () => JSON.parse('<html>') as unknown };
  };

  it.each([
    ['refused', 'The cms subgraph is unreachable; its part of the answer is missing', 'unreachable'],
    ['timeout', 'The cms subgraph did not answer within 2.5 s; its part of the answer is missing', 'timeout'],
    ['status', 'The cms subgraph answered HTTP 503; its part of the answer is missing', 'status'],
    ['not json', 'The cms subgraph answered something that is not a GraphQL result; its part of the answer is missing', 'invalid'],
  ] as const)('%s: each reference null with SUBGRAPH_UNAVAILABLE at its index, and each root field', async (how, message, kind) => {
    const failures: [string, string][] = [];
    const source = new SubgraphDataSource<ForwardingContext>('http://cms/graphql', failing(how), 'cms', (service, failure) => failures.push([service, failure.kind]));
    const answer = await source.process(entities([{ __typename: 'Content', id: 'a' }, { __typename: 'Content', id: 'b' }]));
    const error = (path: (string | number)[]) => ({ message, path, extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: 'cms' } });
    expect(answer).toEqual({ data: { _entities: [null, null] }, errors: [error(['_entities', 0]), error(['_entities', 1])] });
    expect(await source.process(root)).toEqual({ data: null, errors: [error(['contents']), error(['first'])] });
    expect(failures).toEqual([['cms', kind], ['cms', kind]]);
  });
});
