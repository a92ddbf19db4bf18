import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createMemoryCache, OPERATIONS_DIR, type RunningServer } from '@svc/kit';
import { startDashboard } from './dashboard-server.js';
import { bridgePathOf } from './proxy-path.js';
import { createDashboardSessions } from './session-store.js';

/**
 * The dashboard server alone, against a stand-in platform (bridge and router on one port) that
 * records what reaches it and verifies tokens the way the platform would: only the tokens it
 * knows are valid.
 */
let dashboard: RunningServer;
let untrusting: RunningServer;
let platform: Server;
const seen: { method: string; url: string; authorization?: string; tenant?: string; forwardedFor?: string }[] = [];
const sessions = createDashboardSessions(createMemoryCache());
/** Session ids (the cookie's value) standing for tokens, as a sign-in would open them. */
const sid: Record<string, string> = {};

/** Tokens the stand-in platform accepts (header.payload.signature; the payload carries exp). */
const jwt = (claims: Record<string, unknown>, signature = 'valid') => `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })).toString('base64url')}.${signature}`;
const ADMIN = jwt({ sub: 'root' });
const ONE_TENANT = jwt({ sub: 'ann' });
const VIEWERS: Record<string, { subject: string; roles: string[]; tenants: string[]; sites: string[] }> = {
  [ADMIN]: { subject: 'root', roles: ['admin'], tenants: ['*'], sites: ['*'] },
  [ONE_TENANT]: { subject: 'ann', roles: ['analyst'], tenants: ['t1'], sites: ['demo'] },
};

beforeAll(async () => {
  platform = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      res.setHeader('content-type', 'application/json');
      if (req.url === '/graphql' && JSON.parse(Buffer.concat(chunks).toString() || '{}').operationName === 'DashboardViewer') {
        const viewer = VIEWERS[token];
        res.end(JSON.stringify(viewer ? { data: { viewer } } : { data: null, errors: [{ message: 'Access token is invalid', extensions: { code: 'UNAUTHENTICATED' } }] }));
        return;
      }
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, tenant: req.headers['x-svc-tenant-id'] as string | undefined, forwardedFor: req.headers['x-forwarded-for'] as string | undefined });
      if (req.url === '/api/v1/auth/token') {
        const { password } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { password?: string };
        if (password === 'right') return void res.end(JSON.stringify({ code: 200, message: 'OK', data: { accessToken: ADMIN, tokenType: 'Bearer', expiresIn: 600 } }));
        res.statusCode = 429;
        res.setHeader('retry-after', '17');
        return void res.end(JSON.stringify({ code: 429, message: 'Too many sign-in attempts; retry in 17 s', data: null }));
      }
      res.end(JSON.stringify({ code: 200, message: 'OK', data: { jobs: [] } }));
    });
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  const options = { bridgeUrl: url, routerUrl: `${url}/graphql`, log: createLogger({ level: 'silent' }), defaultCredentials: false, sessions };
  dashboard = await startDashboard(options, 0, '127.0.0.1');
  // Behind no trusted proxy: what a client says of its address or scheme is not believed.
  untrusting = await startDashboard({ ...options, trustedProxies: [] }, 0, '127.0.0.1');
  for (const token of [ADMIN, ONE_TENANT, 'abc.def.ghi']) sid[token] = await sessions.open(token, 600);
});
afterAll(async () => {
  await dashboard.close();
  await untrusting.close();
  await new Promise((resolve) => platform.close(resolve));
});

