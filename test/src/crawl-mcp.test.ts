import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { startFixtureSite, type FixtureSite } from './support/fixture-site.js';
import { call } from './support/http.js';
import { startMcpStdioClient, type McpStdioClient } from './support/mcp-stdio-client.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

// `svc crawl-mcp` end to end: the real entry spawned over stdio by the MCP SDK's client (and by
// the MCP Inspector CLI), against the whole platform in this process and fixture sites on
// loopback. Only loopback addresses are ever requested: the "private" host the guard must keep
// the browser away from is a server on 127.0.0.2, outside the allow list (127.0.0.1).

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), (require('@modelcontextprotocol/inspector/package.json') as { bin: Record<string, string> }).bin['mcp-inspector']!);

// The stylesheet is broken on purpose: the page is parsed with a silent console, so jsdom's complaint reaches neither stdout nor the logs.
const REPORT = `<!doctype html><html><head><title>Harbour quarterly report</title><style>.lead { color: navy } } }</style></head><body>
<nav>Home | Reports | Contact</nav>
<article>
  <h1>Harbour quarterly report</h1>
  <p class="lead">Freight volumes at the harbour rose sharply in the third quarter, driven by grain exports and the new ferry line to Nordholm.</p>
  <p>The port authority expects the growth to continue through the winter. Two new cranes were commissioned at the north berth, and dredging of the outer channel finished ahead of schedule, which lets larger grain carriers call at the harbour for the first time.</p>
  <table class="volumes">
    <thead><tr><th>Quarter</th><th>Containers</th><th>Passengers</th></tr></thead>
    <tbody><tr><td>Q2</td><td>1 200</td><td>8 400</td></tr><tr><td>Q3</td><td>
      1 650 </td><td>9 100</td></tr></tbody>
  </table>
  <table class="berths"><tr><td>Berth</td><td>Length</td></tr><tr><td>North</td><td>220 m</td></tr></table>
  <ul class="links"><li><a href="/berths/north">North berth</a></li><li><a href="/berths/south">South berth</a></li></ul>
</article>
<footer>Harbour office, Quay Street 1</footer>
</body></html>`;

/** Content arrives 300 ms after the page's images settled; both images aim at the "private" host (one via a redirect). */
function dynamicPage(privateOrigin: string, bounceUrl: string): string {
  return `<!doctype html><html><head><title>Live departures</title></head><body>
<main id="board">Loading…</main>
<img id="direct" src="${privateOrigin}/pixel.png" alt=""><img id="bounced" src="${bounceUrl}" alt="">
<script>
  const settled = [...document.images].map((img) => img.complete ? 0 : new Promise((done) => { img.onload = img.onerror = done; }));
  Promise.all(settled).then(() => setTimeout(() => {
    document.getElementById('board').innerHTML = '<article><h1>Departures</h1><p class="late">The 10:40 ferry to Nordholm leaves from berth 3 today, ten minutes late because of fog in the outer channel. Passengers with cars should queue at lane B.</p><table><tr><th>Time</th><th>To</th></tr><tr><td>10:40</td><td>Nordholm</td></tr></table></article>';
  }, 300));
</script></body></html>`;
}

const STORIES = [
  { path: '/news/1', title: 'Grain exports reach a record', body: 'Grain carriers loaded more wheat and barley at the harbour this autumn than in any year before. Farmers from the whole region deliver their harvest by rail to the new silo at the north berth.' },
  { path: '/news/2', title: 'Fog closes the outer channel', body: 'Dense fog closed the outer channel on Tuesday morning. Ferries to Nordholm were delayed for three hours and the pilots kept all cargo ships at anchor until the visibility improved.' },
];

function listPage(): string {
  return `<html><body><ul class="news">${STORIES.map((s) => `<li class="story"><a href="${s.path}">${s.title}</a></li>`).join('')}</ul></body></html>`;
}

function storyPage(title: string, body: string): string {
  return `<html><head><title>${title}</title></head><body><nav>Home | News</nav><article><h1>${title}</h1><p>${body}</p><p>${body}</p></article><footer>Harbour Gazette</footer></body></html>`;
}

