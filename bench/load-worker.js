// Load generator for bench/gateway-overhead.js. Runs in its own process (fork) so the client's
// CPU time never shares an event loop with a gateway under test. Keep-alive node:http client
// with exactly `concurrency` sockets; `concurrency` requests are always in flight.
//
// Message in:  { type: 'run', id, scenario }   scenario: see runScenario
// Message out: { type: 'measuring', id } when the warm-up is over, then
//              { type: 'result', id, result } | { type: 'error', id, message }
// (fork with serialization: 'advanced', so the latency array crosses as a typed array)
import { Agent, request as httpRequest } from 'node:http';

/** One POST; resolves with status, selected header, elapsed ms and body text (on failure or when asked). */
function post(agent, target, body, wantBody) {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstByteMs;
    const req = httpRequest(
      { agent, host: target.host, port: target.port, path: target.path, method: 'POST', headers: target.headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => {
          firstByteMs ??= performance.now() - started;
          chunks.push(c);
        });
        res.on('end', () => {
          const ms = performance.now() - started;
          const ok = res.statusCode === 200;
          resolve({
            ms,
            firstByteMs: firstByteMs ?? ms,
            status: res.statusCode,
            check: target.checkHeader ? res.headers[target.checkHeader] : undefined,
            body: !ok || wantBody ? Buffer.concat(chunks).toString('utf8') : undefined,
          });
        });
        res.on('error', (error) => resolve({ ms: performance.now() - started, status: 0, body: String(error) }));
      },
    );
    req.on('error', (error) => resolve({ ms: performance.now() - started, status: 0, body: String(error) }));
    req.end(body);
  });
}

/**
 * scenario: { url, headers, body (JSON text), concurrency, requests?, durationMs?, warmupRequests?,
 * warmupMs?, checkHeader?, expectHeader? }. Runs a warm-up (not recorded), then the measured
 * phase, which stops when `requests` completed or `durationMs` passed, whichever comes first.
 */
async function runScenario(s, onMeasuring = () => {}) {
  const url = new URL(s.url);
  const body = Buffer.from(s.body);
  const target = {
    host: url.hostname,
    port: Number(url.port),
    path: url.pathname + url.search,
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...s.headers },
    checkHeader: s.checkHeader,
  };
  const agent = new Agent({ keepAlive: true, maxSockets: s.concurrency, maxFreeSockets: s.concurrency, keepAliveMsecs: 30_000 });
  const sample = await post(agent, target, body, true);
  if (sample.status !== 200) throw new Error(`${s.url} answered ${sample.status}: ${sample.body?.slice(0, 500)}`);
  if (s.expectHeader !== undefined && sample.check !== s.expectHeader && !s.allowFirstMismatch) {
    throw new Error(`${s.url}: ${s.checkHeader} is ${sample.check}, expected ${s.expectHeader}`);
  }

  async function phase(maxRequests, maxMs, record) {
    const capacity = Math.min(maxRequests, 4_000_000);
    const latencies = record ? new Float64Array(capacity) : undefined;
    const firstBytes = record ? new Float64Array(capacity) : undefined;
    let started = 0;
    let done = 0;
    let errors = 0;
    let mismatches = 0;
    let firstError;
    const t0 = performance.now();
    const deadline = t0 + maxMs;
    async function worker() {
      while (started < maxRequests && performance.now() < deadline) {
        started++;
        const r = await post(agent, target, body, false);
        if (r.status !== 200) {
          errors++;
          firstError ??= `${r.status} ${r.body?.slice(0, 300)}`;
        } else if (s.expectHeader !== undefined && r.check !== s.expectHeader) mismatches++;
        if (latencies && done < capacity) {
          latencies[done] = r.ms;
          firstBytes[done] = r.firstByteMs;
        }
        done++;
      }
    }
    await Promise.all(Array.from({ length: s.concurrency }, worker));
    const elapsedMs = performance.now() - t0;
    return { latencies: latencies?.subarray(0, Math.min(done, capacity)), firstBytes: firstBytes?.subarray(0, Math.min(done, capacity)), done, errors, mismatches, firstError, elapsedMs };
  }

  if (s.warmupRequests || s.warmupMs) await phase(s.warmupRequests ?? Infinity, s.warmupMs ?? Infinity, false);
  onMeasuring();
  const m = await phase(s.requests ?? Infinity, s.durationMs ?? Infinity, true);
  agent.destroy();
  return {
    requests: m.done,
    errors: m.errors,
    headerMismatches: m.mismatches,
    firstError: m.firstError,
    elapsedMs: m.elapsedMs,
    // Raw per-request latencies (ms); the orchestrator merges rounds and takes percentiles.
    latencies: Float64Array.from(m.latencies),
    // Time to the first byte of each answer (for streams: the first event).
    firstBytes: Float64Array.from(m.firstBytes),
  };
}

function targetOf(t) {
  const url = new URL(t.url);
  const body = Buffer.from(t.body);
  return {
    host: url.hostname,
    port: Number(url.port),
    path: url.pathname + url.search,
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...t.headers },
    checkHeader: t.checkHeader,
    expectHeader: t.expectHeader,
    body,
    agent: new Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1, keepAliveMsecs: 30_000 }),
  };
}

/**
 * Concurrency 1, several targets interleaved request by request (A B C … then B C … A, the start
 * rotating each round), so drift and other load on the machine hit every target alike.
 * scenario: { targets: [{ name, url, headers, body, checkHeader?, expectHeader? }], requests,
 * warmupRounds, maxMs }. Result per target: latencies, errors, header mismatches.
 */
async function runInterleaved(s, onMeasuring) {
  const targets = s.targets.map((t) => ({ ...targetOf(t), name: t.name, latencies: [], errors: 0, mismatches: 0, firstError: undefined }));
  const once = async (t, record) => {
    const r = await post(t.agent, t, t.body, false);
    if (!record) {
      if (r.status !== 200) throw new Error(`${t.name}: ${r.status} ${r.body?.slice(0, 300)}`);
      return;
    }
    if (r.status !== 200) {
      t.errors++;
      t.firstError ??= `${r.status} ${r.body?.slice(0, 300)}`;
    } else if (t.expectHeader !== undefined && r.check !== t.expectHeader) t.mismatches++;
    t.latencies.push(r.ms);
  };
  for (let round = 0; round < s.warmupRounds; round++) for (const t of targets) await once(t, false);
  onMeasuring();
  const deadline = performance.now() + (s.maxMs ?? Infinity);
  for (let round = 0; round < s.requests && performance.now() < deadline; round++) {
    for (let i = 0; i < targets.length; i++) await once(targets[(round + i) % targets.length], true);
  }
  for (const t of targets) t.agent.destroy();
  return Object.fromEntries(targets.map((t) => [t.name, {
    requests: t.latencies.length,
    errors: t.errors,
    headerMismatches: t.mismatches,
    firstError: t.firstError,
    // Time spent waiting for this target: at concurrency 1, requests / this = its throughput.
    elapsedMs: t.latencies.reduce((a, b) => a + b, 0),
    latencies: Float64Array.from(t.latencies),
  }]));
}

process.on('message', async (message) => {
  if (message?.type !== 'run') return;
  try {
    const onMeasuring = () => process.send({ type: 'measuring', id: message.id });
    const result = message.scenario.targets ? await runInterleaved(message.scenario, onMeasuring) : await runScenario(message.scenario, onMeasuring);
    process.send({ type: 'result', id: message.id, result });
  } catch (error) {
    process.send({ type: 'error', id: message.id, message: error instanceof Error ? error.message : String(error) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
