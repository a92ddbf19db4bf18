import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Input a client can send is refused with a 4xx naming what is wrong, at every edge (bridge,
 * router, a subgraph called directly), never a 5xx: bad text (NUL, unpaired surrogates),
 * nesting, GraphQL syntax and token limits, dates out of range, malformed chat arrays and a
 * model that does not exist.
 */

let platform: TestPlatform;
let admin: string;
let crawler: string;
let agentKey: string;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const NUL = 'wel\u0000come';
const LONE = 'wel\ud800come';

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.token({ subject: 'root' });
  crawler = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
  const key = await call(`${platform.bridge}/admin/v1/keys`, { headers: bearer(TEST_MASTER_KEY), json: { agentCode: 'probe' } });
  agentKey = key.body.key;
});
afterAll(async () => {
  await platform?.close();
});

describe('bad text', () => {
  it('is refused in REST path parameters, query values, headers and bodies, naming where', async () => {
    const path = await call(`${platform.bridge}/api/v1/contents/wel%00come`, { headers: { 'X-Svc-Site-Key': 'demo' } });
    expect(path.status).toBe(400);
    expect(path.body.detail).toContain('Path parameter contentSlug');
    const query = await call(`${platform.bridge}/api/v1/insight/jobs?status=%00`, { headers: { ...bearer(admin), 'x-svc-tenant-id': 'demo' } });
    expect(query.status).toBe(400);
    expect(query.body.message).toContain('Query parameter status');
    const body = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(admin), 'x-svc-tenant-id': 'demo' }, json: { prompt: LONE } });
    expect(body.status).toBe(400);
    expect(body.body).toMatchObject({ code: 400, message: expect.stringContaining('/prompt: it contains an unpaired UTF-16 surrogate') });
    const form = await call(`${platform.bridge}/api/v1/forms/contact/submit`, { headers: { 'X-Svc-Site-Key': 'demo' }, json: { applicantName: NUL } });
    expect(form.status).toBe(400);
    const agent = await call(`${platform.bridge}/admin/v1/budgets`, { headers: bearer(TEST_MASTER_KEY), json: { agentCode: NUL, monthlyBudgetUsd: 1 } });
    expect(agent.status).toBe(400);
  });

  it('is refused in GraphQL variables and string literals, at the router and at a subgraph', async () => {
    for (const url of [platform.router, platform.urls.cms!]) {
      const variable = await gql(url, 'query($s: String!) { contents(siteKey: $s) { id } }', { s: NUL }, bearer(admin));
      expect(variable.status).toBe(400);
      expect(variable.body.errors![0]!.message).toContain('/variables/s: it contains a NUL character');
      const literal = await gql(url, '{ contents(siteKey: "de\\ud800mo") { id } }', {}, bearer(admin));
      expect(literal.status).toBe(400);
      const nulLiteral = await gql(url, '{ contents(siteKey: "de\\u0000mo") { id } }', {}, bearer(admin));
      expect(nulLiteral.status).toBe(400);
      expect(nulLiteral.body.errors![0]!.message).toContain('NUL character');
    }
  });
});

describe('structure', () => {
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  it('refuses JSON nested 20,000 deep at the bridge, the router and a subgraph', async () => {
    const bridge = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { ...bearer(admin), 'x-svc-tenant-id': 'demo', 'content-type': 'application/json' }, body: `{"prompt":${deep(20_000)}}` });
    expect(bridge.status).toBe(400);
    expect(bridge.body.message).toContain('nests deeper than 64 levels');
    for (const url of [platform.router, platform.urls.llm!]) {
      const reply = await call(url, { headers: { ...bearer(admin), 'content-type': 'application/json' }, body: `{"query":"{ __typename }","variables":${deep(20_000)}}` });
      expect(reply.status).toBe(400);
    }
  });

  it('answers GraphQL syntax errors and the token limit with 400', async () => {
    const syntax = await gql(platform.router, '{ contents(siteKey: "demo") { id ', {}, bearer(admin));
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors![0]!.message).toMatch(/^Syntax Error/);
    const tokens = await gql(platform.router, `{ ${'a: __typename '.repeat(3000)}}`, {}, bearer(admin));
    expect(tokens.status).toBe(400);
    expect(tokens.body.errors![0]!.message).toContain('Token limit');
  });

  it('answers an operation name the document does not hold, or a missing one among several, with 400 (not the gateway executor\'s 500)', async () => {
    const unknown = await call(platform.router, { headers: bearer(admin), json: { query: '{ __typename }', operationName: 'GetAToken' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ message: 'Unknown operation named "GetAToken".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } });
    const several = await call(platform.router, { headers: bearer(admin), json: { query: 'query A { __typename } query B { __typename }' } });
    expect(several.status).toBe(400);
    expect(several.body.errors[0].message).toContain('Must provide operation name');
    const named = await call(platform.router, { headers: bearer(admin), json: { query: 'query A { __typename } query B { __typename }', operationName: 'B' } });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('values', () => {
  it('refuses dates outside the years 1-9999 naming the argument, where the database would fail', async () => {
    const usage = await gql(platform.router, '{ usage(from: "275760-09-13") { day } }', {}, bearer(admin));
    expect(usage.body.errors![0]).toMatchObject({ message: expect.stringContaining('from must be an ISO 8601 date or time in the years 1-9999'), extensions: { code: 'BAD_USER_INPUT' } });
    const counts = await gql(platform.router, '{ crawlItemCounts(from: "0000-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { day } }', {}, bearer(admin));
    expect(counts.body.errors![0]!.extensions!.code).not.toBe('INTERNAL_SERVER_ERROR');
  });

  it('refuses malformed chat arrays with 400 naming the parameter, streamed or not', async () => {
    const chat = (extra: Record<string, unknown>) =>
      call(`${platform.bridge}/v1/chat/completions`, { headers: bearer(agentKey), json: { model: 'auto-route', messages: [{ role: 'user', content: 'hi' }], ...extra } });
    const cases: [Record<string, unknown>, string][] = [
      [{ tools: [null] }, 'tools[0]'],
      [{ messages: [{ role: 'user', content: [null] }] }, 'messages[0].content[0]'],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }, 'messages[0].content[0].text'],
      [{ messages: [{ role: 'assistant', tool_calls: [null] }, { role: 'user', content: 'x' }] }, 'messages[0].tool_calls[0]'],
      [{ stop: [null] }, 'stop[0]'],
      [{ tool_choice: 5 }, 'tool_choice'],
      [{ stream: true, tools: [{ type: 'function', function: { name: 'bad name!' } }] }, 'tools[0].function.name'],
    ];
    for (const [extra, param] of cases) {
      const reply = await chat(extra);
      expect({ param, status: reply.status }).toEqual({ param, status: 400 });
      expect(reply.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('answers a knowledge search with a model the gateway does not serve as the caller\'s mistake', async () => {
    const reply = await gql(platform.router, '{ searchKnowledge(query: "storm", model: "no-such-model") { chunkId } }', {}, bearer(crawler));
    expect(reply.body.errors![0]).toMatchObject({ message: expect.stringContaining('cannot embed with model "no-such-model"'), extensions: { code: 'BAD_USER_INPUT' } });
  });
});
