import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/** The whole platform with SVC_TRUSTED_DOCUMENTS=only: its own clients keep working, ad-hoc documents are refused. */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ SVC_TRUSTED_DOCUMENTS: 'only' });
});
afterAll(() => platform?.close());

describe('SVC_TRUSTED_DOCUMENTS=only on the whole platform', () => {
  it('serves the REST bridge\'s routes, whose operations are known documents', async () => {
    const login = await call(`${platform.bridge}/api/v1/auth/token`, { method: 'POST', json: { username: 'admin', password: 'test-admin-password' } });
    expect(login.status).toBe(200);
    const token = login.body.data.accessToken as string;
    expect((await call(`${platform.bridge}/api/v1/contents/welcome`, { headers: { 'X-Svc-Site-Key': 'demo', Accept: 'application/json' } })).status).toBe(200);
    const actions = await call(`${platform.bridge}/api/v1/insight/actions?first=5`, { headers: { authorization: `Bearer ${token}`, 'x-svc-tenant-id': 'demo' } });
    expect(actions.status).toBe(200);
  });

  it('refuses an ad-hoc document at the router with 400 PERSISTED_QUERY_NOT_IN_LIST', async () => {
    const reply = await gql(platform.router, '{ __typename }');
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
  });
});
