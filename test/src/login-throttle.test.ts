import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Login throttling per username and per client address, on Redis, shared by two instances of
 * the platform (same database, same Redis prefix); and a password change at one instance ending
 * the old token at the other's subgraphs within SVC_SESSION_CHECK_SECONDS.
 */

const SETTINGS = { SVC_LOGIN_USERNAME_ATTEMPTS: '3', SVC_LOGIN_ADDRESS_ATTEMPTS: '6', SVC_LOGIN_FIRST_DELAY_SECONDS: '1', SVC_SESSION_CHECK_SECONDS: '1' };
let a: TestPlatform;
let b: TestPlatform;
const lines: string[] = [];
let botnet = 0;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A login at `platform` from `from` (the bridge trusts loopback's X-Forwarded-For); by default each from its own address. */
const login = (platform: TestPlatform, username: string, password: string, from = `192.0.2.${++botnet % 250}`) =>
  call(`${platform.bridge}/api/v1/auth/token`, { json: { username, password }, headers: { 'x-forwarded-for': from } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function createUser(username: string, password: string) {
  const reply = await call(`${a.bridge}/api/v1/admin/users`, { headers: bearer(await a.token()), json: { username, password, roles: ['crawler'], tenants: ['demo'] } });
  expect(reply.status).toBe(201);
}

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  a = await startTestPlatform(SETTINGS, { logTo: sink });
  b = await startTestPlatform(SETTINGS, { reuse: { databaseUrl: a.databaseUrl, redisPrefix: a.redisPrefix }, logTo: sink });
});
afterAll(async () => {
  await b?.stop();
  await a?.close();
});

describe('per username', () => {
  it('after a few failures answers 429 with Retry-After, checks no password meanwhile, and doubles the delay', async () => {
    await createUser('victim', 'victim-password-1');
    for (let i = 0; i < 3; i++) expect((await login(a, 'victim', `wrong-guess-${i}`)).status).toBe(401);
    const closed = await login(a, 'victim', 'victim-password-1');
    expect(closed.status).toBe(429);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(closed.body).toEqual({ code: 429, message: 'Too many login attempts; retry in 1 s', data: null });
    await sleep(1100);
    expect((await login(a, 'victim', 'wrong-guess-3')).status).toBe(401);
    const failedAt = Date.now();
    const longer = await login(a, 'victim', 'wrong-guess-4');
    expect(longer.status).toBe(429);
    // The delay doubled to 2 s: what is left of it (rounded up) depends on how long the failed check took.
    expect(['1', '2']).toContain(longer.headers.get('retry-after'));
    await sleep(Math.max(0, failedAt + 1300 - Date.now()));
    expect((await login(a, 'victim', 'wrong-guess-5')).status).toBe(429); // past 1 s, within 2 s
    // Released by time: after the delay the right password logs in, and starts the username afresh.
    await sleep(2100);
    expect((await login(a, 'victim', 'victim-password-1')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await login(a, 'victim', `wrong-again-${i}`)).status).toBe(401);
    expect((await login(a, 'victim', 'victim-password-1')).status).toBe(200);
  });

  it('is shared by every instance: failures at one close the username at the other', async () => {
    await createUser('shared', 'shared-password-1');
    for (let i = 0; i < 3; i++) expect((await login(a, 'shared', `wrong-guess-${i}`)).status).toBe(401);
    const atB = await login(b, 'shared', 'shared-password-1');
    expect(atB.status).toBe(429);
    expect(Number(atB.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await sleep(1100);
    expect((await login(b, 'shared', 'shared-password-1')).status).toBe(200);
  });

  it('counts a concurrent burst one by one: beyond the free attempts, a password is checked only when a delay has run out', async () => {
    await createUser('burst', 'burst-password-1');
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => login(i % 2 ? a : b, 'burst', `guess-${i}`)));
    const seconds = (Date.now() - started) / 1000;
    // The delays after the free attempts are 1, 2, 4, … s: within a burst of `seconds`, at most
    // this many of them can have ended (none when the burst is quicker than a second, as it is
    // on a quiet machine; a loaded one can stretch it).
    const reopened = Math.floor(Math.log2(seconds + 1));
    const checked = replies.filter((r) => r.status === 401).length;
    expect(checked).toBeGreaterThanOrEqual(3);
    expect(checked).toBeLessThanOrEqual(3 + reopened);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(12 - checked);
  });
});

describe('per client address', () => {
  it('closes an address that fails for many usernames, whatever the username, and not the others', async () => {
    const from = '203.0.113.50';
    for (let i = 0; i < 6; i++) expect((await login(a, `sprayed-${i}`, 'Winter2026!', from)).status).toBe(401);
    const next = await login(b, 'sprayed-6', 'Winter2026!', from);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toBe('1');
    expect((await login(a, 'admin', 'test-admin-password', from)).status).toBe(429);
    expect((await login(a, 'admin', 'test-admin-password', '203.0.113.51')).status).toBe(200);
  });

  it('does not count successes against an address (an office behind one address logs in all day)', async () => {
    const office = '203.0.113.60';
    for (let i = 0; i < 10; i++) expect((await login(i % 2 ? a : b, 'admin', 'test-admin-password', office)).status).toBe(200);
  });
});

describe('logs', () => {
  it('writes one line per throttle, naming the scope and never a password', async () => {
    const throttled = lines.filter((l) => l.includes('"login throttled"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const victim = throttled.filter((l) => l.username === 'victim');
    // Closed after the 3rd attempt (1 s) and the 4th (2 s); the 5th and 6th of the second round never closed it.
    expect(victim.map((l) => [l.scope, l.delaySeconds])).toEqual([['username', 1], ['username', 2]]);
    expect(throttled.filter((l) => l.clientIp === '203.0.113.50').map((l) => [l.scope, l.attempts])).toEqual([['address', 6]]);
    const all = lines.join('\n');
    for (const secret of ['victim-password-1', 'wrong-guess-', 'Winter2026!', 'test-admin-password', 'shared-password-1']) expect(all).not.toContain(secret);
  });
});

describe('ending sessions across instances', () => {
  it('a password change at one instance ends the old token at the other within SVC_SESSION_CHECK_SECONDS', async () => {
    await createUser('moved', 'moved-password-1');
    const old = (await login(b, 'moved', 'moved-password-1')).body.data.accessToken as string;
    const crawlAtB = () => gql(b.urls.crawl!, '{ crawlJobs { jobId } }', {}, { ...bearer(old), 'x-svc-tenant-id': 'demo' });
    expect((await crawlAtB()).body.errors).toBeUndefined(); // B now remembers "not revoked" for up to 1 s
    const changed = await call(`${a.bridge}/api/v1/admin/users/moved/password`, { method: 'PUT', headers: bearer(await a.token()), json: { password: 'moved-password-2' } });
    expect(changed.status).toBe(200);
    const started = Date.now();
    await eventually(async () => (await crawlAtB()).body.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED', 5000, 'the old token refused at B');
    expect(Date.now() - started).toBeLessThanOrEqual(1000 + 500);
    expect((await login(b, 'moved', 'moved-password-2')).status).toBe(200);
  });
});
