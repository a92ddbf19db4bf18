// Analysis orchestration overhead: how long a job spends outside model and tool calls, per
// step, and how many jobs complete per minute.
//
//   npm run bench:insight            (JOBS=40 by default; SVC_BENCH_SMOKE=1: two jobs, nothing written)
//
// The whole platform runs in this process (startPlatform(config, 'all'), as `npm start` does)
// on a fresh PostgreSQL database, with the offline model (svc-local) and the gateway's response
// cache off, so every model call goes through router → llm → the local provider. The analysis
// worker runs in-process with SVC_INSIGHT_CONCURRENCY=2 (two jobs at once). Each job's steps
// record the time of its model call (TOOL_CALL, OBSERVATION, the judgment on REPORT) and of its
// tool (TOOL_RESULT); overhead = (finished_at - started_at - Σ step durations) / steps, i.e.
// planning, step writes, cancel checks, argument checks and report composition. Queue wait
// (created → started) is reported apart.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { createBenchDatabase } from './bench-database.js';
import { writeResultsSection } from './results-section.js';
import { loadPlatformConfig, startPlatform } from '../cli/dist/src/index.js';
import { createLogger, issueToken } from '../subgraphs/kit/dist/src/index.js';

/** SVC_BENCH_SMOKE=1 (npm test's bench smoke run): two jobs, RESULTS.md untouched. */
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const JOBS = SMOKE ? 2 : Number(process.env.JOBS ?? 40);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 2);
const SECRET = 'bench-secret-that-is-long-enough-for-hs256-signing';
const PROMPTS = [
  'Why did revenue drop last week?',
  'What if we increase search ad spend by 20%?',
  'How are sessions doing, and where are they heading next month?',
  'What happens to revenue if we cut social ads by 15%?',
  'Is conversion rate improving week over week?',
];

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  return s[Math.floor(pos)] + (s[Math.ceil(pos)] - s[Math.floor(pos)]) * (pos - Math.floor(pos));
};

