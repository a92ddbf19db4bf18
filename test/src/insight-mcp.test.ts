import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { metricDefinitionSchema } from '@svc/insight/contract';
import { jsonSchemaOf } from '@svc/kit';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { startMcpStdioClient, type McpStdioClient } from './support/mcp-stdio-client.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

// `svc insight-mcp` end to end: the real entry spawned over stdio by the MCP SDK's client (and by
// the MCP Inspector CLI), against the whole platform in this process with its demo business
// metrics (revenue, sessions, conversion_rate, ad_spend{channel}, 730 days up to today).

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), (require('@modelcontextprotocol/inspector/package.json') as { bin: Record<string, string> }).bin['mcp-inspector']!);

const TOOLS = ['svcinsight_define_metric', 'svcinsight_forecast', 'svcinsight_list_metrics', 'svcinsight_lookup_metric', 'svcinsight_simulate'];
const DAY = 86_400_000;

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
      throw new Error(`insight-mcp wrote a non-log line to stderr: ${line}`);
    }
    expect(entry.level ?? 0).toBeLessThan(50);
  }
  expect(stderr).not.toMatch(/uncaught|unhandled/i);
}

let platform: TestPlatform;
let analystToken: string;
let inspectorHome: string;
let analyst: McpStdioClient;
let anonymous: McpStdioClient;
let editor: McpStdioClient;
let reviewer: McpStdioClient;
let tools: Tool[];

function serverEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_ROUTER_URL: platform.router, SVC_TENANT_ID: 'demo', LOG_LEVEL: 'warn', ...extra };
}

