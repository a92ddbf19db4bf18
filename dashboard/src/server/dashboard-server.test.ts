import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, OPERATIONS_DIR, type RunningServer } from '@svc/kit';
import { startDashboard } from './dashboard-server.js';

/** The dashboard server alone, against a stand-in bridge that records what reaches it. */
let dashboard: RunningServer;
let bridge: Server;
const seen: { method: string; url: string; authorization?: string }[] = [];

beforeAll(async () => {
  bridge = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ code: 200, message: 'OK', data: { jobs: [] } }));
  });
  await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(bridge.address() as AddressInfo).port}`;
  dashboard = await startDashboard({ bridgeUrl: url, routerUrl: `${url}/graphql`, log: createLogger({ level: 'silent' }), defaultCredentials: false }, 0, '127.0.0.1');
});
afterAll(async () => {
  await dashboard.close();
  await new Promise((resolve) => bridge.close(resolve));
});

describe('the dashboard server', () => {
  it('forwards reads with the session cookie as a bearer token', async () => {
    const reply = await fetch(`${dashboard.url}/api/v1/insight/jobs?first=5`, { headers: { cookie: 'svc_session=abc.def.ghi' } });
    expect(reply.status).toBe(200);
    expect(seen.at(-1)).toEqual({ method: 'GET', url: '/api/v1/insight/jobs?first=5', authorization: 'Bearer abc.def.ghi' });
  });

  it('refuses a change that does not come from its page (no x-svc-dashboard header, or another origin)', async () => {
    const before = seen.length;
    const forged = await fetch(`${dashboard.url}/api/v1/insight/jobs`, { method: 'POST', headers: { cookie: 'svc_session=abc.def.ghi', 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(forged.status).toBe(403);
    const crossSite = await fetch(`${dashboard.url}/api/v1/insight/jobs`, { method: 'POST', headers: { cookie: 'svc_session=abc.def.ghi', 'content-type': 'application/json', 'x-svc-dashboard': '1', origin: 'https://evil.example' }, body: '{"prompt":"x"}' });
    expect(crossSite.status).toBe(403);
    expect(seen.length).toBe(before);
  });

  it('serves no file outside its folders', async () => {
    expect((await fetch(`${dashboard.url}/static/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${dashboard.url}/app/main.js`)).status).toBe(200);
  });

  it('sends the GraphQL operation recorded in schema/operations/dashboard.graphql', async () => {
    const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
    const recorded = squash((await readFile(`${OPERATIONS_DIR}/dashboard.graphql`, 'utf8')).replace(/#.*$/gm, ''));
    const page = await (await fetch(`${dashboard.url}/app/main.js`)).text();
    expect(squash(page)).toContain(recorded);
  });
});
