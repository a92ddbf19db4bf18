import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getIntrospectionQuery } from 'graphql';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ SVC_MAX_BODY_BYTES: '4096' });
});
afterAll(() => platform?.close());

const submitUrl = () => `${platform.bridge}/api/v1/forms/contact/submit`;

describe('bad input at the REST bridge, through real sockets', () => {
  it('answers malformed JSON with 400 naming the problem', async () => {
    const reply = await call(submitUrl(), { body: '{"email": ', headers: { 'content-type': 'application/json', 'X-Svc-Site-Key': 'demo' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ type: expect.stringMatching(/\/errors\/malformed-json$/), detail: expect.stringContaining('not valid JSON') });
  });

  it('answers a wrong content type with 415', async () => {
    const reply = await call(submitUrl(), { body: 'email=a@b.c', headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Svc-Site-Key': 'demo' } });
    expect(reply.status).toBe(415);
    expect(reply.body.detail).toContain('application/x-www-form-urlencoded');
  });

  it('answers an oversized body with 413 without reading it all', async () => {
    const reply = await call(submitUrl(), { json: { message: 'x'.repeat(10_000) }, headers: { 'X-Svc-Site-Key': 'demo' } });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ status: 413, type: expect.stringMatching(/\/errors\/payload-too-large$/), detail: expect.stringContaining('4096 bytes') });
  });

  it('answers unknown paths and wrong methods in the shape of the service', async () => {
    const unknown = await call(`${platform.bridge}/api/v1/contents`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/problem\+json/);
    const method = await call(`${platform.bridge}/api/v1/contents/welcome`, { method: 'DELETE', headers: { 'X-Svc-Site-Key': 'demo' } });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('GET');
    const analysis = await call(`${platform.bridge}/api/v1/nothing-here`);
    expect(analysis.body).toEqual({ code: 404, message: expect.stringContaining('/api/v1/nothing-here'), data: null });
  });

  it('echoes the caller X-Request-Id, or makes one up', async () => {
    const given = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', 'X-Request-Id': 'trace-abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc-123');
    const made = await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', 'X-Request-Id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('login', () => {
  it('issues a bearer token for the local account in the analysis envelope', async () => {
    const reply = await call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'admin', password: 'test-admin-password' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ code: 200, message: 'OK', data: { accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600 } });
    const viewer = await gql(platform.router, '{ viewer { subject roles tenants sites } }', {}, { authorization: `Bearer ${reply.body.data.accessToken}` });
    expect(viewer.body.data.viewer).toEqual({ subject: 'admin', roles: ['admin'], tenants: ['*'], sites: ['*'] });
  });

  it('refuses wrong credentials with 401 and never says which part was wrong', async () => {
    const wrongPassword = await call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'admin', password: 'nope' } });
    const wrongUser = await call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'nobody', password: 'nope' } });
    for (const reply of [wrongPassword, wrongUser]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ code: 401, message: 'Invalid username or password', data: null });
    }
    const missing = await call(`${platform.bridge}/api/v1/auth/token`, { json: { username: 'admin' } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('password');
  });
});

describe('router', () => {
  it('allows Apollo Studio by CORS and refuses other origins', async () => {
    const studio = await fetch(platform.router, { method: 'OPTIONS', headers: { origin: 'https://studio.apollographql.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
    expect(studio.status).toBe(204);
    expect(studio.headers.get('access-control-allow-origin')).toBe('https://studio.apollographql.com');
    const other = await fetch(platform.router, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves introspection and refuses abusive queries (aliases, tokens)', async () => {
    const introspection = await gql(platform.router, '{ __schema { queryType { name } types { name } } }');
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    expect(introspection.body.data.__schema.types.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['Content', 'Delivery', 'AccessToken']));
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: deliveredContent(slug: "welcome") { etag }`).join(' ');
    const tooManyAliases = await gql(platform.router, `{ ${aliases} }`, {}, { 'X-Svc-Site-Key': 'demo' });
    expect(tooManyAliases.status).toBe(400);
    expect(tooManyAliases.body.errors?.[0]?.message).toMatch(/aliases/i);
    const fine = Array.from({ length: 5 }, (_, i) => `a${i}: deliveredContent(slug: "welcome") { etag }`).join(' ');
    expect((await gql(platform.router, `{ ${fine} }`, {}, { 'X-Svc-Site-Key': 'demo' })).body.errors).toBeUndefined();
    const huge = await gql(platform.router, `{ ${'__typename '.repeat(6000)} }`);
    expect(huge.status).toBe(413);
    expect(huge.body.errors?.[0]?.message).toContain('4096 bytes');
  });

  it('bounds introspection and __typename like other fields, while the standard introspection query still works (no token)', async () => {
    const standard = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    const studio = await gql(platform.router, standard);
    expect(studio.body.errors).toBeUndefined();
    expect(studio.body.data.__schema.queryType.name).toBe('Query');

    const chain = (levels: number) => `${'ofType { '.repeat(levels)}name${' }'.repeat(levels)}`;
    // (A deep __type was already refused by the cost limit, which counts it; __schema was not.)
    for (const query of [`{ __schema { types { ${chain(30)} } } }`, `{ __schema { types { fields { type { ${chain(12)} } } } } }`]) {
      const deep = await gql(platform.router, query);
      expect({ query, status: deep.status, message: deep.body.errors?.[0]?.message }).toEqual({ query, status: 400, message: expect.stringMatching(/^Introspection depth limit of 15 exceeded, found \d+\.$/) });
      expect(deep.body.data).toBeUndefined();
    }
    // The same bound on a subgraph reached directly.
    expect((await gql(platform.urls.cms!, `{ __type(name: "Content") { ${chain(30)} } }`)).body.errors?.[0]?.message).toMatch(/^Introspection depth limit/);

    const typenames = await gql(platform.router, `{ ${Array.from({ length: 31 }, (_, i) => `t${i}: __typename`).join(' ')} }`);
    expect(typenames.status).toBe(400);
    expect(typenames.body.errors?.[0]?.message).toMatch(/Aliases limit of 30 exceeded, found 31/);
  });

  it('forwards the caller headers to the subgraphs (site key reaches cms through the router)', async () => {
    const reply = await gql(platform.router, '{ deliveredContent(slug: "welcome") { content { slug } } }', {}, { 'X-Svc-Site-Key': 'demo' });
    expect(reply.body.data.deliveredContent.content.slug).toBe('welcome');
  });
});
