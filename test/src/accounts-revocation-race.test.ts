import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Revocation without a race (kit session-revocation.ts): logins with the right password run while
 * an admin changes the account, round after round, for each kind of change. Once the change has
 * answered, no token from those logins may still work unless it was signed for the account as it
 * is after the change (a login that read the account after it). A login that read the account
 * before the change and signed after it is the case a "not before" second missed.
 */

let platform: TestPlatform;
let admin: string;
const ROUNDS = 4;
/** Logins a round, one every SPACING ms: together they span more than a second around the change. */
const LOGINS = 12;
const SPACING = 90;
const PASSWORD = 'a-long-first-password';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let address = 0;

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { roles: string[]; tenants: string[] | '*'; sites: string[] | '*' };

/** The change, as the admin API makes it, and what a token signed after it must say (undefined: no token may work). */
const CHANGES: Record<string, { send: (username: string) => Promise<number>; after?: { roles: string[]; tenants: string[]; sites: string[] } }> = {
  disable: { send: async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}/disable`, { method: 'POST', headers: bearer(admin), json: {} })).status },
  password: { send: async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}/password`, { method: 'PUT', headers: bearer(admin), json: { password: 'another-long-password' } })).status },
  roles: { send: async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}`, { method: 'PATCH', headers: bearer(admin), json: { roles: ['reviewer'] } })).status, after: { roles: ['reviewer'], tenants: ['t1', 't2'], sites: ['s1', 's2'] } },
  tenants: { send: async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}`, { method: 'PATCH', headers: bearer(admin), json: { tenants: ['t1'] } })).status, after: { roles: ['analyst'], tenants: ['t1'], sites: ['s1', 's2'] } },
  sites: { send: async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}`, { method: 'PATCH', headers: bearer(admin), json: { sites: ['s2'] } })).status, after: { roles: ['analyst'], tenants: ['t1', 't2'], sites: ['s2'] } },
};

/** Whether the platform still takes the token (the viewer query: verified by the analysis subgraph). */
async function works(token: string): Promise<boolean> {
  const reply = await gql(platform.router, '{ viewer { subject } }', {}, bearer(token));
  return !!reply.body.data?.viewer;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.token({ subject: 'root' });
});
afterAll(async () => {
  await platform?.close();
});

describe('a change to an account during concurrent logins', () => {
  it.each(Object.keys(CHANGES))('%s: every token issued before the change took effect is refused, including those signed concurrently', async (kind) => {
    const change = CHANGES[kind]!;
    let raced = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const username = `race-${kind}-${round}`;
      const created = await call(`${platform.bridge}/api/v1/admin/users`, { headers: bearer(admin), json: { username, password: PASSWORD, roles: ['analyst'], tenants: ['t1', 't2'], sites: ['s1', 's2'] } });
      expect(created.status).toBe(201);
      // Logins one every 90 ms for over a second, the change sent between the second and the third
      // (so the first logins have read the account before it, however slow the machine): whenever
      // the change takes effect (a 'not before' second took effect at the next whole second), some
      // login reads the account just before it and signs just after it.
      const from = `203.0.113.${++address % 250}`;
      const logins = Array.from({ length: LOGINS }, (_, i) =>
        new Promise((resolve) => setTimeout(resolve, i * SPACING)).then(() => call(`${platform.bridge}/api/v1/auth/token`, { json: { username, password: PASSWORD }, headers: { 'x-forwarded-for': from } })),
      );
      const changed = new Promise((resolve) => setTimeout(resolve, SPACING * 1.5)).then(() => change.send(username));
      expect(await changed).toBe(200);
      const tokens = (await Promise.all(logins)).filter((r) => r.status === 200).map((r) => r.body.data.accessToken as string);
      for (const token of tokens) {
        const claims = claimsOf(token);
        const signedAfter = !!change.after && JSON.stringify(claims.roles) === JSON.stringify(change.after.roles) && JSON.stringify(claims.tenants) === JSON.stringify(change.after.tenants) && JSON.stringify(claims.sites) === JSON.stringify(change.after.sites);
        if (!signedAfter) raced++;
        expect([kind, round, signedAfter, await works(token)]).toEqual([kind, round, signedAfter, signedAfter]);
      }
    }
    // The rounds must have raced at least once: a token with the old account's grants came back from a login.
    expect(raced).toBeGreaterThan(0);
  });
});
