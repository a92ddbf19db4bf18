import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { configSchema } from './config.js';
import { SERVICES, servicesRunBy, type Service } from './services.js';

/**
 * Keeps docker/compose.yaml and docker/Dockerfile in step with the code: service names the
 * `svc` entry knows, variables configSchema (every config slice) reads, dependencies that exist, the Varnish VCL
 * with xkey, the image's entry point. Runs from cli/dist/src/.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const COMPOSE_FILE = fileURLToPath(new URL('../../../docker/compose.yaml', import.meta.url));
const DOCKERFILE = fileURLToPath(new URL('../../../docker/Dockerfile', import.meta.url));
const COMPOSE_DIR = dirname(COMPOSE_FILE);

/** Variables set on the platform's containers that only the image reads (its HEALTHCHECK), not the platform. */
const IMAGE_ONLY_VARIABLES = ['SVC_HEALTH_PORT'];

type ComposeService = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  depends_on?: string[] | Record<string, unknown>;
  volumes?: (string | { source?: string; target?: string })[];
};

const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services?: Record<string, ComposeService> };
const services = compose.services ?? {};
const dockerfile = readFileSync(DOCKERFILE, 'utf8');

/** Services whose image is built from docker/Dockerfile: they run `svc <command>`. */
const platformServices = Object.entries(services).filter(([, service]) => {
  if (!service.build) return false;
  const build = typeof service.build === 'string' ? { context: service.build } : service.build;
  const context = resolve(COMPOSE_DIR, build.context ?? '.');
  return resolve(context, build.dockerfile ?? 'Dockerfile') === DOCKERFILE;
});

function commandOf(service: ComposeService): string[] {
  if (service.command === undefined) return [];
  return typeof service.command === 'string' ? service.command.trim().split(/\s+/) : service.command.map(String);
}

/** The platform services a compose service's `svc` process runs (`graph` runs six). */
function runBy(service: ComposeService): readonly Service[] {
  return servicesRunBy(commandOf(service)[0] as Service);
}

/** The compose services whose `svc` process runs `service` (itself, or as part of `graph`, `edge` or `all`). */
function servicesRunning(service: Service): [string, ComposeService][] {
  return platformServices.filter(([, s]) => runBy(s).includes(service));
}

function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => {
      const at = entry.indexOf('=');
      return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
    }));
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null || value === undefined ? '' : String(value)]));
}

function dependenciesOf(service: ComposeService): string[] {
  const deps = service.depends_on ?? [];
  return Array.isArray(deps) ? deps : Object.keys(deps);
}

/** The last ENTRYPOINT of the Dockerfile (the runtime stage's), as its exec-form array. */
function entrypointOf(text: string): string[] | undefined {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const entry = lines.filter((line) => /^\s*ENTRYPOINT\s/i.test(line)).pop();
  if (!entry) return undefined;
  const args = entry.replace(/^\s*ENTRYPOINT\s+/i, '').trim();
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
  } catch {
    return args.split(/\s+/);
  }
}

