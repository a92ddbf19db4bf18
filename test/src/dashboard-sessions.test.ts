import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * The dashboard's sessions on the whole platform: a sign-out ends the session for every copy of
 * its cookie, so does any change to the account, sign-ins are throttled per real client (the
 * dashboard passes its client on to the bridge, behind the same trusted-proxy rules) with the
 * bridge's Retry-After, and the cookie is Secure behind a trusted proxy that says https.
 */

let platform: TestPlatform;
let dashboard: string;
let admin: string;
const asPage = { 'x-svc-dashboard': '1', 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function signIn(username: string, password: string, headers: Record<string, string> = {}) {
  const reply = await fetch(`${dashboard}session`, { method: 'POST', headers: { ...asPage, ...headers }, body: JSON.stringify({ username, password }) });
  const cookies = reply.headers.getSetCookie();
  return { status: reply.status, retryAfter: reply.headers.get('retry-after'), cookies, cookie: cookies.map((c) => c.split(';')[0]).join('; '), body: (await reply.json()) as Record<string, unknown> };
}
const session = (cookie: string) => call(`${dashboard}session`, { headers: { cookie } });
const jobs = (cookie: string) => call(`${dashboard}api/v1/insight/jobs?first=1`, { headers: { cookie } });

async function createUser(username: string, password: string) {
  const reply = await call(`${platform.bridge}/api/v1/admin/users`, { headers: bearer(admin), json: { username, password, roles: ['analyst'], tenants: ['demo'], sites: ['demo'] } });
  expect(reply.status).toBe(201);
}

beforeAll(async () => {
  platform = await startTestPlatform();
  dashboard = platform.urls.dashboard!;
  admin = await platform.token({ subject: 'root' });
});
afterAll(async () => {
  await platform?.close();
});

describe("the dashboard's sessions", () => {
  it('ends on sign-out for every copy of the cookie, which never holds the token', async () => {
    await createUser('sofia', 'sofia-long-password');
    const signed = await signIn('sofia', 'sofia-long-password', { 'x-forwarded-for': '198.51.100.20' });
    expect(signed.status).toBe(200);
    expect(signed.cookie).toMatch(/svc_session=[A-Za-z0-9_-]{43}/);
    expect(signed.cookie).not.toMatch(/eyJ/); // no JWT in the browser
    const copy = signed.cookie;
    expect((await session(copy)).status).toBe(200);
    expect((await jobs(copy)).status).toBe(200);
    const out = await call(`${dashboard}session`, { method: 'DELETE', headers: { ...asPage, cookie: signed.cookie } });
    expect(out.status).toBe(200);
    const after = await session(copy);
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Your session ended; sign in again');
    expect((await jobs(copy)).status).toBe(401);
  });

  it('ends when the account changes: disabled, given a new password, or new grants', async () => {
    const changes: [string, (username: string) => Promise<number>][] = [
      ['disable', async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}/disable`, { method: 'POST', headers: bearer(admin), json: {} })).status],
      ['password', async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}/password`, { method: 'PUT', headers: bearer(admin), json: { password: 'a-new-long-password' } })).status],
      ['roles', async (u) => (await call(`${platform.bridge}/api/v1/admin/users/${u}`, { method: 'PATCH', headers: bearer(admin), json: { roles: ['reviewer'] } })).status],
    ];
    for (const [kind, change] of changes) {
      const username = `changed-${kind}`;
      await createUser(username, 'first-long-password');
      const signed = await signIn(username, 'first-long-password', { 'x-forwarded-for': '198.51.100.21' });
      expect((await session(signed.cookie)).status).toBe(200);
      expect(await change(username)).toBe(200);
      expect([kind, (await session(signed.cookie)).status]).toEqual([kind, 401]);
      expect([kind, (await jobs(signed.cookie)).status]).toEqual([kind, 401]);
    }
  });

  it('throttles sign-ins per real client: one client failing does not lock out another, and its 429 carries Retry-After', async () => {
    await createUser('bruno', 'bruno-long-password');
    let refused: Awaited<ReturnType<typeof signIn>> | undefined;
    // Wrong passwords for ever new usernames: past the address's 30 attempts, only the address is held.
    for (let i = 0; i < 40 && !refused; i++) {
      const attempt = await signIn(`nobody-${i}`, 'wrong-password', { 'x-forwarded-for': '203.0.113.66' });
      if (attempt.status === 429) refused = attempt;
      else expect(attempt.status).toBe(401);
    }
    expect(refused?.status).toBe(429);
    expect(Number(refused!.retryAfter)).toBeGreaterThan(0);
    const other = await signIn('bruno', 'bruno-long-password', { 'x-forwarded-for': '203.0.113.67' });
    expect(other.status).toBe(200);
    // The same client is still held, whoever it signs in as.
    expect((await signIn('bruno', 'bruno-long-password', { 'x-forwarded-for': '203.0.113.66' })).status).toBe(429);
  });

  it('marks the cookie Secure behind a trusted proxy that says https, and not over plain http', async () => {
    await createUser('tess', 'tess-long-password');
    const https = await signIn('tess', 'tess-long-password', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.30' });
    expect(https.status).toBe(200);
    for (const cookie of https.cookies) expect(cookie).toMatch(/; Secure/);
    const plain = await signIn('tess', 'tess-long-password', { 'x-forwarded-for': '198.51.100.31' });
    for (const cookie of plain.cookies) expect(cookie).not.toMatch(/Secure/);
  });
});
