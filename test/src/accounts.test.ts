import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { scryptSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Local accounts through the admin API (REST under /api/v1/admin/users, and GraphQL): created,
 * listed, changed, disabled, given new passwords, by admins only and within the admin's own
 * tenants and sites; a password change, a disable or new grants end the old sessions at every
 * subgraph; old scrypt hashes still log in and are rehashed with argon2id.
 */

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
let platform: TestPlatform;
let db: pg.Client;
let admin: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const users = () => `${platform.bridge}/api/v1/admin/users`;
// Each test logs in from its own address, so the per-address throttle of one never meets another's.
let address = 0;
const login = (username: string, password: string) =>
  call(`${platform.bridge}/api/v1/auth/token`, { json: { username, password }, headers: { 'x-forwarded-for': `198.51.100.${++address % 250}` } });
async function tokenOf(username: string, password: string): Promise<string> {
  const reply = await login(username, password);
  expect(reply.status).toBe(200);
  return reply.body.data.accessToken as string;
}
async function createUser(body: Record<string, unknown>, token = admin) {
  return call(users(), { headers: bearer(token), json: body });
}
/** A crawl subgraph query, sent to that subgraph itself: it verifies the token on its own. */
const crawlJobs = (token: string) => gql(platform.urls.crawl!, '{ crawlJobs { jobId } }', {}, { ...bearer(token), 'x-svc-tenant-id': 'demo' });

beforeAll(async () => {
  platform = await startTestPlatform();
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  admin = await tokenOf('admin', 'test-admin-password');
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('the admin API', () => {
  it('creates an account that logs in with its roles, tenants and sites, and lists and shows it', async () => {
    const created = await createUser({ username: 'alice', password: 'alice-first-password', roles: ['analyst', 'crawler'], tenants: ['demo'], sites: ['demo'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      code: 200, message: 'Created',
      data: { username: 'alice', roles: ['analyst', 'crawler'], tenants: ['demo'], sites: ['demo'], disabled: false, createdBy: 'admin', createdAt: expect.any(String), updatedAt: expect.any(String), sessionsEndedAt: null },
    });
    const [row] = (await db.query(`select password_hash from insight.account where username = 'alice'`)).rows;
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const token = await tokenOf('alice', 'alice-first-password');
    const viewer = await gql(platform.router, '{ viewer { subject roles tenants sites } }', {}, bearer(token));
    expect(viewer.body.data.viewer).toEqual({ subject: 'alice', roles: ['analyst', 'crawler'], tenants: ['demo'], sites: ['demo'] });
    expect((await crawlJobs(token)).body.errors).toBeUndefined();
    // Its roles are what the services enforce: purging the demo site's cache needs editor.
    const purge = await call(`${platform.bridge}/api/v1/deploy/purge-cache`, { headers: bearer(token), json: { siteKey: 'demo', contentSlug: 'welcome' } });
    expect(purge.status).toBe(403);
    expect((await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(token) })).status).toBe(200);
    const list = await call(users(), { headers: bearer(admin) });
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { username: string }) => u.username)).toEqual(expect.arrayContaining(['admin', 'alice']));
    const one = await call(`${users()}/alice`, { headers: bearer(admin) });
    expect(one.body.data).toMatchObject({ username: 'alice', disabled: false });
    expect(JSON.stringify(list.body)).not.toMatch(/argon2|password/i);
  });

  it('refuses a bad body with 422 naming each field, a taken username with 409, and an unknown one with 404', async () => {
    const bad = await createUser({ username: 'bad name', password: 'short', roles: ['wizard'], tenants: 'some', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.data).toBeNull();
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/', '/password', '/roles/0', '/tenants', '/username'].sort());
    await createUser({ username: 'taken', password: 'taken-password', roles: ['analyst'] });
    const again = await createUser({ username: 'taken', password: 'other-password', roles: ['analyst'] });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('The username taken is taken');
    expect((await call(`${users()}/nobody`, { headers: bearer(admin) })).status).toBe(404);
    const patch = await call(`${users()}/taken`, { method: 'PATCH', headers: bearer(admin), json: {} });
    expect(patch.status).toBe(422);
    expect(patch.body.message).toContain('give at least one of roles, tenants, sites');
  });

  it('needs the admin role: 401 without a token, 403 for other roles, over REST and GraphQL', async () => {
    await createUser({ username: 'rita', password: 'rita-password-1', roles: ['analyst', 'reviewer', 'editor', 'crawler'], tenants: '*', sites: '*' });
    const rita = await tokenOf('rita', 'rita-password-1');
    expect((await call(users())).status).toBe(401);
    for (const [method, path, json] of [
      ['GET', '', undefined],
      ['POST', '', { username: 'mallory', password: 'mallory-password', roles: ['admin'], tenants: '*', sites: '*' }],
      ['GET', '/rita', undefined],
      ['PATCH', '/rita', { roles: ['admin'] }],
      ['POST', '/admin/disable', undefined],
      ['PUT', '/admin/password', { password: 'hijacked-password' }],
    ] as const) {
      const reply = await call(`${users()}${path}`, { method, headers: bearer(rita), json });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ code: 403, message: 'This operation needs one of the roles: admin', data: null });
    }
    const graphql = await gql(platform.router, 'mutation { createUser(input: {username: "mallory", password: "mallory-password", roles: ["admin"]}) { username } }', {}, bearer(rita));
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await db.query(`select 1 from insight.account where username = 'mallory'`)).rowCount).toBe(0);
    const listed = await gql(platform.router, '{ users { username disabled } }', {}, bearer(admin));
    expect(listed.body.data.users).toEqual(expect.arrayContaining([{ username: 'rita', disabled: false }]));
  });

  it('lets an admin of some tenants manage and grant only within its tenants and sites', async () => {
    await createUser({ username: 'tina', password: 'tina-password-1', roles: ['admin'], tenants: ['t1'], sites: ['s1'] });
    await createUser({ username: 'wide', password: 'wide-password-1', roles: ['analyst'], tenants: ['t1', 't2'], sites: [] });
    const tina = await tokenOf('tina', 'tina-password-1');
    const inside = await createUser({ username: 'tom', password: 'tom-password-1', roles: ['analyst', 'admin'], tenants: ['t1'], sites: ['s1'] }, tina);
    expect(inside.status).toBe(201);
    for (const body of [
      { username: 'tx', password: 'tx-password-1', roles: ['analyst'], tenants: ['t1', 't2'] },
      { username: 'ty', password: 'ty-password-1', roles: ['analyst'], tenants: '*' },
      { username: 'tz', password: 'tz-password-1', roles: ['editor'], tenants: ['t1'], sites: ['s2'] },
    ]) {
      const reply = await createUser(body, tina);
      expect(reply.status).toBe(403);
      expect(reply.body.message).toMatch(/^You can grant only tenants and sites you hold yourself; you lack (tenants|sites) /);
    }
    expect((await call(`${users()}/tom`, { method: 'PATCH', headers: bearer(tina), json: { tenants: ['t2'] } })).status).toBe(403);
    // Accounts wider than the admin are not there for it: it cannot reset their passwords or disable them.
    const listed = (await call(users(), { headers: bearer(tina) })).body.data.map((u: { username: string }) => u.username);
    expect(listed.sort()).toEqual(['taken', 'tina', 'tom']); // taken holds no tenant nor site: within anyone's
    for (const name of ['admin', 'wide', 'alice']) {
      expect((await call(`${users()}/${name}/password`, { method: 'PUT', headers: bearer(tina), json: { password: 'taken-over-now' } })).status).toBe(404);
      expect((await call(`${users()}/${name}/disable`, { method: 'POST', headers: bearer(tina) })).status).toBe(404);
    }
    expect((await login('wide', 'wide-password-1')).status).toBe(200);
  });

  it('keeps the way back in: the configured admin and an admin\'s own account are not disabled or demoted here', async () => {
    const configured = await call(`${users()}/admin/disable`, { method: 'POST', headers: bearer(admin) });
    expect(configured.status).toBe(409);
    expect(configured.body.message).toContain('SVC_ADMIN_USERNAME');
    expect((await call(`${users()}/admin/password`, { method: 'PUT', headers: bearer(admin), json: { password: 'a-new-admin-password' } })).status).toBe(409);
    await createUser({ username: 'ada', password: 'ada-password-1', roles: ['admin'], tenants: '*', sites: '*' });
    const ada = await tokenOf('ada', 'ada-password-1');
    expect((await call(`${users()}/ada/disable`, { method: 'POST', headers: bearer(ada) })).status).toBe(409);
    expect((await call(`${users()}/ada`, { method: 'PATCH', headers: bearer(ada), json: { roles: ['analyst'] } })).status).toBe(409);
    expect((await login('admin', 'test-admin-password')).status).toBe(200);
  });
});