describe('docker/compose.yaml', () => {
  it('has services built from docker/Dockerfile', () => {
    expect(Object.keys(services).length).toBeGreaterThan(0);
    expect(servicesRunning('router')).toHaveLength(1);
    expect(servicesRunning('bridge')).toHaveLength(1);
  });

  it('runs the router with every subgraph in its process, and jobs only on workers (the deployment bench/RESULTS.md measures)', () => {
    const [router] = servicesRunning('router');
    if (!router) throw new Error('no service runs the router');
    const [name, service] = router;
    const missing = (['insight', 'llm', 'crawl', 'cms'] as const).filter((subgraph) => !runBy(service).includes(subgraph));
    expect(missing.map((subgraph) => `service "${name}" runs the router without ${subgraph} in its process`)).toEqual([]);
    const env = environmentOf(service);
    expect([env.SVC_INSIGHT_WORKER, env.SVC_CRAWL_WORKER]).toEqual(['false', 'false']);
    expect(platformServices.filter(([, s]) => commandOf(s)[0] === 'worker').length).toBeGreaterThan(0);
  });

  it('runs only services the svc entry knows (SERVICES in cli/src/services.ts)', () => {
    const offenders = platformServices
      .filter(([, service]) => {
        const [name] = commandOf(service);
        return name === undefined || !(SERVICES as readonly string[]).includes(name);
      })
      .map(([name, service]) => `service "${name}": command ${JSON.stringify(service.command ?? null)} is not one of ${SERVICES.join(', ')}`);
    expect(offenders).toEqual([]);
  });

  it('sets only environment variables the platform reads (configSchema in cli/src/config.ts: kit and every service slice)', () => {
    const known = new Set([...Object.keys(configSchema.shape), ...IMAGE_ONLY_VARIABLES]);
    const offenders = platformServices.flatMap(([name, service]) =>
      Object.keys(environmentOf(service))
        .filter((variable) => !known.has(variable))
        .map((variable) => `service "${name}": environment variable ${variable} is not in configSchema`),
    );
    expect(offenders).toEqual([]);
  });

  it('sets image-only variables the Dockerfile actually reads', () => {
    const offenders = IMAGE_ONLY_VARIABLES.filter((variable) => !dockerfile.includes(variable)).map(
      (variable) => `${variable} is allowed on the services as an image variable but docker/Dockerfile never reads it`,
    );
    expect(offenders).toEqual([]);
  });

  it('depends only on services that exist', () => {
    const offenders = Object.entries(services).flatMap(([name, service]) =>
      dependenciesOf(service)
        .filter((target) => !(target in services))
        .map((target) => `service "${name}": depends_on "${target}", which is not a service`),
    );
    expect(offenders).toEqual([]);
  });

  it('mounts a Varnish VCL that exists and imports xkey', () => {
    const varnish = Object.entries(services).find(([name, service]) => name === 'varnish' || /(^|\/)varnish(:|$)/.test(service.image ?? ''));
    expect(varnish).toBeDefined();
    const [name, service] = varnish!;
    const mounts = (service.volumes ?? []).map((volume) =>
      typeof volume === 'string' ? { source: volume.split(':')[0] ?? '', target: volume.split(':')[1] ?? '' } : { source: volume.source ?? '', target: volume.target ?? '' },
    );
    const vcl = mounts.find((mount) => mount.target.endsWith('.vcl'));
    if (!vcl) throw new Error(`service "${name}" mounts no .vcl file (volumes: ${JSON.stringify(service.volumes ?? [])})`);
    const file = resolve(COMPOSE_DIR, vcl.source);
    if (!existsSync(file)) throw new Error(`service "${name}" mounts ${vcl.source}, which does not exist (${file})`);
    const text = readFileSync(file, 'utf8');
    if (!/^\s*import\s+xkey\s*;/m.test(text)) throw new Error(`${vcl.source} (mounted by service "${name}") has no "import xkey;"`);
  });

  it('runs the bridge on SERVER_PORT 8084, in the service the VCL backend names', () => {
    const [bridge] = servicesRunning('bridge');
    if (!bridge) throw new Error('no service runs the bridge (`svc bridge`, `svc graph`, `svc edge` or `svc all`)');
    const [name, service] = bridge;
    const port = environmentOf(service).SERVER_PORT;
    if (port !== '8084') throw new Error(`service "${name}": SERVER_PORT is ${port === undefined ? 'not set' : JSON.stringify(port)}, expected "8084"`);
    const vcl = readFileSync(resolve(COMPOSE_DIR, 'varnish/default.vcl'), 'utf8');
    const backend = /backend\s+\w+\s*\{[^}]*\.host\s*=\s*"([^"]+)";[^}]*\.port\s*=\s*"([^"]+)";/.exec(vcl);
    expect(backend?.slice(1)).toEqual([name, port]);
  });
});

describe('docker/Dockerfile', () => {
  it('enters through the built svc entry, cli/dist/src/svc.js', () => {
    const entry = entrypointOf(dockerfile);
    if (!entry) throw new Error('docker/Dockerfile has no ENTRYPOINT');
    if (!entry.includes('cli/dist/src/svc.js')) throw new Error(`docker/Dockerfile ENTRYPOINT ${JSON.stringify(entry)} does not run cli/dist/src/svc.js`);
    expect(existsSync(resolve(REPO, 'cli/src/svc.ts'))).toBe(true);
  });

  it('copies the package.json of every npm workspace and keeps its dist', () => {
    const workspaces = (JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    for (const ws of workspaces) {
      if (!dockerfile.includes(`COPY ${ws}/package.json ${ws}/`)) throw new Error(`docker/Dockerfile does not COPY ${ws}/package.json (npm ci needs every workspace)`);
      if (ws !== 'test' && !new RegExp(`for ws in [^;]*\\b${ws.replace('/', '\\/')}\\b`).test(dockerfile)) throw new Error(`docker/Dockerfile does not keep ${ws}/dist in the runtime image`);
    }
  });
});
