import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './platform.js';
import { freePort } from './ports.js';

const SVC = fileURLToPath(new URL('../../../../cli/bin/svc.js', import.meta.url));

/** One `svc llm` process, as a deployment runs it. */
export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed (JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `svc llm` on a free port against `databaseUrl` (and Redis when `env.REDIS_URL` is
 * set), resolving once it serves /ready. Several of them on one database and Redis are
 * several gateway instances.
 */
export async function startGatewayProcess(databaseUrl: string, env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [SVC, 'llm'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: databaseUrl,
      SVC_JWT_SECRET: TEST_JWT_SECRET,
      SVCLLM_MASTER_KEY: TEST_MASTER_KEY,
      SVC_LLM_PORT: String(port),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => (child.exitCode !== null || (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) ? true : undefined), 60_000, 'the gateway to serve');
  if (child.exitCode !== null) throw new Error(`svc llm exited with ${child.exitCode}:\n${output}`);
  return {
    child,
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
