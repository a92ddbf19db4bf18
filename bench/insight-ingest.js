// Ingest through the API at the size of the public multi-dimensional root-cause datasets: 25,000
// series (a CDN's traffic by 4 labels: data centre × province × ISP × channel) of 14 daily
// points each, posted to POST /api/v1/insight/metrics in requests of 100 series (the limit),
// 4 requests in flight, through the bridge, the router and the insight subgraph.
//
//   npm run bench:insight-ingest      (SVC_BENCH_SMOKE=1: 500 series, nothing written)
//
// The whole platform runs in this process on a fresh PostgreSQL database, as `npm start` does.
import { loadavg } from 'node:os';
import { createBenchDatabase } from './bench-database.js';
import { writeResultsSection } from './results-section.js';
import { loadPlatformConfig, startPlatform } from '../cli/dist/src/index.js';
import { createLogger, issueToken } from '../subgraphs/kit/dist/src/index.js';

/** SVC_BENCH_SMOKE=1 (npm test's bench smoke run): 500 series, RESULTS.md untouched. */
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const DIMENSIONS = SMOKE ? { dc: 5, province: 5, isp: 5, channel: 4 } : { dc: 10, province: 25, isp: 20, channel: 5 };
const DAYS = 14;
const PER_REQUEST = 100;
const IN_FLIGHT = 4;
const SECRET = 'bench-secret-that-is-long-enough-for-hs256-signing';

function* leaves() {
  for (let a = 0; a < DIMENSIONS.dc; a++) for (let b = 0; b < DIMENSIONS.province; b++) for (let c = 0; c < DIMENSIONS.isp; c++) for (let d = 0; d < DIMENSIONS.channel; d++) {
    yield { dc: `dc${a}`, province: `p${b}`, isp: `isp${c}`, channel: `ch${d}` };
  }
}

async function main() {
  const database = await createBenchDatabase(`svc_bench_ingest_${process.pid}`);
  const url = database.url;
  const config = loadPlatformConfig({
    DATABASE_URL: url, SVC_JWT_SECRET: SECRET, SVCLLM_MASTER_KEY: 'sk-svc-master-bench-key-0123456789', SVC_SEED_DEMO: 'false',
    LOG_LEVEL: 'silent', SERVER_PORT: '0', SVC_ROUTER_PORT: '0', SVC_INSIGHT_PORT: '0', SVC_LLM_PORT: '0', SVC_CRAWL_PORT: '0', SVC_CMS_PORT: '0', SVC_DASHBOARD_PORT: '0',
  }, 'all');
  const platform = await startPlatform(config, 'all', createLogger({ level: 'silent', name: 'bench' }));
  try {
    const { accessToken } = await issueToken(SECRET, { subject: 'bench', roles: ['analyst'], tenants: ['cdn'], sites: [] }, 3600);
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const start = Date.UTC(2026, 9, 1);
    const all = [...leaves()].map((labels, k) => ({ name: 'cdn_traffic_bytes', labels, unit: 'bytes', points: Array.from({ length: DAYS }, (_, i) => ({ timestamp: start + i * 86_400_000, value: 1000 + ((k * 7919 + i * 104729) % 997) })) }));
    const batches = [];
    for (let i = 0; i < all.length; i += PER_REQUEST) batches.push(all.slice(i, i + PER_REQUEST));
    let next = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        const reply = await fetch(`${platform.urls.bridge}/api/v1/insight/metrics`, { method: 'POST', headers, body: JSON.stringify({ series: batch }) });
        if (reply.status !== 200) throw new Error(`ingest answered ${reply.status}: ${(await reply.text()).slice(0, 300)}`);
      }
    }));
    const seconds = (Date.now() - started) / 1000;
    const md = [
      `### Ingest through the API (${new Date().toISOString().slice(0, 10)}, \`npm run bench:insight-ingest\`, 2 shared cores, load average ${loadavg()[0].toFixed(1)})`,
      '',
      '| measure | value |',
      '|---|---:|',
      `| series (4 labels) × daily points | ${all.length.toLocaleString('en-US')} × ${DAYS} |`,
      `| requests of ${PER_REQUEST} series, ${IN_FLIGHT} in flight | ${batches.length} |`,
      `| wall time | ${seconds.toFixed(1)} s |`,
      `| series per second | ${(all.length / seconds).toFixed(0)} |`,
      '',
    ].join('\n');
    process.stdout.write(`${md}\n`);
    if (SMOKE) return;
    await writeResultsSection('Ingest through the API', md);
  } finally {
    await platform.close();
    await database.drop();
  }
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
