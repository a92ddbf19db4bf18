import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@svc/kit';
import { MCP_TOOLS } from '../tools/mcp-tools.js';
import { createInsightMcpServer } from './server.js';

// The server against a fake router: what it sends, and how each failure reads. The real
// router and insight service: test/src/insight-mcp.test.ts.

const log = createLogger({ level: 'silent' });

let router: Server;
let routerUrl: string;
let answer: { status: number; body: string };
const requests: { headers: IncomingHttpHeaders; body: any }[] = [];

const graphqlError = (code: string, message: string) => ({ status: 200, body: JSON.stringify({ data: null, errors: [{ message, extensions: { code } }] }) });

async function connect(url: string, token: string | undefined) {
  const { server, cleanup } = await createInsightMcpServer({ routerUrl: url, token, log });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return {
    call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    client,
    close: async () => {
      await client.close();
      await server.close();
      await cleanup();
    },
  };
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

let session: Awaited<ReturnType<typeof connect>>;

beforeAll(async () => {
  router = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(body) });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
  routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}/graphql`;
  session = await connect(routerUrl, 'the-token');
});

afterAll(async () => {
  await session?.close();
  await new Promise<void>((resolve) => router.close(() => resolve()));
});

describe('the insight MCP server', () => {
  it('offers exactly the MCP tools of the analysis, described as they are', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const tool of tools) {
      expect(tool.description).toBe(MCP_TOOLS.find((t) => t.name === tool.name)!.description);
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
  });

  it('forwards the arguments as written (defaults filled in) with the token, and returns data and summary', async () => {
    const data = { name: 'revenue', step: '1d', series: [] };
    answer = { status: 200, body: JSON.stringify({ data: { insightTool: { data, summary: 'No series of revenue matches.' } } }) };
    const result = await session.call('svcinsight_lookup_metric', { name: 'revenue', labels: 'channel=search' });
    expect(result).toMatchObject({ structuredContent: data, content: [{ type: 'text', text: 'No series of revenue matches.' }] });
    expect(result.isError).toBeFalsy();
    const sent = requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer the-token');
    expect(sent.body).toMatchObject({
      operationName: 'InsightMcpTool',
      variables: { name: 'svcinsight_lookup_metric', arguments: { name: 'revenue', labels: 'channel=search', from: '', to: '', step: '1d' } },
    });
    expect(sent.body.query).toContain('insightTool(name: $name, arguments: $arguments)');
  });

  it.each([
    ['UNAUTHENTICATED', 'Token expired', /^The platform refused SVC_TOKEN: Token expired\. Set SVC_TOKEN to a valid, unexpired platform token/],
    ['FORBIDDEN', 'Requires role analyst or reviewer', /SVC_TOKEN must carry the analyst or reviewer role\.$/],
    ['BAD_USER_INPUT', 'Invalid arguments for svcinsight_forecast: horizon: Too big', /^Invalid arguments for svcinsight_forecast: horizon: Too big\. Correct that argument and call svcinsight_forecast again\.$/],
    ['NOT_FOUND', 'No series of revenue matches the labels {"channel":"tv"}', /matches the labels \{"channel":"tv"\}\. svcinsight_list_metrics lists the metrics there are, with their labels\.$/],
    ['UNAVAILABLE', 'insight is down', /Is the insight service running/],
  ])('explains %s', async (code, message, expected) => {
    answer = graphqlError(code, message);
    const result = await session.call('svcinsight_forecast', { name: 'revenue' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(expected);
  });

  it('explains an answer that is not GraphQL, and a router that cannot be reached', async () => {
    answer = { status: 502, body: '<html>Bad Gateway</html>' };
    const odd = await session.call('svcinsight_list_metrics', {});
    expect(text(odd)).toMatch(/answered HTTP 502 without a tool result: <html>Bad Gateway<\/html>\. Check SVC_ROUTER_URL\./);

    const nowhere = await connect('http://127.0.0.1:9/graphql', 'the-token');
    try {
      const result = await nowhere.call('svcinsight_list_metrics', {});
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Could not reach the platform's router at http:\/\/127\.0\.0\.1:9\/graphql .*SVC_ROUTER_URL sets the address\.$/);
    } finally {
      await nowhere.close();
    }
  });

  it('declares a definition with the defineMetric mutation, and says what was declared', async () => {
    const record = { name: 'signups', definition: { unit: { kind: 'count', noun: 'signups' }, aggregation: 'sum', upIsGood: true }, updatedAt: '2026-11-20T10:00:00.000Z', updatedBy: 'ana' };
    answer = { status: 200, body: JSON.stringify({ data: { defineMetric: record } }) };
    const result = await session.call('svcinsight_define_metric', { name: 'signups', definition: record.definition });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(record);
    expect(text(result)).toBe('signups is defined (unit, aggregation, upIsGood), by ana at 2026-11-20T10:00:00.000Z; the next analysis reads it, and svcinsight_list_metrics shows it with the metric\'s series.');
    const sent = requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer the-token');
    expect(sent.body).toMatchObject({ operationName: 'InsightMcpDefineMetric', variables: { name: 'signups', definition: record.definition } });
    expect(sent.body.query).toContain('defineMetric(name: $name, definition: $definition)');
  });

  it.each([
    [{ name: 'signups', definition: { unit: { kind: 'currency', code: 'usd' } } }, /ISO 4217 currency code.* at definition\.unit\.code/],
    [{ name: 'signups', definition: { drivers: [{ metric: 'ad_spend', lagDays: 1.5 }] } }, /whole number of days at definition\.drivers\[0\]\.lagDays/],
    [{ name: 'signups', definition: { formula: { product: ['signups', 'visits'] } } }, /may not be "signups" itself at definition\.formula\.product\[0\]/],
    [{ name: 'signups', definition: { colour: 'red' } }, /colour/],
  ])('refuses a bad definition without calling the router, naming the field (%j)', async (args, expected) => {
    const before = requests.length;
    const result = await session.call('svcinsight_define_metric', args);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/svcinsight_define_metric/);
    expect(text(result)).toMatch(expected);
    expect(requests.length).toBe(before);
  });

  it('explains that declaring a definition needs the analyst role', async () => {
    answer = graphqlError('FORBIDDEN', 'This operation needs one of the roles: admin, analyst');
    const result = await session.call('svcinsight_define_metric', { name: 'signups', definition: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The platform refused svcinsight_define_metric: This operation needs one of the roles: admin, analyst. SVC_TOKEN must carry the analyst role.');
  });

  it('asks for SVC_TOKEN without calling the router', async () => {
    const before = requests.length;
    const anonymous = await connect(routerUrl, undefined);
    try {
      const result = await anonymous.call('svcinsight_list_metrics', {});
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/set SVC_TOKEN/);
    } finally {
      await anonymous.close();
    }
    expect(requests.length).toBe(before);
  });
});
