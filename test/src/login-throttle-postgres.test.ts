import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Without Redis the login throttle lives in PostgreSQL (`insight.login_throttle`): two instances
 * of the platform on one database share it.
 */

const SETTINGS = { REDIS_URL: '', SVC_LOGIN_USERNAME_ATTEMPTS: '3', SVC_LOGIN_ADDRESS_ATTEMPTS: '5', SVC_LOGIN_FIRST_DELAY_SECONDS: '1' };
let a: TestPlatform;
let b: TestPlatform;
let db: pg.Client;
let address = 0;

const login = (platform: TestPlatform, username: string, password: string, from = `192.0.2.${++address % 250}`) =>
  call(`${platform.bridge}/api/v1/auth/token`, { json: { username, password }, headers: { 'x-forwarded-for': from } });

beforeAll(async () => {
  a = await startTestPlatform(SETTINGS);
  b = await startTestPlatform(SETTINGS, { reuse: { databaseUrl: a.databaseUrl, redisPrefix: a.redisPrefix } });
  db = new pg.Client({ connectionString: a.databaseUrl });
  await db.connect();
  const created = await call(`${a.bridge}/api/v1/admin/users`, { headers: { authorization: `Bearer ${await a.token()}` }, json: { username: 'pat', password: 'pat-password-1', roles: ['analyst'] } });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await db?.end();
  await b?.stop();
  await a?.close();
});

describe('the login throttle in PostgreSQL', () => {
  it('closes a username for both instances after a few failures at either, with Retry-After, and a success forgets it', async () => {
    expect((await login(a, 'pat', 'guess-1')).status).toBe(401);
    expect((await login(b, 'pat', 'guess-2')).status).toBe(401);
    expect((await login(a, 'pat', 'guess-3')).status).toBe(401);
    const closed = await login(b, 'pat', 'pat-password-1');
    expect(closed.status).toBe(429);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect((await db.query(`select attempts from insight.login_throttle where key = 'login:user:pat'`)).rows).toEqual([{ attempts: 3 }]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await login(a, 'pat', 'pat-password-1')).status).toBe(200);
    expect((await db.query(`select 1 from insight.login_throttle where key = 'login:user:pat'`)).rowCount).toBe(0);
  });

  it('counts a concurrent burst at both instances one by one', async () => {
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => login(i % 2 ? a : b, 'burst', `guess-${i}`)));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it('closes a client address that fails for many usernames', async () => {
    const from = '203.0.113.70';
    for (let i = 0; i < 5; i++) expect((await login(i % 2 ? a : b, `sprayed-${i}`, 'Spring2026!', from)).status).toBe(401);
    const next = await login(a, 'pat', 'pat-password-1', from);
    expect(next.status).toBe(429);
    expect((await login(a, 'pat', 'pat-password-1')).status).toBe(200);
  });
});