/** A bare HTTP server counting requests: `routes` maps a path to [status, headers, body]. */
async function startCountingServer(host: string, routes: Record<string, [number, Record<string, string>, string]> = {}): Promise<{ origin: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    const [status, headers, body] = routes[req.url ?? '/'] ?? [200, { 'content-type': 'image/png' }, ''];
    res.writeHead(status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { origin: `http://${host}:${(server.address() as AddressInfo).port}`, hits, server };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** pino JSON lines only, none at error level or above, and no crash output. */
function expectCleanStderr(stderr: string): void {
  for (const line of stderr.split('\n').filter((l) => l.trim())) {
    let entry: { level?: number } | undefined;
    try {
      entry = JSON.parse(line) as { level?: number };
    } catch {
      throw new Error(`crawl-mcp wrote a non-log line to stderr: ${line}`);
    }
    expect(entry.level ?? 0).toBeLessThan(50);
  }
  expect(stderr).not.toMatch(/uncaught|unhandled/i);
}

let platform: TestPlatform;
let site: FixtureSite;
let privateHost: Awaited<ReturnType<typeof startCountingServer>>;
let bouncer: Awaited<ReturnType<typeof startCountingServer>>;
let acmeToken: string;
let inspectorHome: string;
let acme: McpStdioClient;
let guarded: McpStdioClient;
let stranger: McpStdioClient;

function serverEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_ROUTER_URL: platform.router, LOG_LEVEL: 'warn', ...extra };
}

async function indexKnowledge(): Promise<void> {
  const headers = { authorization: `Bearer ${acmeToken}` };
  const created = await call(`${platform.bridge}/api/v1/crawl/jobs`, {
    headers,
    json: {
      jobName: 'harbour-news',
      targetUrl: site.url('/news'),
      robotsTxt: 'ignore',
      cronExpression: '0 0 0 1 1 ?',
      selectors: { listRow: 'ul.news > li.story', title: 'a', link: 'a::attr(href)' },
      enableRagSync: true,
      ragConfig: { targetVectorDb: 'pgvector', embeddingModel: 'svc-local-embedding', chunkSize: 64, chunkOverlap: 8 },
    },
  });
  expect(created.status).toBe(201);
  const run = await call(`${platform.bridge}/api/v1/crawl/jobs/${created.body.data.jobId}/trigger`, { method: 'POST', headers });
  expect(run.status).toBe(200);
  const result = await eventually(async () => {
    const reply = await call(`${platform.bridge}/api/v1/crawl/results/${run.body.data.executionId}`, { headers });
    return reply.status === 200 ? reply.body.data : undefined;
  }, 30_000, 'the knowledge crawl to complete');
  expect(result.items.map((i: { vectorSyncStatus: string }) => i.vectorSyncStatus)).toEqual(['INDEXED', 'INDEXED']);
}