async function main() {
  const database = await createBenchDatabase(`svc_bench_insight_${process.pid}`);
  const url = database.url;
  const config = loadPlatformConfig({
    DATABASE_URL: url, SVC_JWT_SECRET: SECRET, SVCLLM_MASTER_KEY: 'sk-svc-master-bench-key-0123456789', SVC_SEED_DEMO: 'true',
    LOG_LEVEL: 'silent', SERVER_PORT: '0', SVC_ROUTER_PORT: '0', SVC_INSIGHT_PORT: '0', SVC_LLM_PORT: '0', SVC_CRAWL_PORT: '0', SVC_CMS_PORT: '0', SVC_DASHBOARD_PORT: '0',
    SVCLLM_CACHE_TTL_SECONDS: '0', SVC_INSIGHT_CONCURRENCY: String(CONCURRENCY),
  }, 'all');
  const platform = await startPlatform(config, 'all', createLogger({ level: 'silent', name: 'bench' }));
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { accessToken } = await issueToken(SECRET, { subject: 'bench', roles: ['analyst'], tenants: ['demo'], sites: [] }, 3600);
    const headers = { authorization: `Bearer ${accessToken}`, 'x-svc-tenant-id': 'demo', 'content-type': 'application/json' };
    // One warm-up job (WebAssembly load, query plans), not counted.
    const create = async (prompt) => (await (await fetch(`${platform.urls.bridge}/api/v1/insight/jobs`, { method: 'POST', headers, body: JSON.stringify({ prompt }) })).json()).data.jobId;
    const waitAll = async (ids) => {
      for (;;) {
        const { rows } = await db.query(`select count(*)::int as open from insight.job where id = any($1) and status in ('PENDING', 'RUNNING')`, [ids]);
        if (rows[0].open === 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitAll([await create('Warm up: how is revenue doing?')]);
    const started = performance.now();
    const ids = [];
    for (let i = 0; i < JOBS; i++) ids.push(await create(`${PROMPTS[i % PROMPTS.length]} (#${i} ${randomUUID().slice(0, 8)})`));
    await waitAll(ids);
    const wallMs = performance.now() - started;
    const { rows } = await db.query(
      `select j.status, extract(epoch from (j.finished_at - j.started_at)) * 1000 as run_ms, extract(epoch from (j.started_at - j.created_at)) * 1000 as wait_ms,
              count(s.seq)::int as steps, coalesce(sum(s.duration_ms), 0)::float8 as inside_ms
         from insight.job j join insight.job_step s on s.job_id = j.id where j.id = any($1) group by j.id`,
      [ids],
    );
    // Where the overhead sits: per step kind, the time from the previous step's write to this
    // one's, less the model or tool time the step records (its own work).
    const { rows: gaps } = await db.query(
      `with s as (
         select s.job_id, s.seq, s.kind, s.duration_ms, s.started_at,
                lag(s.started_at) over (partition by s.job_id order by s.seq) as prev_at, j.started_at as job_started
           from insight.job_step s join insight.job j on j.id = s.job_id where j.id = any($1))
       select kind, count(*)::int as n, avg(extract(epoch from (started_at - coalesce(prev_at, job_started))) * 1000 - coalesce(duration_ms, 0)) as gap_mean,
              percentile_cont(0.5) within group (order by extract(epoch from (started_at - coalesce(prev_at, job_started))) * 1000 - coalesce(duration_ms, 0)) as gap_p50
         from s group by kind order by kind`,
      [ids],
    );
    const gapByKind = Object.fromEntries(gaps.map((g) => [g.kind, { steps: g.n, overheadP50Ms: Number(Number(g.gap_p50).toFixed(2)), overheadMeanMs: Number(Number(g.gap_mean).toFixed(2)) }]));
    const failed = rows.filter((r) => r.status !== 'COMPLETED').length;
    const perStep = rows.map((r) => (Number(r.run_ms) - Number(r.inside_ms)) / r.steps);
    const inside = rows.map((r) => Number(r.inside_ms) / r.steps);
    const result = {
      jobs: JOBS,
      failed,
      stepsPerJob: quantile(rows.map((r) => r.steps), 0.5),
      overheadPerStepMs: { p50: quantile(perStep, 0.5), p99: quantile(perStep, 0.99) },
      modelAndToolPerStepMs: { p50: quantile(inside, 0.5) },
      queueWaitMs: { p50: quantile(rows.map((r) => Number(r.wait_ms)), 0.5) },
      jobsPerMinute: (JOBS / wallMs) * 60_000,
      wallSeconds: wallMs / 1000,
      overheadByStepKind: gapByKind,
    };
    const line = (v) => v.toFixed(2);
    const md = [
      `### Analysis orchestration (${new Date().toISOString().slice(0, 10)}, \`npm run bench:insight\`, ${JOBS} jobs, offline model, cache off, ${CONCURRENCY} concurrent jobs in one process, 2 shared cores)`,
      '',
      '| measure | value | target |',
      '|---|---:|---:|',
      `| platform overhead per step, p50 | ${line(result.overheadPerStepMs.p50)} ms | < 5 ms |`,
      `| platform overhead per step, p99 | ${line(result.overheadPerStepMs.p99)} ms | |`,
      `| model + tool time per step, p50 (router → llm → svc-local, and the tools) | ${line(result.modelAndToolPerStepMs.p50)} ms | |`,
      `| steps per job, p50 | ${result.stepsPerJob} | |`,
      `| queue wait (created → a worker takes it), p50 | ${line(result.queueWaitMs.p50)} ms | |`,
      `| jobs completed per minute | ${line(result.jobsPerMinute)} | |`,
      `| jobs failed | ${failed} | 0 |`,
      '',
      `All ${JOBS} jobs are queued at once, so the queue wait is mostly jobs waiting for one of the ${CONCURRENCY} slots. Overhead per step by the kind of step it precedes (time from the previous step's write to this one's, less the model or tool time the step records), p50 / mean ms: ${Object.entries(gapByKind).map(([kind, g]) => `${kind} ${g.overheadP50Ms} / ${g.overheadMeanMs}`).join(', ')}. What remains is the step write (one committed statement with the job's progress, before the next step may begin), building the next model request, and the event loop the whole platform shares in one process (router, gateway, worker); forecasts and Monte Carlo runs (tens of ms of CPU each) run on worker threads so they no longer stall the other job's steps. Machine load average during the run: ${loadavg()[0].toFixed(1)} (other processes share the 2 cores).`,
      '',
    ].join('\n');
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n\n${md}\n`);
    if (SMOKE) return;
    await writeResultsSection('Analysis orchestration', md);
  } finally {
    await db.end();
    await platform.close();
    await database.drop();
  }
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