describe('ending sessions', () => {
  it('a password change ends the old token at every subgraph; the new password logs in, the old one not', async () => {
    await createUser({ username: 'carl', password: 'carl-password-1', roles: ['crawler', 'analyst'], tenants: ['demo'] });
    const old = await tokenOf('carl', 'carl-password-1');
    expect((await crawlJobs(old)).body.errors).toBeUndefined();
    const changed = await call(`${users()}/carl/password`, { method: 'PUT', headers: bearer(admin), json: { password: 'carl-password-2' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.sessionsEndedAt).toEqual(expect.any(String));
    // In one process every subgraph shares the cache: the change holds at once (across processes: SVC_SESSION_CHECK_SECONDS).
    const refused = await crawlJobs(old);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(refused.body.errors?.[0]?.message).toContain('revoked');
    const viaBridge = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(old) });
    expect(viaBridge.status).toBe(401);
    expect((await login('carl', 'carl-password-1')).status).toBe(401);
    const fresh = await tokenOf('carl', 'carl-password-2');
    expect((await crawlJobs(fresh)).body.errors).toBeUndefined();
  });

  it('a disable refuses login and ends the old token; enabling lets the account in again', async () => {
    await createUser({ username: 'dora', password: 'dora-password-1', roles: ['crawler'], tenants: ['demo'] });
    const old = await tokenOf('dora', 'dora-password-1');
    const disabled = await call(`${users()}/dora/disable`, { method: 'POST', headers: bearer(admin) });
    expect(disabled.body.data).toMatchObject({ username: 'dora', disabled: true });
    expect((await crawlJobs(old)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const refused = await login('dora', 'dora-password-1');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ code: 401, message: 'Invalid username or password', data: null });
    expect((await call(`${users()}/dora/enable`, { method: 'POST', headers: bearer(admin) })).body.data.disabled).toBe(false);
    expect((await crawlJobs(await tokenOf('dora', 'dora-password-1'))).body.errors).toBeUndefined();
  });

  it('new grants end the old token, whose claims would otherwise outlive them', async () => {
    await createUser({ username: 'gus', password: 'gus-password-1', roles: ['crawler', 'admin'], tenants: ['demo'], sites: ['demo'] });
    const old = await tokenOf('gus', 'gus-password-1');
    const updated = await call(`${users()}/gus`, { method: 'PATCH', headers: bearer(admin), json: { roles: ['crawler'] } });
    expect(updated.body.data.roles).toEqual(['crawler']);
    expect((await call(users(), { headers: bearer(old) })).status).toBe(401);
    const fresh = await tokenOf('gus', 'gus-password-1');
    expect((await call(users(), { headers: bearer(fresh) })).status).toBe(403);
    // The same grants again change nothing and end nothing.
    const same = await call(`${users()}/gus`, { method: 'PATCH', headers: bearer(admin), json: { roles: ['crawler'], tenants: ['demo'] } });
    expect(same.body.data.sessionsEndedAt).toBe(updated.body.data.sessionsEndedAt);
    expect((await crawlJobs(fresh)).body.errors).toBeUndefined();
  });
});