beforeAll(async () => {
  [site, privateHost, inspectorHome] = await Promise.all([startFixtureSite(), startCountingServer('127.0.0.2'), mkdtemp(join(tmpdir(), 'svc-inspector-'))]);
  bouncer = await startCountingServer('127.0.0.1', { '/bounce.png': [302, { location: `${privateHost.origin}/after-redirect.png` }, ''] });
  site.serve('/report', { content: { html: REPORT } });
  site.serve('/live', { content: { html: dynamicPage(privateHost.origin, `${bouncer.origin}/bounce.png`) } });
  site.serve('/news', { content: { html: listPage() } });
  for (const s of STORIES) site.serve(s.path, { content: { html: storyPage(s.title, s.body) } });

  platform = await startTestPlatform({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  acmeToken = await platform.token({ roles: ['crawler'], tenants: ['acme'] });
  const otherToken = await platform.token({ roles: ['crawler'], tenants: ['other'] });
  [, acme, guarded, stranger] = await Promise.all([
    indexKnowledge(),
    startMcpStdioClient(process.execPath, [SVC, 'crawl-mcp'], serverEnv({ SVC_TOKEN: acmeToken, SVC_TENANT_ID: 'acme', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' })),
    // No allow list and no token: the fixture site on 127.0.0.1 is private again.
    startMcpStdioClient(process.execPath, [SVC, 'crawl-mcp'], serverEnv({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '' })),
    startMcpStdioClient(process.execPath, [SVC, 'crawl-mcp'], serverEnv({ SVC_TOKEN: otherToken, SVC_TENANT_ID: 'other', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' })),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([acme?.close(), guarded?.close(), stranger?.close()]);
  await platform?.close();
  await site?.close();
  for (const s of [privateHost, bouncer]) if (s) await new Promise<void>((resolve) => s.server.close(() => resolve()));
  if (inspectorHome) await rm(inspectorHome, { recursive: true, force: true });
});

describe('svc crawl-mcp over stdio', () => {
  let tools: Tool[];

  it('lists both tools with input and output schemas', async () => {
    tools = (await acme.client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['svccrawl_collect_page', 'svccrawl_query_knowledge']);
    const collect = tools.find((t) => t.name === 'svccrawl_collect_page')!;
    expect(collect.inputSchema).toMatchObject({ type: 'object', required: ['url'], properties: { url: { type: 'string' }, extractSelectors: { type: 'object' }, waitForSelector: { type: 'string' } } });
    expect(collect.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['url', 'finalUrl', 'title', 'text', 'tables', 'fields', 'rendered', 'truncated']),
    });
    const query = tools.find((t) => t.name === 'svccrawl_query_knowledge')!;
    expect(query.inputSchema).toMatchObject({ type: 'object', required: ['query'], properties: { query: { type: 'string' }, category: { type: 'string' }, topK: { type: 'integer', maximum: 50 } } });
    expect(query.outputSchema).toMatchObject({ type: 'object', properties: { results: { type: 'array' } } });
  });

  it('collects a page: main text, tables as headers plus rows, and fields of every match', async () => {
    const result = (await acme.client.callTool({
      name: 'svccrawl_collect_page',
      arguments: { url: site.url('/report'), extractSelectors: { heading: 'article h1', links: 'ul.links a::attr(href)', linkText: 'ul.links a::text', missing: '.nowhere' } },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as Record<string, any>;
    expect(page).toMatchObject({ url: site.url('/report'), finalUrl: site.url('/report'), title: 'Harbour quarterly report', rendered: false, truncated: false });
    expect(page.text).toContain('Freight volumes at the harbour rose sharply in the third quarter');
    expect(page.text).not.toContain('Home | Reports');
    expect(page.tables).toEqual([
      { headers: ['Quarter', 'Containers', 'Passengers'], rows: [['Q2', '1 200', '8 400'], ['Q3', '1 650', '9 100']] },
      { headers: ['Berth', 'Length'], rows: [['North', '220 m']] },
    ]);
    expect(page.fields).toEqual({ heading: ['Harbour quarterly report'], links: ['/berths/north', '/berths/south'], linkText: ['North berth', 'South berth'], missing: [] });
    const check = new AjvJsonSchemaValidator().getValidator(tools.find((t) => t.name === 'svccrawl_collect_page')!.outputSchema as any)(page);
    expect(check.errorMessage).toBeUndefined();
    expect(check.valid).toBe(true);
    expect(text(result)).toMatch(/Harbour quarterly report[\s\S]*2 table\(s\)[\s\S]*heading = "Harbour quarterly report"/);
  });

  it('renders with waitForSelector in headless Chromium, and the page cannot make the browser reach a refused address', async () => {
    const asServed = (await acme.client.callTool({ name: 'svccrawl_collect_page', arguments: { url: site.url('/live') } })) as CallToolResult;
    expect(asServed.structuredContent).toMatchObject({ rendered: false, tables: [] });
    expect((asServed.structuredContent as { text: string }).text).not.toContain('10:40 ferry');

    const hitsBefore = site.hits('/live').length;
    const result = (await acme.client.callTool({
      name: 'svccrawl_collect_page',
      arguments: { url: site.url('/live'), waitForSelector: 'p.late', extractSelectors: { late: 'p.late' } },
    })) as CallToolResult;
    if (result.isError) throw new Error(text(result));
    const page = result.structuredContent as Record<string, any>;
    expect(page).toMatchObject({ url: site.url('/live'), finalUrl: site.url('/live'), title: 'Live departures', rendered: true, truncated: false });
    expect(page.text).toContain('The 10:40 ferry to Nordholm leaves from berth 3 today');
    expect(page.tables).toEqual([{ headers: ['Time', 'To'], rows: [['10:40', 'Nordholm']] }]);
    expect(page.fields.late).toEqual([expect.stringContaining('ten minutes late because of fog')]);
    // The page itself was fetched once (by the crawler's fetcher, then handed to the browser).
    expect(site.hits('/live').length - hitsBefore).toBe(1);
    // The browser tried the redirecting image (allowed host) but reached the refused host neither directly nor through the redirect.
    expect(bouncer.hits).toEqual(['/bounce.png']);
    expect(privateHost.hits).toEqual([]);
  });

  it('refuses private addresses that are not allow-listed, before fetching and before rendering', async () => {
    const before = site.requests.length;
    for (const args of [{ url: site.url('/report') }, { url: site.url('/live'), waitForSelector: 'p.late' }]) {
      const result = (await guarded.client.callTool({ name: 'svccrawl_collect_page', arguments: args })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(text(result)).toMatch(/^Refusing to fetch http:\/\/127\.0\.0\.1:\d+\/(report|live): .*loopback.*SVC_CRAWL_ALLOW_PRIVATE_HOSTS/s);
    }
    expect(site.requests.length).toBe(before);
  });

  it('fails clearly on a malformed selector spec', async () => {
    const result = (await acme.client.callTool({ name: 'svccrawl_collect_page', arguments: { url: site.url('/report'), extractSelectors: { broken: 'div[' } } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/extractSelectors\.broken: "div\[" is not a valid selector spec/);
  });

  it('searches the tenant\'s knowledge base through the router', async () => {
    const result = (await acme.client.callTool({ name: 'svccrawl_query_knowledge', arguments: { query: 'ferries delayed by fog in the channel', topK: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const found = result.structuredContent as { query: string; results: { score: number; title: string; url: string; category: string; content: string }[] };
    expect(found.query).toBe('ferries delayed by fog in the channel');
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.length).toBeLessThanOrEqual(3);
    expect(found.results[0]).toMatchObject({ title: 'Fog closes the outer channel', url: site.url('/news/2'), category: 'harbour-news', score: expect.any(Number) });
    expect(found.results[0]!.content).toContain('fog');
    expect(text(result)).toContain(`Fog closes the outer channel — ${site.url('/news/2')} (harbour-news)`);

    const filtered = (await acme.client.callTool({ name: 'svccrawl_query_knowledge', arguments: { query: 'fog', category: 'elsewhere' } })) as CallToolResult;
    expect(filtered.structuredContent).toEqual({ query: 'fog', results: [] });
  });

  it('shows another tenant nothing, and explains a missing SVC_TOKEN', async () => {
    const theirs = (await stranger.client.callTool({ name: 'svccrawl_query_knowledge', arguments: { query: 'ferries delayed by fog in the channel' } })) as CallToolResult;
    expect(theirs.isError).toBeFalsy();
    expect(theirs.structuredContent).toEqual({ query: 'ferries delayed by fog in the channel', results: [] });

    const anonymous = (await guarded.client.callTool({ name: 'svccrawl_query_knowledge', arguments: { query: 'fog' } })) as CallToolResult;
    expect(anonymous.isError).toBe(true);
    expect(text(anonymous)).toMatch(/SVC_TOKEN/);
  });

  it('writes nothing but JSON-RPC to stdout, and only logs to stderr', async () => {
    // A raw session, reading stdout byte for byte (the SDK client would only report a bad line).
    const child = spawn(process.execPath, [SVC, 'crawl-mcp'], { env: serverEnv({ SVC_TOKEN: acmeToken, SVC_TENANT_ID: 'acme', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1', LOG_LEVEL: 'debug' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await eventually(() => stdout.includes('"id":1'), 15_000, 'the initialize answer');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'svccrawl_collect_page', arguments: { url: site.url('/report'), extractSelectors: { heading: 'h1' } } } });
    send({ id: 3, method: 'tools/call', params: { name: 'svccrawl_query_knowledge', arguments: { query: 'grain exports' } } });
    send({ id: 4, method: 'tools/call', params: { name: 'svccrawl_collect_page', arguments: { url: 'http://127.0.0.2:9/' } } });
    send({ id: 5, method: 'tools/call', params: { name: 'svccrawl_collect_page', arguments: { url: site.url('/live'), waitForSelector: 'p.late' } } });
    await eventually(() => ['"id":2', '"id":3', '"id":4', '"id":5'].every((id) => stdout.includes(id)), 25_000, 'the tool answers');
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBe(5);
    const answers = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: CallToolResult }).sort((a, b) => a.id - b.id);
    for (const answer of answers) expect(answer).toMatchObject({ jsonrpc: '2.0', id: expect.any(Number), result: expect.any(Object) });
    expect(answers.map((a) => a.result.isError ?? false)).toEqual([false, false, false, true, false]);
    expect(answers[4]!.result.structuredContent).toMatchObject({ rendered: true });
    expect(stderr).toContain('crawl MCP server listening on stdio');
    expect(stderr).not.toContain('Could not parse CSS stylesheet');
    expect(stderr).toContain('headless Chromium started');
    expectCleanStderr(stderr);

    for (const session of [acme, guarded, stranger]) {
      expect(session.errors).toEqual([]);
      expectCleanStderr(session.stderr());
    }
  });

  it('works with the MCP Inspector CLI (tools/list and tools/call)', async () => {
    const env = ['-e', `SVC_ROUTER_URL=${platform.router}`, '-e', `SVC_TOKEN=${acmeToken}`, '-e', 'SVC_TENANT_ID=acme', '-e', 'SVC_CRAWL_ALLOW_PRIVATE_HOSTS=127.0.0.1', '-e', 'LOG_LEVEL=warn'];
    const inspect = (...method: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [INSPECTOR, '--cli', ...env, process.execPath, SVC, 'crawl-mcp', ...method], { cwd: REPO, env: { PATH: process.env.PATH ?? '', HOME: inspectorHome }, timeout: 30_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const [listed, called] = await Promise.all([
      inspect('--method', 'tools/list'),
      inspect('--method', 'tools/call', '--tool-name', 'svccrawl_query_knowledge', '--tool-arg', 'query=grain exports by rail'),
    ]);
    expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
    const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names.sort()).toEqual(['svccrawl_collect_page', 'svccrawl_query_knowledge']);
    expect({ code: called.code, stderr: called.stderr }).toMatchObject({ code: 0 });
    const answer = JSON.parse(called.stdout) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ query: 'grain exports by rail', results: expect.arrayContaining([expect.objectContaining({ title: 'Grain exports reach a record', url: site.url('/news/1') })]) });
  });
});
