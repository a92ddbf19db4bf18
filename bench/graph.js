// Graph performance (issue #33): the federated graph and the REST bridge against Hive Gateway, the
// subgraphs called directly and a bare node:http server, every service in a process of its own.
//
// One fresh PostgreSQL database; `svc insight`, `svc llm`, `svc crawl`, `svc cms`, `svc router` and
// `svc bridge` each in its own process (the demo seed on: the `demo` site and its contents, the
// agent `shop-assistant`, tenant `demo`'s crawl jobs; the in-process job workers off, so no job
// runs while timing; Redis shared, as a deployment of several processes has it). 50 action
// proposals are written into insight.action with SQL (there is no API that creates them without
// running an analysis), their targets cycling over the tenant's contents (cms), crawl jobs
// (crawl) and agents (llm). Hive Gateway (@graphql-hive/gateway-runtime over node:http, the same
// supergraph with the URLs of the subgraphs started here, forwarding the same caller headers as
// our router; twice: with its defaults, which share identical subgraph requests in flight, and
// with that deduplication off) and a bare node:http server run in child processes of this script.
//
// Workloads, each contender loaded with autocannon at concurrency 1 and 64:
//   1. GET /api/v1/contents/welcome (X-Svc-Site-Key: demo) through the bridge, against a bare
//      node:http server answering the same bytes and headers; with the delivery cache (Redis)
//      and without it (cms restarted with SVC_CMS_CACHE_TTL_SECONDS=0 and the entry purged: the
//      delivery has no per-request bypass).
//   2. The bridge's DeliverContent operation (one subgraph): our router, Hive Gateway, cms alone.
//   3. 50 actions with their targets resolved by cms, crawl and llm: our router, Hive Gateway,
//      and the same query without `target` sent to insight alone.
//   4. GET /api/v1/insight/actions?first=50 through the bridge against its operation
//      (ListActions) sent to the router: each in its own process, both in `svc edge` (the router
//      and the bridge in one process, in front of subgraphs in theirs) and both in `svc graph`.
// Before timing, each contender's answer is fetched once and compared with the workload's first
// contender (byte for byte; else after JSON.parse and a stable stringify, which the output says);
// one that answers differently is reported as a failure and not timed. Each request under load is
// checked against that answer too (autocannon's expectBody: "failed requests").
//
//   npm run bench:graph          two alternating rounds of 10 s per contender and concurrency
//                                (the second round in reverse order), after a 2 s warm-up;
//                                writes its section of bench/RESULTS.md
//   BENCH_NO_WRITE=1 ...         prints only
//   SVC_BENCH_SMOKE=1 ...        1 s per contender and concurrency, one round; writes nothing
//   BENCH_GRAPH_ONLY=W3:router,insight ...
//                                only the workloads named (W1 cached, W2, W3, W4; a role list after
//                                a colon keeps only those contenders), printing their rows; writes
//                                nothing. For looking at one lever at a time.
//   BENCH_GRAPH_CONCURRENCY=1 ...  only these concurrencies (default 1,64)
//   BENCH_GRAPH_PROFILE=<dir> ...  every svc process writes a V8 CPU profile (--cpu-prof) into <dir>
//                                when it stops: open it in Chrome DevTools or speedscope.
//   BENCH_GRAPH_NODE_FLAGS="--max-semi-space-size=64" ...  these Node flags for every svc process
//                                instead of the image's (docker/Dockerfile's ENTRYPOINT; "" for none):
//                                to measure a V8 setting before making it the default.
//
// CPU per request: utime + stime of each process involved (/proc/<pid>/stat, 100 ticks/s) read
// before and after each run, divided by the requests answered in it. PostgreSQL, Redis and the
// load generator (this process) are not counted.
import { fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { cpuTicks, residentMb } from './proc-stats.js';
import { untilReady } from './until-ready.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SVC = join(ROOT, 'cli/bin/svc.js');
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
/** BENCH_GRAPH_ONLY: workload key → the contender roles kept (undefined: all). */
const ONLY = process.env.BENCH_GRAPH_ONLY
  ? new Map(process.env.BENCH_GRAPH_ONLY.split(';').map((part) => {
    const [key, roles] = part.split(':');
    return [key.trim(), roles ? roles.split(',').map((r) => r.trim()) : undefined];
  }))
  : undefined;
const PROFILE_DIR = process.env.BENCH_GRAPH_PROFILE;
/** The Node flags docker/Dockerfile's ENTRYPOINT runs every service with (those between `node` and the entry). */
function imageNodeFlags() {
  const entry = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8').match(/^ENTRYPOINT\s+(\[.*\])\s*$/m);
  if (!entry) throw new Error('docker/Dockerfile has no exec-form ENTRYPOINT');
  const args = JSON.parse(entry[1]);
  return args.slice(1, args.indexOf('cli/dist/src/svc.js'));
}
const NODE_FLAGS = process.env.BENCH_GRAPH_NODE_FLAGS !== undefined ? process.env.BENCH_GRAPH_NODE_FLAGS.split(/\s+/).filter(Boolean) : imageNodeFlags();
const NO_WRITE = SMOKE || ONLY !== undefined || process.env.BENCH_NO_WRITE === '1';
const SECONDS = SMOKE ? 1 : 10;
const ROUNDS = SMOKE ? 1 : 2;
const WARMUP_SECONDS = SMOKE ? 0.5 : 2;
const CONCURRENCY = process.env.BENCH_GRAPH_CONCURRENCY ? process.env.BENCH_GRAPH_CONCURRENCY.split(',').map(Number) : [1, 64];
const TICKS_PER_SECOND = 100;
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TENANT = 'demo';
const SITE_KEY = 'demo';
const SLUG = 'welcome';
const ACTIONS = 50;
const BEGIN = '<!-- graph:begin -->';
const END = '<!-- graph:end -->';
const log = (message) => process.stderr.write(`[graph] ${message}\n`);

/** Workload 3: the actions with each target resolved by its own subgraph (aliases: `status` is an enum on Content, a String on CrawlJob). */
const FEDERATED_QUERY = `query GraphBenchActions($first: Int) {
  actionProposals(first: $first) {
    actionId jobId kind title targetType targetId status proposedAt expiresAt
    target {
      __typename
      ... on Content { id slug contentStatus: status }
      ... on CrawlJob { jobId jobName jobStatus: status }
      ... on Agent { code budget { agentCode allocatedUsd currentUsageUsd remainingUsd status hardLimitEnabled } }
    }
  }
}`;
/** The same query without the target: insight's root field alone. */
const ROOT_QUERY = `query GraphBenchActions($first: Int) {
  actionProposals(first: $first) {
    actionId jobId kind title targetType targetId status proposedAt expiresAt
  }
}`;

// ---------------------------------------------------------------- child processes of this script

/** A bare node:http server answering every request with the bytes and headers it is given. */
function runBareChild() {
  process.once('message', ({ status, headers, body, keepAliveTimeoutMs }) => {
    const payload = Buffer.from(body, 'base64');
    const server = createHttpServer({ keepAliveTimeout: keepAliveTimeoutMs, headersTimeout: keepAliveTimeoutMs + 1000 }, (req, res) => {
      req.resume();
      res.statusCode = status;
      // In the bridge's order; the request id is a fresh UUID per answer, as the bridge's is.
      for (const [name, value] of headers) res.setHeader(name, name === 'x-request-id' ? randomUUID() : value);
      res.end(payload);
    });
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  });
  process.on('disconnect', () => process.exit(0));
}

/** Hive Gateway: its runtime over the supergraph, served by node:http, forwarding the caller's headers. */
function runHiveChild() {
  process.once('message', async ({ supergraph, forwarded, dedupe }) => {
    try {
      const { createGatewayRuntime } = await import('@graphql-hive/gateway-runtime');
      const gateway = createGatewayRuntime({
        supergraph,
        logging: 'error',
        landingPage: false,
        graphiql: false,
        // On by default: identical subgraph requests in flight at once are sent once and the answer shared.
        ...(dedupe ? {} : { transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } } }),
        // What router/src/router.ts does in willSendRequest: the caller's headers to every subgraph.
        propagateHeaders: {
          fromClientToSubgraphs: ({ request }) => {
            const headers = {};
            for (const name of forwarded) {
              const value = request.headers.get(name);
              if (value !== null) headers[name] = value;
            }
            return headers;
          },
        },
      });
      const server = createHttpServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, gateway);
      server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
    } catch (error) {
      process.send({ error: error.stack ?? String(error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------- helpers

/** One HTTP exchange with the raw response headers kept. */
function call({ url, method = 'GET', headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function stableStringify(value) {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

/** Whether two bodies say the same: byte for byte, else but for a trailing newline, else as JSON (same key order, or any). */
function compareBodies(reference, other) {
  if (reference === other) return { ok: true, how: 'byte for byte' };
  if (reference.trimEnd() === other.trimEnd()) {
    return { ok: true, how: `byte for byte but the trailing newline (${/\s$/.test(reference) ? 'the reference ends with one, this one not' : 'this one ends with one, the reference not'})` };
  }
  let at = 0;
  while (at < reference.length && reference[at] === other[at]) at++;
  const where = (width) => `from byte ${at}: ${JSON.stringify(reference.slice(Math.max(0, at - 10), at + width))} vs ${JSON.stringify(other.slice(Math.max(0, at - 10), at + width))}`;
  try {
    const [a, b] = [JSON.parse(reference), JSON.parse(other)];
    if (JSON.stringify(a) === JSON.stringify(b)) return { ok: true, how: 'the same JSON, keys in the same order; whitespace differs' };
    if (stableStringify(a) === stableStringify(b)) return { ok: true, how: `the same JSON after parse + stable stringify (the key order differs ${where(30)})` };
  } catch {
    // not JSON: the bytes decide
  }
  return { ok: false, how: `differs ${where(80)}` };
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const fmt = (v, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
const fmtInt = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-');

// ---------------------------------------------------------------- the benchmark

async function main() {
  const [{ default: autocannon }, { default: pg }, { default: Redis }, kit, { paramsHash }, { createBenchDatabase }, { writeResultsSection }] = await Promise.all([
    import('autocannon'),
    import('pg'),
    import('ioredis'),
    import('../subgraphs/kit/dist/src/index.js'),
    import('../subgraphs/insight/dist/src/domain/action.js'),
    import('./bench-database.js'),
    import('./results-section.js'),
  ]);
  const started = new Date();
  const loadAtStart = os.loadavg()[0];
  const operations = await kit.loadOperations(join(ROOT, 'schema/operations'));
  const supergraphFile = readFileSync(join(ROOT, 'schema/supergraph.graphql'), 'utf8');

  const name = `svc_graph_${process.pid}_${randomBytes(3).toString('hex')}`;
  const redisPrefix = `svcgraph:${process.pid}:${randomBytes(3).toString('hex')}:`;
  const processes = new Map(); // name -> { child, output }
  let database;
  let dir;
  let cleaning;
  const stop = (child, ms = 15_000) => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
  const cleanup = () => (cleaning ??= cleanupOnce());
  const cleanupOnce = async () => {
    await Promise.all([...processes.values()].map(({ child }) => stop(child)));
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } catch (error) {
      log(`could not remove the Redis keys ${redisPrefix}*: ${error.message}`);
    } finally {
      redis.disconnect();
    }
    if (database) await database.drop().catch((error) => log(`could not drop database ${name}: ${error.message}`));
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: stopping the services and dropping the database`);
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    database = await createBenchDatabase(name);
    dir = await mkdtemp(join(os.tmpdir(), 'svc-graph-'));
    // Every port this run hands out differs from the others: the OS may give a port it gave a moment ago (freePort closes its listener), and one process holding two of them fails to start.
    const handedOut = new Set();
    const port = async () => {
      for (;;) {
        const candidate = await freePort();
        if (!handedOut.has(candidate)) return handedOut.add(candidate), candidate;
      }
    };
    const ports = { insight: await port(), llm: await port(), crawl: await port(), cms: await port(), router: await port(), bridge: await port(), graph: await port(), graphBridge: await port(), edge: await port(), edgeBridge: await port() };
    const url = (service) => `http://127.0.0.1:${ports[service]}`;
    const adminPassword = randomBytes(12).toString('base64url');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      // As the image runs it (docker/Dockerfile); graphql-js's development checks are off.
      NODE_ENV: 'production',
      // For a before-and-after of the router's compiled result shaping (SVC_ROUTER_COMPILED_SHAPING=false).
      ...(process.env.SVC_ROUTER_COMPILED_SHAPING ? { SVC_ROUTER_COMPILED_SHAPING: process.env.SVC_ROUTER_COMPILED_SHAPING } : {}),
      // And of the subgraphs' compiled execution (SVC_SUBGRAPH_COMPILED_EXECUTION=false).
      ...(process.env.SVC_SUBGRAPH_COMPILED_EXECUTION ? { SVC_SUBGRAPH_COMPILED_EXECUTION: process.env.SVC_SUBGRAPH_COMPILED_EXECUTION } : {}),
      DATABASE_URL: database.url,
      REDIS_URL,
      SVC_REDIS_PREFIX: redisPrefix,
      SVC_DATA_DIR: dir,
      SVC_JWT_SECRET: randomBytes(32).toString('base64url'),
      SVCLLM_MASTER_KEY: `sk-svc-master-graph-${randomBytes(12).toString('hex')}`,
      SVC_ADMIN_USERNAME: 'admin',
      SVC_ADMIN_PASSWORD: adminPassword,
      SVC_SEED_DEMO: 'true',
      SVC_INSIGHT_WORKER: 'false',
      SVC_CRAWL_WORKER: 'false',
      LOG_LEVEL: 'warn',
      SVC_INSIGHT_PORT: String(ports.insight),
      SVC_LLM_PORT: String(ports.llm),
      SVC_CRAWL_PORT: String(ports.crawl),
      SVC_CMS_PORT: String(ports.cms),
      SVC_ROUTER_PORT: String(ports.router),
      SERVER_PORT: String(ports.bridge),
      SVC_INSIGHT_URL: `${url('insight')}/graphql`,
      SVC_LLM_URL: `${url('llm')}/graphql`,
      SVC_CRAWL_URL: `${url('crawl')}/graphql`,
      SVC_CMS_URL: `${url('cms')}/graphql`,
      SVC_ROUTER_URL: `${url('router')}/graphql`,
    };

    const startService = async (service, extra = {}) => {
      const args = [...NODE_FLAGS, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), SVC, service];
      const child = spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'pipe'] });
      const entry = { child, output: '' };
      child.stderr.on('data', (c) => (entry.output = (entry.output + c).slice(-4000)));
      processes.set(service, entry);
      // Subgraphs answer /ready once their database is; the router and the bridge have /health only.
      const probe = service === 'router' || service === 'bridge' || service === 'graph' || service === 'edge' ? 'health' : 'ready';
      await untilReady(child, `${url(service)}/${probe}`, { label: `svc ${service}`, output: () => entry.output });
    };
    const forkChild = async (role, message) => {
      const child = fork(SELF, [`--child=${role}`], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, NODE_ENV: 'production' } });
      const entry = { child, output: '' };
      child.stderr.on('data', (c) => (entry.output = (entry.output + c).slice(-4000)));
      const reply = await new Promise((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`${role} exited with ${code}: ${entry.output}`)));
        child.send(message);
      });
      if (reply.error) throw new Error(`${role}: ${reply.error}`);
      return { entry, url: `http://127.0.0.1:${reply.port}` };
    };

    // The subgraphs one after another (each migrates its own schema and seeds its demo data), then router and bridge.
    for (const service of ['insight', 'llm', 'crawl', 'cms']) {
      const t = performance.now();
      await startService(service);
      log(`svc ${service} ready on :${ports[service]} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    }
    await Promise.all([startService('router'), startService('bridge')]);
    log(`svc router :${ports.router} and svc bridge :${ports.bridge} ready`);
    // The router and the bridge in one process (`svc edge`) in front
    // of the same subgraph processes: its bridge runs its operations on its router without a socket.
    await startService('edge', { SVC_ROUTER_PORT: String(ports.edge), SERVER_PORT: String(ports.edgeBridge) });
    log(`svc edge ready: its router on :${ports.edge}, its bridge on :${ports.edgeBridge}`);
    // The graph in one process on the same database and Redis (`svc graph`, what docker/compose.yaml
    // runs per replica; `svc all`, what `npm start` runs, is the same plus the dashboard): its router
    // calls the subgraphs of its process without a socket. Its subgraphs on ports of their own;
    // `ports.graph` is its router's, `ports.graphBridge` its bridge's (which runs its operations on
    // the router of its process without a socket).
    await startService('graph', {
      SVC_ROUTER_PORT: String(ports.graph), SVC_INSIGHT_PORT: String(await port()), SVC_LLM_PORT: String(await port()), SVC_CRAWL_PORT: String(await port()),
      SVC_CMS_PORT: String(await port()), SERVER_PORT: String(ports.graphBridge),
    });
    log(`svc graph (one process) ready, its router on :${ports.graph}`);

    const login = await call({ url: `${url('bridge')}/api/v1/auth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: adminPassword }) });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.body}`);
    const token = JSON.parse(login.body).data.accessToken;
    const authHeaders = { authorization: `Bearer ${token}`, 'x-svc-tenant-id': TENANT };

    // 50 proposals of one finished job, their targets the tenant's own contents, crawl jobs and agents.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    let targets;
    try {
      const contents = (await db.query('select c.id from cms.content c join cms.site s on s.id = c.site_id where s.site_key = $1 order by c.slug', [SITE_KEY])).rows.map((r) => String(r.id));
      const crawlJobs = (await db.query("select id from crawl.crawl_job where tenant_id = $1 and status <> 'DELETED' order by job_name", [TENANT])).rows.map((r) => String(r.id));
      const agents = (await db.query('select code from llm.agent where tenant_id = $1 and tenant_managed order by code', [TENANT])).rows.map((r) => String(r.code));
      if (!contents.length || !crawlJobs.length || !agents.length) throw new Error(`the demo seed left too little to point actions at: ${contents.length} contents, ${crawlJobs.length} crawl jobs, ${agents.length} agents of tenant ${TENANT}`);
      targets = { contents, crawlJobs, agents };
      const jobId = randomUUID();
      await db.query('begin');
      await db.query(
        `insert into insight.job (id, tenant_id, owner, requester_id, prompt, authority, status, started_at, finished_at)
         values ($1, $2, 'graph-bench', 'graph-bench', 'Graph benchmark: 50 proposals', $3::jsonb, 'COMPLETED', now(), now())`,
        [jobId, TENANT, JSON.stringify({ subject: 'graph-bench', roles: ['analyst'], tenants: [TENANT], sites: [SITE_KEY] })],
      );
      for (let i = 0; i < ACTIONS; i++) {
        const shape = [
          { targetType: 'Content', kind: 'CONTENT_PUBLISH', targetId: contents[Math.floor(i / 3) % contents.length], params: { version: 1 } },
          { targetType: 'CrawlJob', kind: 'CRAWL_TRIGGER', targetId: crawlJobs[Math.floor(i / 3) % crawlJobs.length], params: {} },
          { targetType: 'Agent', kind: 'BUDGET_CHANGE', targetId: agents[Math.floor(i / 3) % agents.length], params: { monthlyBudgetUsd: 60 + i } },
        ][i % 3];
        await db.query(
          `insert into insight.action (id, tenant_id, job_id, kind, title, rationale, target_type, target_id, params, params_hash, expires_at, proposed_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, now() + interval '72 hours', now() - make_interval(secs => $11::int))`,
          [randomUUID(), TENANT, jobId, shape.kind, `Proposal ${i + 1}`, `Benchmark proposal ${i + 1} of ${ACTIONS}`, shape.targetType, shape.targetId, JSON.stringify(shape.params), paramsHash(shape.kind, shape.targetId, shape.params), i],
        );
      }
      await db.query('commit');
    } finally {
      await db.end();
    }
    log(`${ACTIONS} proposals written, targets: ${targets.contents.length} contents, ${targets.crawlJobs.length} crawl jobs, ${targets.agents.length} agents (${targets.agents.join(', ')})`);

    // Hive Gateway: our supergraph with the URLs of the subgraphs started here.
    const supergraph = supergraphFile.replace(/@join__graph\(name: "(\w+)", url: "[^"]*"\)/g, (_m, graph) => `@join__graph(name: "${graph}", url: "${url(graph)}/graphql")`);
    const hive = await forkChild('hive', { supergraph, forwarded: [...kit.FORWARDED_HEADERS], dedupe: true });
    processes.set('hive', hive.entry);
    const hiveNoDedupe = await forkChild('hive', { supergraph, forwarded: [...kit.FORWARDED_HEADERS], dedupe: false });
    processes.set('hive-nodedupe', hiveNoDedupe.entry);
    log(`Hive Gateway ready at ${hive.url}/graphql, without in-flight deduplication at ${hiveNoDedupe.url}/graphql`);

    // ------------------------------------------------------------ contenders
    const gql = (base, query, operationName, variables, headers) => ({
      url: `${base}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query, operationName, variables }),
    });
    const deliveryRequest = { url: `${url('bridge')}/api/v1/contents/${SLUG}`, method: 'GET', headers: { 'x-svc-site-key': SITE_KEY, accept: 'application/json' } };
    // A second language for workload 1's negotiated row: the demo site in en, de and de-AT, and the
    // delivered content in German with its banner and call to action left to English (fallback).
    const graphOk = async (query, variables) => {
      const res = await call(gql(url('router'), query, undefined, variables, { authorization: `Bearer ${token}` }));
      const parsed = JSON.parse(res.body);
      if (parsed.errors?.length) throw new Error(`locale set-up failed: ${JSON.stringify(parsed.errors).slice(0, 300)}`);
      return parsed.data;
    };
    await graphOk('mutation($input: SiteLocalesInput!) { setSiteLocales(siteKey: "demo", input: $input) { defaultLocale } }', {
      input: { defaultLocale: 'en', locales: [{ tag: 'en' }, { tag: 'de', fallback: 'en' }, { tag: 'de-AT', fallback: 'de' }] },
    });
    const original = (await graphOk('query { contents(siteKey: "demo") { id slug } }', {})).contents.find((c) => c.slug === SLUG);
    const german = (await graphOk('mutation($input: CreateContentInput!) { createContent(input: $input) { id } }', {
      input: { siteKey: SITE_KEY, slug: 'willkommen', locale: 'de', translationOf: original.id, title: 'Willkommen bei Svc Platform', fields: { headline: 'Alles an einem Ort', description: 'Inhalte, Formulare und Analysen für Ihre Website.' } },
    })).createContent;
    await graphOk('mutation($id: ID!) { publishContent(id: $id) { publishedVersion } }', { id: german.id });
    const ACCEPT_LANGUAGE = 'de-AT, de;q=0.9, en;q=0.8';
    const negotiatedRequest = { ...deliveryRequest, headers: { ...deliveryRequest.headers, 'accept-language': ACCEPT_LANGUAGE } };
    const deliverOp = [operations.get('DeliverContent'), 'DeliverContent', { slug: SLUG, siteKey: SITE_KEY }, { 'x-svc-site-key': SITE_KEY }];
    const listActionsOp = [operations.get('ListActions'), 'ListActions', { first: ACTIONS }, authHeaders];
    const federatedOp = [FEDERATED_QUERY, 'GraphBenchActions', { first: ACTIONS }, authHeaders];
    const rootOp = [ROOT_QUERY, 'GraphBenchActions', { first: ACTIONS }, authHeaders];
    const graphqlOk = (body) => {
      const parsed = JSON.parse(body);
      if (parsed.errors?.length) return `GraphQL errors: ${JSON.stringify(parsed.errors).slice(0, 300)}`;
      return undefined;
    };
    const rawHeaderPairs = (raw) => {
      const pairs = [];
      for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i].toLowerCase(), raw[i + 1]]);
      return pairs;
    };
    /** The bridge's delivery answer, and a bare server answering it (status, headers in order, body). */
    const bareLike = async (role) => {
      const res = await call(deliveryRequest);
      if (res.status !== 200) throw new Error(`the bridge's delivery answered ${res.status}: ${res.body}`);
      const pairs = rawHeaderPairs(res.rawHeaders);
      const keepAlive = /timeout=(\d+)/.exec(pairs.find(([n]) => n === 'keep-alive')?.[1] ?? '')?.[1];
      const headers = pairs.filter(([n]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(n));
      const bare = await forkChild('bare', { status: res.status, headers, body: Buffer.from(res.body).toString('base64'), keepAliveTimeoutMs: keepAlive ? Number(keepAlive) * 1000 : 5000 });
      processes.set(role, bare.entry);
      return bare.url;
    };
    /** Compares the bridge's and the bare server's answers: status, header names in order, values (but date and x-request-id), body bytes. */
    const sameAsBridge = (bridgeRes, bareRes) => {
      const strip = (raw) => rawHeaderPairs(raw).map(([n, v]) => `${n}: ${n === 'date' || n === 'x-request-id' ? '*' : v}`).join('\n');
      if (bridgeRes.status !== bareRes.status) return { ok: false, how: `status ${bareRes.status} vs ${bridgeRes.status}` };
      if (strip(bridgeRes.rawHeaders) !== strip(bareRes.rawHeaders)) return { ok: false, how: `headers differ:\n${strip(bridgeRes.rawHeaders)}\nvs\n${strip(bareRes.rawHeaders)}` };
      const body = compareBodies(bridgeRes.body, bareRes.body);
      return body.ok ? { ok: true, how: 'status, headers (in order; date and x-request-id values aside) and body byte for byte' } : body;
    };

    const pidOf = (role) => processes.get(role).child.pid;
    const contender = (label, role, request, procs) => ({ label, role, request, procs, runs: Object.fromEntries(CONCURRENCY.map((c) => [c, []])), check: undefined, answer: undefined });

    /** Fetches every contender's answer once; the first is the reference, `transform` maps a body to what is compared. */
    const check = async (workload) => {
      const [first, ...rest] = workload.contenders;
      for (const c of workload.contenders) {
        const res = await call(c.request);
        c.answer = res;
        if (res.status !== 200) c.check = { ok: false, how: `HTTP ${res.status}: ${res.body.slice(0, 300)}` };
        else if (c.graphql && graphqlOk(res.body)) c.check = { ok: false, how: graphqlOk(res.body) };
      }
      if (!first.check) first.check = { ok: true, how: 'reference' };
      for (const c of rest) {
        if (c.check) continue;
        if (!first.check.ok) {
          c.check = { ok: false, how: `no reference: ${first.label} failed` };
          continue;
        }
        c.check = c.compare ? c.compare(first.answer, c.answer) : compareBodies(workload.view(first), workload.view(c));
      }
      for (const c of workload.contenders) log(`${workload.key} ${c.label}: ${c.check.ok ? 'answers the same' : 'FAILED'} (${c.check.how})`);
    };

    const measure = async (c, connections, seconds) => {
      const pids = c.procs.map(pidOf);
      const latencies = [];
      const before = pids.map(cpuTicks);
      const instance = autocannon({ url: c.request.url, method: c.request.method, headers: c.request.headers, body: c.request.body, connections, duration: seconds, timeout: 10, expectBody: c.answer.body });
      instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
      const result = await instance;
      const after = pids.map(cpuTicks);
      return {
        requests: result.requests.total,
        duration: result.duration,
        failed: result.errors + result.non2xx + result.mismatches,
        latencies,
        ticks: Object.fromEntries(c.procs.map((p, i) => [p, after[i] - before[i]])),
      };
    };

    const runWorkload = async (workload) => {
      await check(workload);
      const live = workload.contenders.filter((c) => c.check.ok);
      for (const c of live) await measure(c, 16, WARMUP_SECONDS);
      for (const connections of CONCURRENCY) {
        for (let round = 0; round < ROUNDS; round++) {
          for (const c of round % 2 === 0 ? live : [...live].reverse()) {
            const m = await measure(c, connections, SECONDS);
            c.runs[connections].push(m);
            log(`${workload.key} ${c.label} c=${connections} round ${round + 1}: ${fmtInt(m.requests / m.duration)} req/s${m.failed ? `, ${m.failed} failed` : ''}`);
          }
        }
      }
    };

    // ------------------------------------------------------------ workloads
    const asGraphql = (c) => Object.assign(c, { graphql: true });
    /** Workload 1 as it stands now (cached or not): the bridge, and a bare server (`bare`) answering its bytes. */
    const deliveryWorkload = async (key, bare) => {
      const workload = { key, contenders: [contender('bridge', 'bridge', deliveryRequest, ['bridge', 'router', 'cms'])], view: (c) => c.answer.body };
      const bareUrl = await bareLike(bare);
      workload.contenders.push(Object.assign(contender('bare node:http', bare, { ...deliveryRequest, url: `${bareUrl}/api/v1/contents/${SLUG}` }, [bare]), { compare: sameAsBridge }));
      // The same path negotiated to another locale: a German answer (de-AT falls back to de, and two fields to en).
      workload.contenders.push(Object.assign(contender(`bridge, negotiated locale (Accept-Language: ${ACCEPT_LANGUAGE})`, 'bridge', negotiatedRequest, ['bridge', 'router', 'cms']), {
        compare: (_reference, mine) => {
          const data = JSON.parse(mine.body).data;
          const ok = data?.locale === 'de' && data.requestedLocale === 'de-AT' && data.fellBack === true && data.contentId === german.id && rawHeaderPairs(mine.rawHeaders).some(([n, v]) => n === 'content-language' && v === 'de');
          return { ok, how: ok ? 'the German answer: locale de for de-AT, fields falling back to en, Content-Language de' : `not the German answer: ${mine.body.slice(0, 300)}` };
        },
      }));
      return workload;
    };
    const w1cached = await deliveryWorkload('W1 cached', 'bare-cached');

    const w2 = {
      key: 'W2',
      contenders: [
        asGraphql(contender('our router', 'router', gql(url('router'), ...deliverOp), ['router', 'cms'])),
        asGraphql(contender('Hive Gateway', 'hive', gql(hive.url, ...deliverOp), ['hive', 'cms'])),
        asGraphql(contender('Hive Gateway, dedupe off', 'hive-nodedupe', gql(hiveNoDedupe.url, ...deliverOp), ['hive-nodedupe', 'cms'])),
        asGraphql(contender('cms subgraph directly', 'cms', gql(url('cms'), ...deliverOp), ['cms'])),
      ],
      view: (c) => c.answer.body,
    };
    const stripTargets = (body) => {
      const parsed = JSON.parse(body);
      for (const a of parsed.data?.actionProposals ?? []) delete a.target;
      return JSON.stringify(parsed);
    };
    const subgraphs = ['insight', 'cms', 'crawl', 'llm'];
    const w3 = {
      key: 'W3',
      contenders: [
        asGraphql(contender('our router', 'router', gql(url('router'), ...federatedOp), ['router', ...subgraphs])),
        asGraphql(contender('Hive Gateway', 'hive', gql(hive.url, ...federatedOp), ['hive', ...subgraphs])),
        asGraphql(contender('Hive Gateway, dedupe off', 'hive-nodedupe', gql(hiveNoDedupe.url, ...federatedOp), ['hive-nodedupe', ...subgraphs])),
        asGraphql(contender('our router, svc graph (subgraphs in its process)', 'graph', gql(url('graph'), ...federatedOp), ['graph'])),
        Object.assign(asGraphql(contender('insight root query alone (no target)', 'insight', gql(url('insight'), ...rootOp), ['insight'])), {
          // Compared with the router's answer without the target fields.
          compare: (reference, mine) => {
            const result = compareBodies(stripTargets(reference.body), mine.body);
            return { ...result, how: `the router's answer without target: ${result.how}` };
          },
        }),
      ],
      view: (c) => c.answer.body,
    };
    const listActions = (base) => ({ url: `${base}/api/v1/insight/actions?first=${ACTIONS}`, method: 'GET', headers: { accept: 'application/json', ...authHeaders } });
    const asListActionsData = (c) => Object.assign(c, {
      compare: (reference, mine) => {
        const result = compareBodies(JSON.stringify(JSON.parse(reference.body).data), JSON.stringify(JSON.parse(mine.body).data.actionProposals));
        return { ...result, how: `the bridge's data vs the router's data.actionProposals: ${result.how}` };
      },
    });
    const w4 = {
      key: 'W4',
      contenders: [
        contender('bridge', 'bridge', listActions(url('bridge')), ['bridge', 'router', 'insight']),
        asListActionsData(asGraphql(contender('our router (ListActions)', 'router', gql(url('router'), ...listActionsOp), ['router', 'insight']))),
        contender('bridge, svc edge (the router of its process, no socket; insight in its own)', 'edge-bridge', listActions(url('edgeBridge')), ['edge', 'insight']),
        asListActionsData(asGraphql(contender('our router, svc edge (ListActions)', 'edge-router', gql(url('edge'), ...listActionsOp), ['edge', 'insight']))),
        contender('bridge, svc graph (the router of its process, no socket)', 'graph-bridge', listActions(url('graphBridge')), ['graph']),
        asListActionsData(asGraphql(contender('our router, svc graph (ListActions)', 'graph-router', gql(url('graph'), ...listActionsOp), ['graph']))),
      ],
      view: (c) => c.answer.body,
    };

    const summary = (c, connections) => {
      const runs = c.runs[connections];
      if (!runs.length) return undefined;
      const all = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
      let k = 0;
      for (const r of runs) for (const v of r.latencies) all[k++] = v;
      all.sort();
      const requests = runs.reduce((n, r) => n + r.requests, 0);
      const cpu = c.procs.map((p) => [p, (runs.reduce((n, r) => n + r.ticks[p], 0) * (1000 / TICKS_PER_SECOND)) / Math.max(1, requests)]);
      return {
        rps: runs.reduce((n, r) => n + r.requests / r.duration, 0) / runs.length,
        rounds: runs.map((r) => r.requests / r.duration),
        p50: percentile(all, 0.5),
        p99: percentile(all, 0.99),
        cpu,
        cpuTotal: cpu.reduce((n, [, v]) => n + v, 0),
        failed: runs.reduce((n, r) => n + r.failed, 0),
        requests,
      };
    };
    const row = (variant, c) => CONCURRENCY.map((connections) => {
      if (!c.check.ok) return `| ${variant}${c.label} | ${connections} | FAILED: answers differently (${c.check.how.replace(/\n/g, ' ').replace(/\|/g, '\\|').slice(0, 300)}) | | | | |`;
      const s = summary(c, connections);
      const rounds = s.rounds.length > 1 ? ` (${s.rounds.map(fmtInt).join(', ')})` : '';
      return `| ${variant}${c.label} | ${connections} | ${fmtInt(s.rps)}${rounds} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${s.cpu.map(([p, v]) => `${p} ${fmt(v, 3)}`).join(' + ')}${s.cpu.length > 1 ? ` = ${fmt(s.cpuTotal, 3)}` : ''} | ${s.failed} of ${s.requests.toLocaleString('en-US')} |`;
    });
    // Which REST routes are federated: planned over the supergraph with @apollo/query-planner.
    const federated = await federatedRoutes(operations);
    log(`REST routes whose query plan spans more than one subgraph: ${federated.spanning.length ? federated.spanning.join('; ') : `none of ${federated.checked}`}`);

    /** Each process's resident memory now (an svc process loads only the code of the services it runs). */
    const memory = () => [...processes].map(([role, { child }]) => `${role} ${residentMb(child.pid)}`).join(', ');
    if (ONLY) {
      for (const w of [w1cached, w2, w3, w4]) {
        if (!ONLY.has(w.key)) continue;
        const roles = ONLY.get(w.key);
        if (roles) w.contenders = w.contenders.filter((c) => roles.includes(c.role));
        await runWorkload(w);
        for (const c of w.contenders) for (const line of row(`${w.key} `, c)) process.stdout.write(`${line}\n`);
      }
      log(`resident memory, MB: ${memory()}`);
      return;
    }
    for (const w of [w1cached, w2, w3, w4]) await runWorkload(w);
    const memoryAfterRun = memory();
    const actionsReturned = JSON.parse(w3.contenders[0].answer.body).data?.actionProposals?.length ?? 0;

    // Workload 1 without the delivery cache: cms again, with SVC_CMS_CACHE_TTL_SECONDS=0, and the cached entry purged.
    await stop(processes.get('cms').child);
    processes.delete('cms');
    await startService('cms', { SVC_CMS_CACHE_TTL_SECONDS: '0' });
    const purge = await call({ url: `${url('bridge')}/api/v1/deploy/purge-cache`, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ siteKey: SITE_KEY, contentSlug: SLUG }) });
    if (purge.status !== 200) throw new Error(`purging the delivery cache failed: ${purge.status} ${purge.body}`);
    for (let i = 0; i < 5; i++) await call(deliveryRequest).catch(() => undefined); // the router's connections to the old cms
    const w1uncached = await deliveryWorkload('W1 uncached', 'bare-uncached');
    await runWorkload(w1uncached);

    // ------------------------------------------------------------ report
    const header = ['| contender | concurrency | req/s (rounds) | p50 ms | p99 ms | CPU ms per request, by process | failed requests |', '|---|---:|---:|---:|---:|---|---:|'];
    const checks = (w) => w.contenders.slice(1).map((c) => `${c.label}: ${c.check.ok ? c.check.how : `FAILED, ${c.check.how.replace(/\n/g, ' ')}`}`).join('; ');
    const find = (w, role) => w.contenders.find((c) => c.role === role);
    const ratio = (a, b, key, connections) => {
      if (!a?.check.ok || !b?.check.ok) return '-';
      const x = summary(a, connections)[key];
      const y = summary(b, connections)[key];
      return `${(x / y).toFixed(2)}×`;
    };
    const diff = (a, b, key, connections) => {
      if (!a?.check.ok || !b?.check.ok) return '-';
      return `${(summary(a, connections)[key] - summary(b, connections)[key]).toFixed(2)} ms`;
    };
    const perC = (f) => CONCURRENCY.map((c) => `c=${c}: ${f(c)}`).join(', ');

    /** A workload's rows, and how each contender's answer compared with our router's. */
    const comparedTable = (w) => [...header, ...w.contenders.flatMap((c) => row('', c)), '', `Compared with our router's answer: ${checks(w)}.`, ''];
    const md = [
      BEGIN,
      `Made by \`npm run bench:graph\` (\`node bench/graph.js\`${SMOKE ? ', SVC_BENCH_SMOKE=1' : ''}), ${started.toISOString()}; ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${loadAtStart.toFixed(1)} at start; Node ${process.versions.node}; @apollo/gateway ${versionOf('@apollo/gateway')}, @graphql-hive/gateway-runtime ${versionOf('@graphql-hive/gateway-runtime')}, autocannon ${versionOf('autocannon')}.`,
      '',
      `Every service in its own process (\`svc insight\`, \`llm\`, \`crawl\`, \`cms\`, \`router\`, \`bridge\`) on one fresh PostgreSQL database and Redis, demo seed on, job workers off, \`NODE_ENV=production\` as the image runs them (Hive Gateway too) and the image's Node flags (${NODE_FLAGS.length ? NODE_FLAGS.map((f) => `\`${f}\``).join(' ') : 'none'}; Hive Gateway with Node's defaults); once more the graph in one process (\`svc graph\`: the router, the four subgraphs and the bridge, what docker/compose.yaml runs per replica; \`svc all\`, what \`npm start\` runs, is the same plus the dashboard) on the same database and Redis, whose router calls the subgraphs of its process without a socket (a contender of workloads 3 and 4); the router and the bridge in one process in front of the same subgraph processes (\`svc edge\`, the front of a deployment whose subgraphs run apart; a contender of workload 4); Hive Gateway (its runtime over node:http, the same supergraph, forwarding ${kit.FORWARDED_HEADERS.join(', ')} to the subgraphs as our router does) and the bare node:http server each in a process of their own. Hive Gateway runs twice: with its defaults, which send identical subgraph requests in flight at once only once and share the answer (here every request carries the same token, so under concurrency most subgraph calls are shared: see the subgraphs' CPU per request), and with that off (\`deduplicateInflightRequests: false\` for every HTTP subgraph), doing the work our router does, which has no such deduplication. autocannon in the benchmark's process, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''} of ${SECONDS} s per contender and concurrency${ROUNDS > 1 ? ' (the second in reverse order)' : ''}, after a ${WARMUP_SECONDS} s warm-up at concurrency 16. req/s: mean of the rounds (each round in brackets); p50/p99: over every request of the rounds (measured per response in the load generator); CPU: utime + stime per request of each process named (PostgreSQL, Redis and the load generator not counted). Each contender's answer was fetched once before timing and compared with the first contender's; under load every answer is compared with it (a different body counts as failed).`,
      '',
      `### 1. Content delivery: \`GET /api/v1/contents/${SLUG}\` (X-Svc-Site-Key: ${SITE_KEY})`,
      '',
      'Cached: the bridge keeps the delivery in memory for its s-maxage (its response cache, dropped on every purge announced over Redis), and the cms delivery cache (Redis) holds it too. Uncached: the delivery has no per-request bypass (no header or query parameter), so cms was restarted with `SVC_CMS_CACHE_TTL_SECONDS=0` and the entry purged: every request goes through the router to cms and reads PostgreSQL (the answer then says maxAgeSeconds 0 and `s-maxage=0`, which the bare server repeats, and which the bridge does not keep). The bare node:http server answers every request with the bridge\'s status, headers (in order, a fresh x-request-id each) and body.',
      '',
      ...header,
      ...w1cached.contenders.flatMap((c) => row('cached: ', c)),
      ...w1uncached.contenders.flatMap((c) => row('uncached: ', c)),
      '',
      `Compared: cached ${checks(w1cached)}; uncached ${checks(w1uncached)}.`,
      '',
      '### 2. One subgraph: the bridge\'s `DeliverContent` operation (`schema/operations/cms.graphql`)',
      '',
      ...comparedTable(w2),
      `### 3. Federated: ${ACTIONS} action proposals with their targets (Content from cms, CrawlJob from crawl, Agent with its budget from llm)`,
      '',
      `The router's answer held ${actionsReturned} actions; their targets: ${targets.contents.length} contents, ${targets.crawlJobs.length} crawl jobs and ${targets.agents.length} agent(s) of tenant ${TENANT}, in turn.`,
      '',
      '```graphql',
      FEDERATED_QUERY,
      '```',
      '',
      ...comparedTable(w3),
      `### 4. REST through the bridge vs its operation through the router: \`GET /api/v1/insight/actions?first=${ACTIONS}\` (ListActions)`,
      '',
      `No REST route's operation is planned over more than one subgraph (${federated.spanning.length ? `except ${federated.spanning.join('; ')}` : `all ${federated.checked} routes checked with @apollo/query-planner`}), so this is the bridge's route for listing actions against the same operation sent to the router: each in its own process, both in \`svc edge\` (insight in its own), and both in \`svc graph\`; in the last two the bridge runs the operation on the router of its process without a socket.`,
      '',
      ...header,
      ...w4.contenders.flatMap((c) => row('', c)),
      '',
      `Compared: ${checks(w4)}.`,
      '',
      '### Ratios',
      '',
      `- Our router ÷ Hive Gateway, throughput: one subgraph ${perC((c) => ratio(find(w2, 'router'), find(w2, 'hive'), 'rps', c))} (dedupe off: ${perC((c) => ratio(find(w2, 'router'), find(w2, 'hive-nodedupe'), 'rps', c))}); federated ${perC((c) => ratio(find(w3, 'router'), find(w3, 'hive'), 'rps', c))} (dedupe off: ${perC((c) => ratio(find(w3, 'router'), find(w3, 'hive-nodedupe'), 'rps', c))}).`,
      `- p50 of the federated query ÷ insight's root query alone: our router ${perC((c) => ratio(find(w3, 'router'), find(w3, 'insight'), 'p50', c))}; our router in \`svc graph\` ${perC((c) => ratio(find(w3, 'graph'), find(w3, 'insight'), 'p50', c))}; Hive Gateway ${perC((c) => ratio(find(w3, 'hive'), find(w3, 'insight'), 'p50', c))} (dedupe off: ${perC((c) => ratio(find(w3, 'hive-nodedupe'), find(w3, 'insight'), 'p50', c))}).`,
      `- Bridge p50 over the router with the same operation: ListActions ${perC((c) => `${diff(find(w4, 'bridge'), find(w4, 'router'), 'p50', c)} (${ratio(find(w4, 'bridge'), find(w4, 'router'), 'p50', c)})`)}; ListActions in \`svc edge\` ${perC((c) => `${diff(find(w4, 'edge-bridge'), find(w4, 'edge-router'), 'p50', c)} (${ratio(find(w4, 'edge-bridge'), find(w4, 'edge-router'), 'p50', c)})`)}; ListActions in \`svc graph\` ${perC((c) => `${diff(find(w4, 'graph-bridge'), find(w4, 'graph-router'), 'p50', c)} (${ratio(find(w4, 'graph-bridge'), find(w4, 'graph-router'), 'p50', c)})`)}; cached delivery (workload 1) over DeliverContent through the router (workload 2) ${perC((c) => `${diff(find(w1cached, 'bridge'), find(w2, 'router'), 'p50', c)} (${ratio(find(w1cached, 'bridge'), find(w2, 'router'), 'p50', c)})`)}.`,
      `- Cached delivery with locale negotiation ÷ without (bridge), throughput: ${perC((c) => ratio(w1cached.contenders.find((x) => x.label.startsWith('bridge, negotiated')), find(w1cached, 'bridge'), 'rps', c))}; uncached: ${perC((c) => ratio(w1uncached.contenders.find((x) => x.label.startsWith('bridge, negotiated')), find(w1uncached, 'bridge'), 'rps', c))}.`,
      `- Resident memory of each process after workloads 1 to 4 (VmRSS, MB): ${memoryAfterRun}.`,
      `- Bridge ÷ bare node:http, throughput: cached delivery ${perC((c) => ratio(find(w1cached, 'bridge'), find(w1cached, 'bare-cached'), 'rps', c))}; uncached ${perC((c) => ratio(find(w1uncached, 'bridge'), find(w1uncached, 'bare-uncached'), 'rps', c))}.`,
      END,
    ].join('\n');
    process.stdout.write(`\n## Graph performance\n\n${md}\n`);
    if (!NO_WRITE) {
      await writeResultsSection('Graph performance', md);
      log('wrote the graph section of bench/RESULTS.md');
    }
    const failed = [w1cached, w1uncached, w2, w3, w4].flatMap((w) => w.contenders.filter((c) => !c.check.ok).map((c) => `${w.key} ${c.label}`));
    if (failed.length) {
      log(`FAILED: answered differently: ${failed.join(', ')}`);
      process.exitCode = 1;
    }
  } catch (error) {
    for (const [role, { child, output }] of processes) if (child.exitCode !== null && output) log(`${role} (exited ${child.exitCode}) last output: ${output}`);
    throw error;
  } finally {
    await cleanup();
  }
}

