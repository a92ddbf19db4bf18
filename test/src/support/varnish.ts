import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const VARNISHD = '/usr/sbin/varnishd';

/** test/dist/src/support -> repo root. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const REPO_VCL = path.join(REPO_ROOT, 'docker/varnish/default.vcl');

const HOST_LINE = '    .host = "graph";';
const PORT_LINE = '    .port = "8084";';

export interface Varnish {
  /** Base URL of the Varnish listener, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (bind port 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not read a free port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // varnishd -F runs a manager and a cache child; the group holds both (spawned detached).
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Starts varnishd in the foreground with the repo VCL, its backend rewritten to `backendUrl`
 * (Varnish resolves the backend at compile time, so the address must be known now).
 * `port` fixes the listener port (reserve one with {@link freePort}); default a free one.
 */
export async function startVarnish(backendUrl: string, port?: number, timeoutMs = 15_000): Promise<Varnish> {
  if (!existsSync(VARNISHD)) {
    throw new Error(`${VARNISHD} is missing: run \`bash scripts/provision.sh\` (as root) to install Varnish 7.1 with varnish-modules.`);
  }
  const backend = new URL(backendUrl);
  const backendHost = ['localhost', '0.0.0.0', '[::]', '::', ''].includes(backend.hostname) ? '127.0.0.1' : backend.hostname.replace(/^\[|\]$/g, '');
  const backendPort = backend.port || (backend.protocol === 'https:' ? '443' : '80');

  const source = await readFile(REPO_VCL, 'utf8');
  if (!source.includes(HOST_LINE) || !source.includes(PORT_LINE)) {
    throw new Error(`${REPO_VCL} no longer has the backend lines ${JSON.stringify(HOST_LINE)} and ${JSON.stringify(PORT_LINE)} that tests rewrite`);
  }
  const vcl = source.replace(HOST_LINE, `    .host = "${backendHost}";`).replace(PORT_LINE, `    .port = "${backendPort}";`);

  const listenPort = port ?? (await freePort());
  // varnishd (as root) reads the VCL and works in -n as the unprivileged varnish/vcache users.
  const vclDir = await mkdtemp(path.join(os.tmpdir(), 'svc-varnish-vcl-'));
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'svc-varnish-n-'));
  const cleanup = () => Promise.all([rm(vclDir, { recursive: true, force: true }), rm(workDir, { recursive: true, force: true })]).then(() => undefined);
  const vclFile = path.join(vclDir, 'default.vcl');
  try {
    await chmod(vclDir, 0o755);
    await chmod(workDir, 0o755);
    await writeFile(vclFile, vcl, { mode: 0o644 });
  } catch (error) {
    await cleanup();
    throw error;
  }

  const child = spawn(VARNISHD, ['-F', '-n', workDir, '-a', `127.0.0.1:${listenPort}`, '-f', vclFile, '-s', 'malloc,32m'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const url = `http://127.0.0.1:${listenPort}`;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && !spawnError) {
        signalGroup(child, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
        await exited(child);
        clearTimeout(timer);
        // The cache child may outlive a killed manager for a moment.
        signalGroup(child, 'SIGKILL');
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      await cleanup();
    })());

  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (spawnError) break;
    if (child.exitCode !== null || child.signalCode !== null) {
      last = `varnishd exited with ${child.exitCode ?? child.signalCode}`;
      break;
    }
    try {
      const response = await fetch(`${url}/.varnish/health`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return { url, port: listenPort, stop };
      last = `health answered ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(
    `varnishd did not start: no 200 from ${url}/.varnish/health (${spawnError?.message ?? last}; waited up to ${timeoutMs} ms).` +
      ` varnishd output:\n${output.trim() || '(none)'}`,
  );
}
