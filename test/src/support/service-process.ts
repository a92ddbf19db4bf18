import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './platform.js';
import { freePort } from './ports.js';

const SVC = fileURLToPath(new URL('../../../../cli/bin/svc.js', import.meta.url));

/** The port variable of each service `svc <service>` can run alone. */
const PORT_VARIABLE = { insight: 'SVC_INSIGHT_PORT', llm: 'SVC_LLM_PORT', crawl: 'SVC_CRAWL_PORT', cms: 'SVC_CMS_PORT', router: 'SVC_ROUTER_PORT', edge: 'SERVER_PORT', bridge: 'SERVER_PORT' } as const;
export type ProcessService = keyof typeof PORT_VARIABLE;

/** One `svc <service>` process, as a deployment runs it. */
export interface ServiceProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Everything it printed (JSON log lines). */
  output(): string;
  /** SIGTERM (after SIGCONT, should it be stopped), SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `svc <service>` on a free port (or `env[<its port variable>]`) against `databaseUrl`,
 * resolving once it serves /ready (or /health for the router and the bridge, whose /ready
 * depends on what they call). Several of them on one database are several instances.
 */
export async function startServiceProcess(service: ProcessService, databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const portVariable = PORT_VARIABLE[service];
  const port = Number(env[portVariable] ?? (await freePort()));
  const child = spawn(process.execPath, [SVC, service], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: databaseUrl,
      SVC_JWT_SECRET: TEST_JWT_SECRET,
      SVCLLM_MASTER_KEY: TEST_MASTER_KEY,
      LOG_LEVEL: 'info',
      ...env,
      [portVariable]: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const probe = service === 'router' || service === 'bridge' || service === 'edge' ? 'health' : 'ready';
  await eventually(async () => (child.exitCode !== null || (await fetch(`${url}/${probe}`).then((r) => r.ok, () => false)) ? true : undefined), 60_000, `svc ${service} to serve`);
  if (child.exitCode !== null) throw new Error(`svc ${service} exited with ${child.exitCode}:\n${output}`);
  return {
    child,
    url,
    port,
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