/** A request with its path exactly as written (fetch would resolve dot segments before sending). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { port } = new URL(dashboard.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const asPage = { 'x-svc-dashboard': '1', 'content-type': 'application/json' };
const cookieOf = (setCookie: string[] | undefined, name: string) => setCookie?.find((c) => c.startsWith(`${name}=`))?.split(';')[0];

describe('the dashboard server', () => {
  it("forwards reads with the session's token as a bearer token, and the client's address", async () => {
    const reply = await fetch(`${dashboard.url}/api/v1/insight/jobs?first=5`, { headers: { cookie: `svc_session=${sid['abc.def.ghi']}` } });
    expect(reply.status).toBe(200);
    expect(seen.at(-1)).toEqual({ method: 'GET', url: '/api/v1/insight/jobs?first=5', authorization: 'Bearer abc.def.ghi', tenant: undefined, forwardedFor: '127.0.0.1' });
    // A token put in the cookie itself is no session: nothing is forwarded with it.
    await fetch(`${dashboard.url}/api/v1/insight/jobs?first=5`, { headers: { cookie: 'svc_session=abc.def.ghi' } });
    expect(seen.at(-1)!.authorization).toBeUndefined();
  });

  it('signs in through the platform with the client address, keeps the token on the server, and passes a refusal on with its Retry-After', async () => {
    const signIn = (password: string, headers: Record<string, string> = {}, on = dashboard) =>
      fetch(`${on.url}/session`, { method: 'POST', headers: { ...asPage, ...headers }, body: JSON.stringify({ username: 'root', password }) });
    const ok = await signIn('right', { 'x-forwarded-for': '198.51.100.7' });
    expect(ok.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/auth/token', forwardedFor: '198.51.100.7, 127.0.0.1' });
    const session = cookieOf(ok.headers.getSetCookie(), 'svc_session')!;
    expect(session).toMatch(/^svc_session=[A-Za-z0-9_-]{43}$/);
    expect(ok.headers.getSetCookie().join(';')).not.toContain(ADMIN);
    expect(ok.headers.getSetCookie()[0]).not.toContain('Secure');
    const refused = await signIn('wrong', { 'x-forwarded-for': '198.51.100.8' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('17');
    // Not behind a trusted proxy: the client's own X-Forwarded-For is not passed on as its address.
    await signIn('right', { 'x-forwarded-for': '198.51.100.9' }, untrusting);
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/auth/token', forwardedFor: '127.0.0.1' });
  });

  it('marks the cookie Secure when a trusted proxy says the request came over https, and only then', async () => {
    const signIn = (on: RunningServer) => fetch(`${on.url}/session`, { method: 'POST', headers: { ...asPage, 'x-forwarded-proto': 'https' }, body: JSON.stringify({ username: 'root', password: 'right' }) });
    for (const cookie of (await signIn(dashboard)).headers.getSetCookie()) expect(cookie).toContain('; Secure');
    for (const cookie of (await signIn(untrusting)).headers.getSetCookie()) expect(cookie).not.toContain('Secure');
  });

  it('ends the session on sign-out for every copy of its cookie', async () => {
    const id = await sessions.open(ADMIN, 600);
    const copy = `svc_session=${id}`;
    expect((await raw('/session', { cookie: copy })).status).toBe(200);
    const out = await raw('/session', { ...asPage, cookie: copy }, 'DELETE');
    expect(out.status).toBe(200);
    expect(cookieOf(out.headers['set-cookie'], 'svc_session')).toBe('svc_session=');
    const after = await raw('/session', { cookie: copy });
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body)).toMatchObject({ message: 'Your session ended; sign in again' });
    await raw('/api/v1/insight/jobs?first=2', { cookie: copy });
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/insight/jobs?first=2', authorization: undefined });
  });

  it('refuses a change that does not come from its page (no x-svc-dashboard header, or another origin)', async () => {
    const before = seen.length;
    const forged = await fetch(`${dashboard.url}/api/v1/insight/jobs`, { method: 'POST', headers: { cookie: `svc_session=${sid['abc.def.ghi']}`, 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(forged.status).toBe(403);
    const crossSite = await fetch(`${dashboard.url}/api/v1/insight/jobs`, { method: 'POST', headers: { cookie: `svc_session=${sid['abc.def.ghi']}`, 'content-type': 'application/json', 'x-svc-dashboard': '1', origin: 'https://evil.example' }, body: '{"prompt":"x"}' });
    expect(crossSite.status).toBe(403);
    expect(seen.length).toBe(before);
  });

  it('serves no file outside its folders', async () => {
    expect((await fetch(`${dashboard.url}/static/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await raw('/static/%E0%A4%A')).status).toBe(404);
    expect((await fetch(`${dashboard.url}/app/main.js`)).status).toBe(200);
  });

  it('never turns an /api/ path into a bridge path outside /api/ (dot segments in any spelling, encoded slashes, backslashes)', async () => {
    const before = seen.length;
    const tricks = [
      '/api/%2e%2e/admin/v1/budgets', '/api/%2E%2E/admin/v1/budgets', '/api/.%2e/admin/v1/budgets', '/api/%2e./admin/v1/budgets',
      '/api/v1/../../admin/v1/budgets', '/api/%252e%252e/admin/v1/budgets', '/api/..%2fadmin/v1/budgets', '/api/..%5cadmin/v1/budgets',
      '/api/..\\admin/v1/budgets', '/api/%2e/v1/insight/jobs', '/api/v1/%00/jobs', '/api/%E0%A4%A',
    ];
    for (const path of tricks) {
      const reply = await raw(path, { cookie: `svc_session=${sid[ADMIN]}` });
      expect({ path, status: reply.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(reply.body).message).toContain('Not a platform path under /api/');
    }
    expect(seen.length).toBe(before);
    // Ordinary paths still pass, queries included.
    expect((await raw('/api/v1/insight/jobs/abc-1?lastEventId=3', { cookie: `svc_session=${sid[ADMIN]}` })).status).toBe(200);
    expect(seen.at(-1)!.url).toBe('/api/v1/insight/jobs/abc-1?lastEventId=3');
    expect(bridgePathOf('/api/v1/contents/welcome')).toBe('/api/v1/contents/welcome');
    expect(bridgePathOf('/apix/v1')).toBeUndefined();
  });

  it('shows no claims of a cookie the platform did not verify (unsigned, forged or unknown), and clears it', async () => {
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'mallory', roles: ['admin'], exp: 9999999999 })).toString('base64url')}.`;
    for (const token of [unsigned, jwt({ sub: 'mallory', roles: ['admin'] }, 'forged')]) {
      const reply = await raw('/session', { cookie: `svc_session=${await sessions.open(token, 600)}` });
      expect(reply.status).toBe(401);
      expect(reply.body).not.toContain('mallory');
      expect(JSON.parse(reply.body)).toMatchObject({ message: 'Not signed in' });
      expect(cookieOf(reply.headers['set-cookie'], 'svc_session')).toBe('svc_session=');
    }
    const good = await raw('/session', { cookie: `svc_session=${sid[ADMIN]}` });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toMatchObject({ subject: 'root', roles: ['admin'], tenants: ['*'], tenant: 'demo', defaultCredentials: false });
    // A session without a tenant cookie gets one, so the calls that follow carry X-Svc-Tenant-Id.
    expect(cookieOf(good.headers['set-cookie'], 'svc_tenant')).toBe('svc_tenant=demo');
  });

  it('remembers the chosen tenant for the session and sends it as X-Svc-Tenant-Id on REST, event-stream and GraphQL calls', async () => {
    const chose = await raw('/session/tenant', { ...asPage, cookie: `svc_session=${sid[ADMIN]}` }, 'PUT', '{"tenant":"acme"}');
    expect(chose.status).toBe(200);
    expect(JSON.parse(chose.body)).toMatchObject({ subject: 'root', tenant: 'acme' });
    const tenantCookie = cookieOf(chose.headers['set-cookie'], 'svc_tenant')!;
    expect(tenantCookie).toBe('svc_tenant=acme');
    expect(chose.headers['set-cookie']![0]).toContain('HttpOnly; SameSite=Strict');
    const cookies = `svc_session=${sid[ADMIN]}; ${tenantCookie}`;
    expect(JSON.parse((await raw('/session', { cookie: cookies })).body)).toMatchObject({ tenant: 'acme' });
    await raw('/api/v1/insight/jobs?first=1', { cookie: cookies });
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/insight/jobs?first=1', tenant: 'acme' });
    await raw('/api/v1/insight/jobs/abc/events', { cookie: cookies, accept: 'text/event-stream' });
    expect(seen.at(-1)).toMatchObject({ url: '/api/v1/insight/jobs/abc/events', tenant: 'acme' });
    await raw('/graphql', { ...asPage, cookie: cookies }, 'POST', '{"query":"{ __typename }"}');
    expect(seen.at(-1)).toMatchObject({ url: '/graphql', tenant: 'acme' });
  });

  it('refuses a tenant the token does not grant, or that is not a tenant id, naming it', async () => {
    const other = await raw('/session/tenant', { ...asPage, cookie: `svc_session=${sid[ONE_TENANT]}` }, 'PUT', '{"tenant":"t2"}');
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body).message).toBe('Your token does not grant tenant "t2"; it grants t1');
    const bad = await raw('/session/tenant', { ...asPage, cookie: `svc_session=${sid[ADMIN]}` }, 'PUT', '{"tenant":"../x"}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).message).toContain('Tenant "../x" is not a tenant id');
    expect((await raw('/session/tenant', { cookie: `svc_session=${sid[ADMIN]}`, 'content-type': 'application/json' }, 'PUT', '{"tenant":"acme"}')).status).toBe(403);
    // A one-tenant token starts on its tenant; a stale cookie for another tenant is not used.
    const stale = await raw('/session', { cookie: `svc_session=${sid[ONE_TENANT]}; svc_tenant=acme` });
    expect(JSON.parse(stale.body)).toMatchObject({ subject: 'ann', tenant: 't1' });
    expect(cookieOf(stale.headers['set-cookie'], 'svc_tenant')).toBe('svc_tenant=t1');
  });

  it('sends only the GraphQL operations recorded in schema/operations/dashboard.graphql', async () => {
    const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
    const recorded = [...(await readFile(`${OPERATIONS_DIR}/dashboard.graphql`, 'utf8')).matchAll(/^(?:query|mutation) (\w+)/gm)].map((m) => m[1]!);
    expect(recorded).toEqual(['DashboardAgent', 'DashboardViewer']);
    const browser = new URL('../../browser/', import.meta.url);
    const sources = [await readFile(new URL('session.js', import.meta.url), 'utf8')];
    for (const file of await readdir(browser, { recursive: true })) if (file.endsWith('.js')) sources.push(await readFile(new URL(file, browser), 'utf8'));
    const code = squash(sources.join('\n'));
    for (const name of recorded) {
      const text = squash(await readOperationText(name));
      expect({ name, sent: code.includes(text) }).toEqual({ name, sent: true });
    }
  });
});

/** The operation's text as written in the file (the code sends it verbatim). */
async function readOperationText(name: string): Promise<string> {
  const file = (await readFile(`${OPERATIONS_DIR}/dashboard.graphql`, 'utf8')).replace(/#.*$/gm, '');
  const start = file.search(new RegExp(`query ${name}\\b`));
  const next = file.slice(start + 1).search(/\n(query|mutation) /);
  return next < 0 ? file.slice(start) : file.slice(start, start + 1 + next);
}