/** REST routes whose operation the supergraph's query planner sends to more than one subgraph. */
async function federatedRoutes(operations) {
  const require = createRequire(join(ROOT, 'router/package.json'));
  const { Supergraph, operationFromDocument } = require('@apollo/federation-internals');
  const { QueryPlanner } = require('@apollo/query-planner');
  const { parse } = require('graphql');
  const { ROUTES } = await import('../rest-bridge/dist/src/index.js');
  const supergraph = Supergraph.build(readFileSync(join(ROOT, 'schema/supergraph.graphql'), 'utf8'));
  const planner = new QueryPlanner(supergraph);
  const services = (node, out) => {
    if (!node) return out;
    if (node.kind === 'Fetch') out.add(node.serviceName);
    for (const child of [...(node.nodes ?? []), node.node, node.main, node.primary, node.rest, node.ifClause, node.elseClause, ...(node.deferred ?? []).map((d) => d.node)]) services(child, out);
    return out;
  };
  const spanning = [];
  for (const route of ROUTES) {
    const text = operations.get(route.operation);
    if (!text) continue;
    const plan = planner.buildQueryPlan(operationFromDocument(supergraph.schema, parse(text), { operationName: route.operation }));
    const used = services(plan.node, new Set());
    if (used.size > 1) spanning.push(`${route.method} ${route.path} (${route.operation}: ${[...used].join(', ')})`);
  }
  return { spanning, checked: ROUTES.length };
}

function versionOf(pkg) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

if (process.argv[2] === '--child=bare') runBareChild();
else if (process.argv[2] === '--child=hive') runHiveChild();
else {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error) => {
      log(error.stack ?? String(error));
      process.exit(1);
    },
  );
}