describe('changing one\'s own password', () => {
  const changeMine = (token: string, json: unknown) => call(`${platform.bridge}/api/v1/auth/password`, { headers: bearer(token), json });

  it('needs the current password, ends every session and returns a fresh token', async () => {
    await createUser({ username: 'olga', password: 'olga-from-admin', roles: ['crawler'], tenants: ['demo'] });
    const first = await tokenOf('olga', 'olga-from-admin');
    const wrong = await changeMine(first, { currentPassword: 'not-it', newPassword: 'olga-own-password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([{ pointer: '/currentPassword', detail: 'is not the current password' }]);
    expect((await changeMine(first, { currentPassword: 'olga-from-admin', newPassword: 'short' })).status).toBe(422);
    const changed = await changeMine(first, { currentPassword: 'olga-from-admin', newPassword: 'olga-own-password' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600 });
    expect((await crawlJobs(first)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await crawlJobs(changed.body.data.accessToken)).body.errors).toBeUndefined();
    expect((await login('olga', 'olga-from-admin')).status).toBe(401);
    await tokenOf('olga', 'olga-own-password');
  });

  it('is for local accounts only, and not for the configured admin', async () => {
    const outsider = await changeMine(await platform.token({ subject: 'someone-from-an-idp', roles: ['analyst'] }), { currentPassword: 'x', newPassword: 'whatever-long' });
    expect(outsider.status).toBe(403);
    const configured = await changeMine(admin, { currentPassword: 'test-admin-password', newPassword: 'another-admin-password' });
    expect(configured.status).toBe(409);
    expect((await call(`${platform.bridge}/api/v1/auth/password`, { json: { currentPassword: 'x', newPassword: 'whatever-long' } })).status).toBe(401);
  });
});

describe('password hashes', () => {
  it('logs in with a scrypt hash stored before argon2id, and rehashes it then', async () => {
    const salt = Buffer.from('legacy-salt-0001');
    const key = scryptSync('legacy-password', salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const legacy = ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await db.query(
      `insert into insight.account (id, username, password_hash, roles, tenants, sites, created_at, updated_at) values (gen_random_uuid(), 'lee', $1, '["analyst"]', '["demo"]', '[]', now(), now())`,
      [legacy],
    );
    expect((await login('lee', 'wrong-password')).status).toBe(401);
    expect((await db.query(`select password_hash from insight.account where username = 'lee'`)).rows[0].password_hash).toBe(legacy);
    await tokenOf('lee', 'legacy-password');
    const rehashed = (await db.query(`select password_hash from insight.account where username = 'lee'`)).rows[0].password_hash as string;
    expect(rehashed).toMatch(/^\$argon2id\$/);
    await tokenOf('lee', 'legacy-password');
  });
});

describe('svc users', () => {
  /** Runs `svc users ...` against the platform as its configured admin, with `stdin` piped in. */
  function svcUsers(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_BRIDGE_URL: platform.bridge, SVC_ADMIN_PASSWORD: 'test-admin-password', LOG_LEVEL: 'silent' };
    const child = spawn(process.execPath, [SVC, 'users', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('adds, lists, changes the password of, and disables an account through the admin API', async () => {
    const added = await svcUsers(['add', 'cli-user', '--roles', 'analyst,crawler', '--tenants', 'demo', '--sites', 'demo'], 'cli-first-password\n');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^USERNAME\s+ROLES\s+TENANTS\s+SITES\s+STATE\ncli-user\s+analyst,crawler\s+demo\s+demo\s+active\n$/);
    const first = await tokenOf('cli-user', 'cli-first-password');

    const listed = await svcUsers(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^admin\s+admin\s+\*\s+\*\s+active$/m);
    expect(listed.stdout).toMatch(/^cli-user\s+analyst,crawler\s+demo\s+demo\s+active$/m);

    const changed = await svcUsers(['passwd', 'cli-user'], 'cli-second-password\n');
    expect(changed.code).toBe(0);
    expect((await crawlJobs(first)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await login('cli-user', 'cli-first-password')).status).toBe(401);
    const second = await tokenOf('cli-user', 'cli-second-password');

    const disabled = await svcUsers(['disable', 'cli-user']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toMatch(/^cli-user\s.*\sdisabled$/m);
    expect((await crawlJobs(second)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await login('cli-user', 'cli-second-password')).status).toBe(401);
  });

  it('says what is wrong: a usage error (exit 2), a refused request (exit 1) with the API\'s reasons', async () => {
    const usage = await svcUsers(['add', 'someone']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('svc users add needs --roles');
    expect(usage.stderr).toContain('usage: svc users <command>');
    const refused = await svcUsers(['add', 'someone', '--roles', 'wizard'], 'short\n');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc users: 422 .*\/password password must be at least 8 characters.*\/roles\/0 each role must be one of/m);
    expect(refused.stderr).not.toContain('short');
    const noPassword = await svcUsers(['passwd', 'alice']);
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toContain('no password on standard input');
  });
});