async function callTool(session: McpStdioClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful result whose structuredContent matches the tool's declared output schema. */
async function succeed(name: string, args: Record<string, unknown>): Promise<{ data: Record<string, any>; text: string }> {
  const result = await callTool(analyst, name, args);
  if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
  const check = new AjvJsonSchemaValidator().getValidator(tools.find((t) => t.name === name)!.outputSchema as any)(result.structuredContent);
  expect(check.errorMessage).toBeUndefined();
  return { data: result.structuredContent as Record<string, any>, text: text(result) };
}

beforeAll(async () => {
  [platform, inspectorHome] = await Promise.all([startTestPlatform(), mkdtemp(join(tmpdir(), 'svc-inspector-'))]);
  analystToken = await platform.token({ roles: ['analyst'] });
  const editorToken = await platform.token({ roles: ['editor'] });
  const reviewerToken = await platform.token({ roles: ['reviewer'] });
  [analyst, anonymous, editor, reviewer] = await Promise.all([
    startMcpStdioClient(process.execPath, [SVC, 'insight-mcp'], serverEnv({ SVC_TOKEN: analystToken })),
    startMcpStdioClient(process.execPath, [SVC, 'insight-mcp'], serverEnv({})),
    startMcpStdioClient(process.execPath, [SVC, 'insight-mcp'], serverEnv({ SVC_TOKEN: editorToken })),
    startMcpStdioClient(process.execPath, [SVC, 'insight-mcp'], serverEnv({ SVC_TOKEN: reviewerToken })),
  ]);
  tools = (await analyst.client.listTools()).tools;
}, 60_000);

afterAll(async () => {
  await Promise.all([analyst?.close(), anonymous?.close(), editor?.close(), reviewer?.close()]);
  await platform?.close();
  if (inspectorHome) await rm(inspectorHome, { recursive: true, force: true });
});

describe('svc insight-mcp over stdio', () => {
  it('lists the five tools with the analysis tools\' input schemas and output schemas', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.svcinsight_lookup_metric!.inputSchema).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, labels: { type: 'string', default: '' }, from: { type: 'string' }, to: { type: 'string' }, step: { type: 'string', default: '1d' }, aggregation: { enum: ['sum', 'avg', 'min', 'max', 'last', 'count'] } },
    });
    expect(byName.svcinsight_forecast!.inputSchema).toMatchObject({ required: ['name'], properties: { horizon: { type: 'integer', minimum: 1, maximum: 366, default: 30 } } });
    expect(byName.svcinsight_simulate!.inputSchema).toMatchObject({
      required: expect.arrayContaining(['target_metric', 'driver_metric', 'change_percent']),
      properties: { seed: { type: 'integer' }, elasticity: { type: 'number' }, driver_labels: { type: 'string' } },
    });
    expect(byName.svcinsight_list_metrics!.outputSchema).toMatchObject({ type: 'object', required: ['metrics'], properties: { metrics: { type: 'array' } } });
    expect(byName.svcinsight_lookup_metric!.outputSchema).toMatchObject({ required: expect.arrayContaining(['name', 'step', 'series']) });
    expect(byName.svcinsight_forecast!.outputSchema).toMatchObject({ required: expect.arrayContaining(['model', 'total', 'forecast', 'history']) });
    expect(byName.svcinsight_simulate!.outputSchema).toMatchObject({ required: expect.arrayContaining(['elasticity', 'impact', 'band', 'seed']) });
    // A definition is described by the very JSON Schema the REST body is documented (and validated) with.
    expect(byName.svcinsight_define_metric!.inputSchema).toMatchObject({ type: 'object', required: ['name', 'definition'], properties: { name: { type: 'string' } } });
    expect(byName.svcinsight_define_metric!.inputSchema.properties!.definition).toEqual(jsonSchemaOf(metricDefinitionSchema));
    expect(byName.svcinsight_define_metric!.outputSchema).toMatchObject({ required: ['name', 'definition', 'updatedAt', 'updatedBy'] });
    expect(byName.svcinsight_define_metric!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it('lists the demo series', async () => {
    const { data, text: summary } = await succeed('svcinsight_list_metrics', {});
    const names = (data.metrics as { name: string; labels: Record<string, string>; source: string }[]).map((m) => `${m.name}${m.labels.channel ? `{${m.labels.channel}}` : ''}`);
    expect(names).toEqual(expect.arrayContaining(['revenue', 'sessions', 'conversion_rate', 'ad_spend{search}', 'ad_spend{social}', 'ad_spend{display}']));
    expect(data.metrics.find((m: { name: string }) => m.name === 'revenue')).toMatchObject({ source: 'store', points: 730, last: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(summary).toMatch(/series: .*revenue/);

    const only = await succeed('svcinsight_list_metrics', { name: 'ad_spend' });
    expect(only.data.metrics.map((m: { labels: { channel: string } }) => m.labels.channel).sort()).toEqual(['display', 'search', 'social']);
  });

  it('looks a metric up by day, with points and statistics, and filters by labels', async () => {
    const to = new Date(Math.floor(Date.now() / DAY) * DAY);
    const from = new Date(to.getTime() - 28 * DAY);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const { data, text: summary } = await succeed('svcinsight_lookup_metric', { name: 'revenue', from: day(from), to: day(to), step: '1d', aggregation: 'sum' });
    expect(data).toMatchObject({ name: 'revenue', step: '1d' });
    expect(data.series).toHaveLength(1);
    const [series] = data.series;
    expect(series.points).toHaveLength(28);
    expect(series.points[0]).toEqual({ t: day(from), value: expect.any(Number) });
    expect(series.stats).toMatchObject({ points: 28, total: expect.any(Number), lastWeekTotal: expect.any(Number), previousWeekTotal: expect.any(Number), weekOverWeekChangePercent: expect.any(Number) });
    const total = series.points.reduce((a: number, p: { value: number }) => a + p.value, 0);
    expect(series.stats.total).toBeCloseTo(total, 0);
    expect(summary).toMatch(/^revenue: 28 points, total [\d.]+, mean [\d.]+; last week/);

    const search = await succeed('svcinsight_lookup_metric', { name: 'ad_spend', labels: 'channel=search', from: day(from), to: day(to) });
    expect(search.data.series.map((s: { labels: unknown }) => s.labels)).toEqual([{ channel: 'search' }]);
  });

  it('forecasts with a p10-p90 band', async () => {
    const { data, text: summary } = await succeed('svcinsight_forecast', { name: 'revenue', horizon: 14 });
    expect(data).toMatchObject({ name: 'revenue', labels: {}, horizon: 14, combinedSeries: 1, model: expect.stringContaining('ETS') });
    expect(data.forecast).toHaveLength(14);
    for (const p of data.forecast as { p10: number; p50: number; p90: number }[]) {
      expect(p.p10).toBeLessThanOrEqual(p.p50);
      expect(p.p50).toBeLessThanOrEqual(p.p90);
    }
    expect(data.total.p10).toBeLessThan(data.total.p90);
    expect(summary).toMatch(/^revenue over the next 14 days: [\d.]+ expected \(p10 [\d.]+, p90 [\d.]+\)/);
  });

  it('simulates a what-if, the same with the same seed', async () => {
    const args = { target_metric: 'revenue', driver_metric: 'ad_spend', driver_labels: 'channel=search', change_percent: 20, horizon: 14, seed: 7 };
    const [first, second] = [await succeed('svcinsight_simulate', args), await succeed('svcinsight_simulate', args)];
    expect(second).toEqual(first);
    expect(first.data).toMatchObject({ target: 'revenue', driver: 'ad_spend{channel=search}', changePercent: 20, horizon: 14, seed: 7, elasticity: { source: 'estimated' } });
    expect(first.data.band).toHaveLength(14);
    expect(first.data.impact.p50).toBeGreaterThan(0);
    expect(first.text).toMatch(/^\+20% ad_spend\{channel=search\} moves revenue by \+/);
    const other = await succeed('svcinsight_simulate', { ...args, seed: 8 });
    expect(other.data.total).not.toEqual(first.data.total);
  });

  it('answers bad arguments and unknown metrics with isError naming the problem', async () => {
    const zero = await callTool(analyst, 'svcinsight_forecast', { name: 'revenue', horizon: 0 });
    expect(zero.isError).toBe(true);
    expect(text(zero)).toMatch(/svcinsight_forecast.*horizon|horizon.*svcinsight_forecast/s);

    // Checked by the insight service (422): the label filter's syntax.
    const labels = await callTool(analyst, 'svcinsight_lookup_metric', { name: 'ad_spend', labels: 'search' });
    expect(labels.isError).toBe(true);
    expect(text(labels)).toMatch(/^Invalid arguments for svcinsight_lookup_metric: labels: label filter "search" must be key=value\. Correct that argument/);

    for (const [name, args] of [['svcinsight_lookup_metric', { name: 'no_such_metric' }], ['svcinsight_forecast', { name: 'no_such_metric', horizon: 7 }]] as const) {
      const unknown = await callTool(analyst, name, args);
      expect(unknown.isError).toBe(true);
      expect(unknown.structuredContent).toBeUndefined();
      expect(text(unknown)).toMatch(/No metric named "no_such_metric".*svcinsight_list_metrics/s);
    }
  });

  it('explains a missing SVC_TOKEN and a token without an analysis role', async () => {
    const missing = await callTool(anonymous, 'svcinsight_list_metrics', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/set SVC_TOKEN to a platform token with the analyst or reviewer role/);

    const refused = await callTool(editor, 'svcinsight_list_metrics', {});
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^The platform refused svcinsight_list_metrics: .*SVC_TOKEN must carry the analyst or reviewer role\.$/s);
  });

  it('declares what a metric means through svcinsight_define_metric, read back by svcinsight_list_metrics and REST', async () => {
    const bearer = { authorization: `Bearer ${analystToken}`, 'x-svc-tenant-id': 'demo' };
    const days = Array.from({ length: 14 }, (_, i) => ({ timestamp: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(), value: 100 + i }));
    const ingested = await call(`${platform.bridge}/api/v1/insight/metrics`, { headers: bearer, json: { series: [{ name: 'mcp_signups', labels: {}, unit: 'signups', points: days }] } });
    expect(ingested.status).toBe(200);

    const definition = {
      unit: { kind: 'count', noun: 'signups' },
      aggregation: 'sum',
      upIsGood: true,
      formula: { sum: ['mcp_signups_web', 'mcp_signups_app'] },
      drivers: [{ metric: 'ad_spend', labels: { channel: 'search' }, lagDays: 2 }],
      synonyms: ['registrations'],
      description: 'Accounts opened per day',
    };
    const declared = await succeed('svcinsight_define_metric', { name: 'mcp_signups', definition });
    expect(declared.data).toEqual({ name: 'mcp_signups', definition, updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), updatedBy: 'tester' });
    expect(declared.text).toMatch(/^mcp_signups is defined \(unit, aggregation, upIsGood, formula, drivers, synonyms, description\), by tester at /);

    const listed = await succeed('svcinsight_list_metrics', { name: 'mcp_signups' });
    expect(listed.data.metrics).toEqual([expect.objectContaining({ name: 'mcp_signups', source: 'store', definition })]);
    const read = await call(`${platform.bridge}/api/v1/insight/metrics/mcp_signups/definition`, { headers: bearer });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ name: 'mcp_signups', definition, updatedBy: 'tester' });

    // Declared again: the definition is replaced as a whole.
    await succeed('svcinsight_define_metric', { name: 'mcp_signups', definition: { unit: { kind: 'count' }, upIsGood: false } });
    expect((await call(`${platform.bridge}/api/v1/insight/metrics/mcp_signups/definition`, { headers: bearer })).body.data.definition).toEqual({ unit: { kind: 'count' }, upIsGood: false });
  });

  it('refuses a bad definition with isError naming the field, and changes nothing', async () => {
    const bearer = { authorization: `Bearer ${analystToken}`, 'x-svc-tenant-id': 'demo' };
    const before = (await call(`${platform.bridge}/api/v1/insight/metrics/mcp_signups/definition`, { headers: bearer })).body.data;
    for (const [definition, field] of [
      [{ unit: { kind: 'currency', code: 'usd' } }, /ISO 4217 currency code.* at definition\.unit\.code/],
      [{ drivers: [{ metric: 'mcp_signups' }] }, /a driver may not be "mcp_signups" itself at definition\.drivers\[0\]\.metric/],
      [{ upIsGood: 'yes' }, /expected boolean.* at definition\.upIsGood/],
      [{ colour: 'red' }, /Unrecognized key: "colour" at definition/],
    ] as const) {
      const refused = await callTool(analyst, 'svcinsight_define_metric', { name: 'mcp_signups', definition });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toBeUndefined();
      expect(text(refused)).toMatch(/svcinsight_define_metric/);
      expect(text(refused)).toMatch(field);
    }
    const badName = await callTool(analyst, 'svcinsight_define_metric', { name: 'Signups!', definition: {} });
    expect(badName.isError).toBe(true);
    expect(text(badName)).toMatch(/metric name "Signups!" must be .* at name/);
    expect((await call(`${platform.bridge}/api/v1/insight/metrics/mcp_signups/definition`, { headers: bearer })).body.data).toEqual(before);
  });

  it('refuses to declare a definition for a token without the analyst role, saying which role it needs', async () => {
    // A reviewer reads the catalog (list_metrics works) but may not change what a metric means.
    const readable = await callTool(reviewer, 'svcinsight_list_metrics', { name: 'mcp_signups' });
    expect(readable.isError).toBeFalsy();
    for (const session of [reviewer, editor]) {
      const refused = await callTool(session, 'svcinsight_define_metric', { name: 'mcp_signups', definition: { upIsGood: true } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^The platform refused svcinsight_define_metric: This operation needs one of the roles: admin, analyst\. SVC_TOKEN must carry the analyst role\.$/);
    }
    const missing = await callTool(anonymous, 'svcinsight_define_metric', { name: 'mcp_signups', definition: {} });
    expect(text(missing)).toMatch(/set SVC_TOKEN to a platform token with the analyst role/);
    const bearer = { authorization: `Bearer ${analystToken}`, 'x-svc-tenant-id': 'demo' };
    expect((await call(`${platform.bridge}/api/v1/insight/metrics/mcp_signups/definition`, { headers: bearer })).body.data.definition).toEqual({ unit: { kind: 'count' }, upIsGood: false });
  });

  it('writes nothing but JSON-RPC to stdout, and only logs to stderr', async () => {
    const child = spawn(process.execPath, [SVC, 'insight-mcp'], { env: serverEnv({ SVC_TOKEN: analystToken, LOG_LEVEL: 'debug' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await eventually(() => stdout.includes('"id":1'), 15_000, 'the initialize answer');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'svcinsight_list_metrics', arguments: {} } });
    send({ id: 3, method: 'tools/call', params: { name: 'svcinsight_forecast', arguments: { name: 'sessions', horizon: 7 } } });
    send({ id: 4, method: 'tools/call', params: { name: 'svcinsight_simulate', arguments: { target_metric: 'revenue', driver_metric: 'ad_spend', change_percent: -10, horizon: 7 } } });
    send({ id: 5, method: 'tools/call', params: { name: 'svcinsight_lookup_metric', arguments: { name: 'no_such_metric' } } });
    await eventually(() => ['"id":2', '"id":3', '"id":4', '"id":5'].every((id) => stdout.includes(id)), 25_000, 'the tool answers');
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBe(5);
    const answers = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: CallToolResult }).sort((a, b) => a.id - b.id);
    for (const answer of answers) expect(answer).toMatchObject({ jsonrpc: '2.0', id: expect.any(Number), result: expect.any(Object) });
    expect(answers.map((a) => a.result.isError ?? false)).toEqual([false, false, false, false, true]);
    expect(stderr).toContain('insight MCP server listening on stdio');
    expect(stderr).toContain('analysis tool ran');
    expectCleanStderr(stderr);

    for (const session of [analyst, anonymous, editor, reviewer]) {
      expect(session.errors).toEqual([]);
      expectCleanStderr(session.stderr());
    }
  });

  it('works with the MCP Inspector CLI (tools/list and tools/call)', async () => {
    const env = ['-e', `SVC_ROUTER_URL=${platform.router}`, '-e', `SVC_TOKEN=${analystToken}`, '-e', 'SVC_TENANT_ID=demo', '-e', 'LOG_LEVEL=warn'];
    const inspect = (...method: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        // The inspector gives a stdio server 15 s to start by default; two start at once here, and on
        // a busy CI machine a cold Node start of the server has taken longer (exit 4, unreachable).
        execFile(process.execPath, [INSPECTOR, '--cli', '--connect-timeout', '60000', ...env, process.execPath, SVC, 'insight-mcp', ...method], { cwd: REPO, env: { PATH: process.env.PATH ?? '', HOME: inspectorHome }, timeout: 90_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const [listed, called] = await Promise.all([
      inspect('--method', 'tools/list'),
      inspect('--method', 'tools/call', '--tool-name', 'svcinsight_lookup_metric', '--tool-arg', 'name=conversion_rate', '--tool-arg', 'step=1w'),
    ]);
    expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    expect({ code: called.code, stderr: called.stderr }).toMatchObject({ code: 0 });
    const answer = JSON.parse(called.stdout) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ name: 'conversion_rate', step: '1w', series: [expect.objectContaining({ unit: 'ratio', points: expect.any(Array) })] });
  }, 120_000);
});
