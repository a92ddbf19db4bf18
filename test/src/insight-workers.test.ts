import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './support/eventually.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Analysis jobs on separate `svc worker` processes: a worker killed mid-job (SIGKILL) loses its
 * lock and the other resumes the job from its last written step, repeating no completed tool
 * call and writing one report. A slow upstream model keeps the job running long enough.
 */

const SVC = fileURLToPath(new URL('../../../cli/bin/svc.js', import.meta.url));
const LOCK_MS = 3000;

let platform: TestPlatform;
let upstream: Awaited<ReturnType<typeof startFakeOpenAi>>;
let analyst: string;
let gatewayKey: string;
const workers = new Map<string, { child: ChildProcess; output: () => string }>();

async function startWorker(name: string) {
  const child = spawn(process.execPath, [SVC, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: platform.databaseUrl,
      SVC_JWT_SECRET: TEST_JWT_SECRET,
      SVC_WORKER_NAME: name,
      SVC_ROUTER_URL: platform.router,
      SVC_INSIGHT_GATEWAY_KEY: gatewayKey,
      SVC_INSIGHT_LOCK_LIFETIME_MS: String(LOCK_MS),
      SVC_INSIGHT_CONCURRENCY: '1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  workers.set(name, { child, output: () => output });
  await eventually(() => output.includes('analysis worker started') || child.exitCode !== null, 30_000, `worker ${name} to start`);
  if (child.exitCode !== null) throw new Error(`worker ${name} exited with ${child.exitCode}:\n${output}`);
}

beforeAll(async () => {
  upstream = await startFakeOpenAi({ delayMs: 400 });
  const config = await writeGatewayConfig({
    providers: [{ name: 'slow', kind: 'openai-compatible', baseUrl: upstream.url }],
    models: [{ name: 'slow-model', provider: 'slow', inputPerMTok: 0, outputPerMTok: 0 }],
    aliases: { 'fast-track': ['slow-model'], 'deep-reasoning': ['slow-model'] },
  });
  // The analysis service only queues here; the two `svc worker` processes run the jobs.
  platform = await startTestPlatform({ SVCLLM_CONFIG: config, SVC_INSIGHT_WORKER: 'false', SVCLLM_CACHE_TTL_SECONDS: '0' });
  analyst = await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['demo'], sites: [] });
  const key = await gql(platform.router, 'mutation { createApiKey(agentCode: "insight", name: "workers") { key } }', {}, { authorization: `Bearer ${TEST_MASTER_KEY}` });
  gatewayKey = key.body.data.createApiKey.key;
  await Promise.all([startWorker('worker-a'), startWorker('worker-b')]);
}, 90_000);

afterAll(async () => {
  for (const { child } of workers.values()) if (child.exitCode === null) child.kill('SIGKILL');
  await platform?.close();
  await upstream?.close();
});

describe('analysis jobs on svc worker processes', () => {
  it('resumes a job whose worker was killed, on the other worker, repeating no completed tool call and writing one report', async () => {
    const created = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: { authorization: `Bearer ${analyst}` }, json: { prompt: 'Why did revenue drop last week? What if we increase search ad spend by 20%?' } });
    expect(created.status).toBe(202);
    const jobId = created.body.data.jobId;
    const read = async () => (await call(`${platform.bridge}/api/v1/insight/jobs/${jobId}`, { headers: { authorization: `Bearer ${analyst}` } })).body.data;
    // Wait until a worker has written a few tool results, then kill it.
    const running = await eventually(async () => {
      const job = await read();
      return job.steps.filter((s: { kind: string }) => s.kind === 'TOOL_RESULT').length >= 2 ? job : undefined;
    }, 60_000, 'the job to be under way');
    const owner = /Running on (worker-[ab])/.exec(running.steps[0].title)![1]!;
    const survivor = owner === 'worker-a' ? 'worker-b' : 'worker-a';
    workers.get(owner)!.child.kill('SIGKILL');
    const killedAt = Date.now();
    const job = await eventually(async () => {
      const j = await read();
      return j.status === 'COMPLETED' || j.status === 'FAILED' ? j : undefined;
    }, 60_000, 'the job to be finished by the other worker');
    expect(job.status).toBe('COMPLETED');
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    const steps = job.steps as { seq: number; kind: string; title: string; detail: string | null; toolName: string | null; toolArgs: unknown }[];
    expect(steps.some((s) => s.kind === 'STATUS' && s.title.startsWith(`Resumed on ${survivor}`))).toBe(true);
    // Every planned call (a tool with its arguments) exists once, every call has one result, and the report exists once.
    const calls = steps.filter((s) => s.kind === 'TOOL_CALL');
    const planned = calls.filter((s) => s.detail !== 'the model asked for it').map((s) => JSON.stringify([s.toolName, s.toolArgs]));
    const planSize = Number(/Plan: (\d+) steps/.exec(steps.find((s) => s.kind === 'PLAN')!.title)![1]);
    expect(planSize).toBeGreaterThanOrEqual(4);
    expect(planned.length).toBe(planSize);
    expect(new Set(planned).size).toBe(planned.length);
    const kinds = steps.map((s) => s.kind).filter((k) => k === 'TOOL_CALL' || k === 'TOOL_RESULT');
    expect(kinds).toEqual(calls.flatMap(() => ['TOOL_CALL', 'TOOL_RESULT']));
    expect(steps.filter((s) => s.kind === 'REPORT')).toHaveLength(1);
    expect(steps.map((s) => s.seq)).toEqual(steps.map((_, i) => i + 1));
    expect(job.report.findings.length).toBeGreaterThan(3);
  }, 150_000);
});
