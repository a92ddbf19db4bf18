// Vector search benchmark: `npm run bench:crawl` (builds, runs bench/crawl-throughput.js, then
// this file).
//
// On a fresh database (createTestDatabase, the crawl migrations via openDatabase): loads 100,000
// chunks of 384 dimensions for one tenant and 10,000 for a second one through the platform's own
// `createKnowledgeStore(orm).replaceItemChunks`, with the migration's HNSW index dropped during the
// bulk load and rebuilt afterwards from its exact definition (inserting 110,000 rows one by one
// into a live HNSW graph takes minutes on 2 cores; the cost of inserts into the built index is
// measured separately with 2,000 more chunks of a third tenant). Then times 1,000 queries through
// `knowledge.search(tenant, { embedding, model, topK: 5 })` (p50/p99) and scores recall@5 against
// exact nearest neighbours computed by brute force (worker threads; cross-checked against
// PostgreSQL's own exact ordering with the index disabled). Also: the second tenant's queries (the
// tenant filter with the other tenant's rows making up 91 % of the index), the search statement
// alone (captured from the platform and replayed), server execution time (EXPLAIN ANALYZE), and
// recall/latency at other hnsw.ef_search values with the same captured statements.
// Writes its part of the "Crawling" section of bench/RESULTS.md (bench/results-section.js).
//
// Vectors: 1,000 cluster centres (random unit vectors) and each chunk a centre plus Gaussian
// noise, normalised (seeded, so every run sees the same data): neighbours are meaningful, as with
// text embeddings, where related passages sit together and near-ties among them are common.
// Queries are noisy copies of held-out vectors (drawn like the chunks, never inserted).
//
// Knobs: BENCH_VECTOR_CHUNKS (100000), BENCH_VECTOR_OTHER (10000), BENCH_VECTOR_QUERIES (1000),
// BENCH_VECTOR_CLUSTERS (1000), BENCH_NO_WRITE=1, SVC_BENCH_SMOKE=1 (1,600 chunks, 20 queries,
// nothing written: npm test runs it so a moved module cannot break the benchmark silently). Needs PostgreSQL with pgvector as for the tests
// (SVC_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase } from '../test/dist/src/support/services.js';
import { createLogger, openDatabase, seededRandom } from '../subgraphs/kit/dist/src/index.js';
import { CRAWL_MIGRATIONS, hnswIndexName } from '../subgraphs/crawl/dist/src/store/migrations.js';
import { createKnowledgeStore, SEARCH_EF } from '../subgraphs/crawl/dist/src/store/knowledge-store.js';
import { writeResultsPart } from './results-section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIMS = 384;
const MODEL = 'bench-embedding-384';
const TOP_K = 5;
/** SVC_BENCH_SMOKE=1 (npm test's bench smoke run): tiny data, a few queries, nothing written. */
const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const CHUNKS_A = SMOKE ? 1000 : Number(process.env.BENCH_VECTOR_CHUNKS ?? 100_000);
const CHUNKS_B = SMOKE ? 200 : Number(process.env.BENCH_VECTOR_OTHER ?? 10_000);
const CHUNKS_C = SMOKE ? 400 : 4_000; // tenant C: half through replaceItemChunks before the index exists, half after
const QUERIES = SMOKE ? 20 : Number(process.env.BENCH_VECTOR_QUERIES ?? 1000);
const QUERIES_B = Math.max(50, Math.round(QUERIES / 5));
const WARMUP = SMOKE ? 5 : 100;
const CLUSTERS = SMOKE ? 100 : Number(process.env.BENCH_VECTOR_CLUSTERS ?? 1000);
const CHUNKS_PER_ITEM = 100;
const LOADERS = 2;
const DATA = process.env.BENCH_VECTOR_DATA ?? 'topics'; // or 'flat'
const TOPICS = 100;
const SUBTOPIC_NOISE = 0.8;
const SHARED = 0.9; // topic = normalise(random + 0.9 · shared): chunks of unrelated topics have cosine ≈ 0.17
const NOISE = [0.6, 1.0]; // per chunk, uniform: cosine to its centre 0.86 .. 0.71
const QUERY_NOISE = 0.3; // query = held-out vector moved by this much: cosine ≈ 0.96 to it
const EF_SWEEP = [40, SEARCH_EF, 200, 400];
// Replay configurations: the ef_search values with the store's iterative scan, and the store's ef_search without it.
const REPLAYS = [...EF_SWEEP.map((ef) => ({ key: String(ef), ef, iterative: 'relaxed_order' })), { key: `${SEARCH_EF}-off`, ef: SEARCH_EF, iterative: 'off' }];
const PG_CROSS_CHECK = Math.min(50, QUERIES);
const TENANT_A = 'bench-tenant-a';
const TENANT_B = 'bench-tenant-b';
const TENANT_C = 'bench-tenant-c';

const log = (...args) => console.error('[bench:vector]', ...args);
const fmt = (v, d = 2) => (v === undefined || v === null || Number.isNaN(v) ? '–' : Number(v).toFixed(d));
const quantile = (values, q) => {
  const s = Float64Array.from(values).sort();
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : NaN;
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const stripLiterals = (text) => text.replace(/'\[[^\]]*\]'/g, "'[…]'");

// ---------------------------------------------------------------- seeded data

function gaussian(rand) {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}
/** Writes a unit vector (as float32) into out[offset..offset+DIMS): normalise(base + amount * unit noise). */
function drawInto(out, offset, rand, base, amount) {
  const v = new Float64Array(DIMS);
  let nn = 0;
  for (let d = 0; d < DIMS; d++) {
    v[d] = gaussian(rand);
    nn += v[d] * v[d];
  }
  const scale = base ? amount / Math.sqrt(nn) : 1;
  let norm = 0;
  for (let d = 0; d < DIMS; d++) {
    v[d] = (base ? base[d] : 0) + scale * v[d];
    norm += v[d] * v[d];
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < DIMS; d++) out[offset + d] = v[d] / norm;
}

/**
 * The cluster centres chunks are drawn around. 'topics' (default): CLUSTERS subtopic centres in
 * TOPICS groups (a subtopic is its topic's direction plus noise of norm SUBTOPIC_NOISE, cosine ≈ 0.6
 * between siblings), all sharing one common direction (SHARED weight), as sentence embeddings do
 * (unrelated texts still have cosine ≈ 0.1–0.2): neighbourhoods overlap instead of being islands.
 * Expected cosines: same subtopic ≈ 0.6, sibling subtopics ≈ 0.4, unrelated ≈ 0.17.
 * 'flat': CLUSTERS independent random centres (isolated clusters; an easier case for HNSW).
 */
function centresOf(rand) {
  const centres = new Float32Array(CLUSTERS * DIMS);
  if (DATA === 'flat') {
    for (let c = 0; c < CLUSTERS; c++) drawInto(centres, c * DIMS, rand, undefined, 0);
    return centres;
  }
  const shared = new Float32Array(DIMS);
  drawInto(shared, 0, rand, undefined, 0);
  const topics = new Float32Array(TOPICS * DIMS);
  const tmp = new Float32Array(DIMS);
  for (let t = 0; t < TOPICS; t++) {
    drawInto(tmp, 0, rand, undefined, 0);
    const mixed = tmp.map((x, d) => x + SHARED * shared[d]);
    drawInto(topics, t * DIMS, rand, mixed, 0); // normalises mixed (noise of norm 0)
  }
  for (let c = 0; c < CLUSTERS; c++) {
    const topic = Math.floor((c * TOPICS) / CLUSTERS);
    drawInto(centres, c * DIMS, rand, topics.subarray(topic * DIMS, (topic + 1) * DIMS), SUBTOPIC_NOISE);
  }
  return centres;
}

function generateData() {
  const rand = seededRandom(20261121);
  const centres = centresOf(rand);
  const centre = (c) => centres.subarray(c * DIMS, (c + 1) * DIMS);
  const draw = (out, row) => drawInto(out, row * DIMS, rand, centre(Math.floor(rand() * CLUSTERS)), NOISE[0] + (NOISE[1] - NOISE[0]) * rand());
  const total = CHUNKS_A + CHUNKS_B + CHUNKS_C;
  const shared = new SharedArrayBuffer(total * DIMS * 4);
  const vectors = new Float32Array(shared);
  for (let row = 0; row < total; row++) draw(vectors, row);
  const normsBuffer = new SharedArrayBuffer(total * 8);
  const norms = new Float64Array(normsBuffer);
  for (let row = 0; row < total; row++) {
    let n = 0;
    for (let d = 0; d < DIMS; d++) n += vectors[row * DIMS + d] ** 2;
    norms[row] = Math.sqrt(n);
  }
  // Queries: held-out vectors drawn like the chunks (never inserted), each moved by QUERY_NOISE.
  const makeQueries = (count) => {
    const held = new Float32Array(count * DIMS);
    const queries = new Float32Array(count * DIMS);
    for (let q = 0; q < count; q++) {
      draw(held, q);
      drawInto(queries, q * DIMS, rand, held.subarray(q * DIMS, (q + 1) * DIMS), QUERY_NOISE);
    }
    return queries;
  };
  return { vectors, shared, norms, normsBuffer, queriesA: makeQueries(WARMUP + QUERIES), queriesB: makeQueries(WARMUP + QUERIES_B) };
}

const WORDS = 'harbour council storm ferry museum library bakery festival bridge tram budget lighthouse fleet theatre market school hospital rowing beach police season timetable renovation award coast weekend volunteers record parade extension'.split(' ');
function chunkText(rand) {
  const words = [];
  for (let i = 0; i < 110; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return `${words.join(' ')}.`;
}

// ---------------------------------------------------------------- exact neighbours (worker threads)

async function exactNeighbours(data, queries, from, to, k) {
  const workers = Array.from({ length: Math.max(1, Math.min(2, os.cpus().length)) }, () => new Worker(new URL('./vector-exact-worker.js', import.meta.url), {
    workerData: { vectors: data.shared, norms: data.normsBuffer, dims: DIMS, k },
  }));
  try {
    const count = queries.length / DIMS;
    const per = Math.ceil(count / workers.length);
    const parts = await Promise.all(workers.map((worker, w) => new Promise((resolve, reject) => {
      worker.once('message', (m) => resolve(m.results));
      worker.once('error', reject);
      worker.postMessage({ id: w, queries: queries.slice(w * per * DIMS, Math.min(count, (w + 1) * per) * DIMS), from, to });
    })));
    return parts.flat();
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

// ---------------------------------------------------------------- capture of the platform's SQL

/** Wraps pg.Client#query of every pg copy MikroORM may use; `capture.on` collects search statements. */
function captureSearchStatements() {
  const capture = { on: false, statements: [], sent: 0 };
  const modules = new Set([pg]);
  try {
    modules.add(createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg'));
  } catch {
    // only the top-level pg
  }
  for (const mod of modules) {
    const proto = mod.Client?.prototype;
    if (!proto || proto.svcBenchCaptured) continue;
    const query = proto.query;
    proto.query = function capturedQuery(config, ...rest) {
      if (capture.on) {
        capture.sent++;
        const text = typeof config === 'string' ? config : config?.text;
        if (typeof text === 'string' && text.startsWith('with nearest as materialized')) capture.statements.push(text);
      }
      return query.call(this, config, ...rest);
    };
    proto.svcBenchCaptured = true;
  }
  return capture;
}

// ---------------------------------------------------------------- main

function platformRevision() {
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  };
  const commit = git('rev-parse', '--short=12', 'HEAD') || 'unknown';
  const changed = git('status', '--porcelain', '--', 'subgraphs/crawl/src/store', 'subgraphs/kit/src/db').split('\n').filter(Boolean).map((l) => l.slice(3));
  return { commit, dirty: changed.map((f) => `\`${f}\``).join(', ') };
}

async function main() {
  if (DIMS % 4) throw new Error('DIMS must be a multiple of 4');
  const started = performance.now();
  const meta = {
    date: new Date().toISOString(),
    loadavg: os.loadavg().map((v) => v.toFixed(2)).join(' '),
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}`,
    revision: platformRevision(),
  };
  const capture = captureSearchStatements();

  log(`generating ${CHUNKS_A + CHUNKS_B + CHUNKS_C} vectors of ${DIMS} dimensions around ${CLUSTERS} centres`);
  const t0 = performance.now();
  const data = generateData();
  const generateMs = performance.now() - t0;

  const db = await createTestDatabase();
  const orm = await openDatabase({ url: db.url, schema: 'crawl', entities: [], migrations: CRAWL_MIGRATIONS, poolMax: 10, log: createLogger({ level: 'silent' }) });
  const knowledge = createKnowledgeStore(orm);
  const raw = new pg.Client({ connectionString: db.url });
  await raw.connect();
  const results = {};
  try {
    const settings = Object.fromEntries((await raw.query(`select name, setting, unit from pg_settings where name in ('shared_buffers', 'maintenance_work_mem', 'work_mem', 'max_parallel_maintenance_workers', 'max_parallel_workers_per_gather', 'effective_cache_size', 'jit')`)).rows.map((r) => [r.name, `${r.setting}${r.unit ? ` ${r.unit}` : ''}`]));
    meta.pgVersion = (await raw.query('show server_version')).rows[0].server_version;
    meta.pgvector = (await raw.query(`select extversion from pg_extension where extname = 'vector'`)).rows[0]?.extversion;
    meta.settings = settings;

    // Jobs and items to hang chunks on (set-up, not measured).
    const tenants = [
      { tenant: TENANT_A, rows: [0, CHUNKS_A] },
      { tenant: TENANT_B, rows: [CHUNKS_A, CHUNKS_A + CHUNKS_B] },
      { tenant: TENANT_C, rows: [CHUNKS_A + CHUNKS_B, CHUNKS_A + CHUNKS_B + CHUNKS_C] },
    ];
    const items = [];
    for (const t of tenants) {
      const jobId = randomUUID();
      const execution = randomUUID();
      await raw.query(`insert into crawl.crawl_job (id, tenant_id, job_name, target_url, selectors, enable_rag_sync) values ($1, $2, 'bench', 'http://127.0.0.1/list', '{"listRow":"li"}', true)`, [jobId, t.tenant]);
      const ids = [];
      for (let row = t.rows[0]; row < t.rows[1]; row += CHUNKS_PER_ITEM) {
        ids.push(randomUUID());
        items.push({ tenant: t.tenant, id: ids.at(-1), jobId, firstRow: row, count: Math.min(CHUNKS_PER_ITEM, t.rows[1] - row) });
      }
      await raw.query(
        `insert into crawl.crawl_item (id, tenant_id, job_id, detail_url, title, content_hash, first_seen_execution, last_seen_execution, changed_execution, vector_sync_status)
         select id, $2, $3, 'http://127.0.0.1/n/' || id, 'Bench item ' || id, 'h', $4, $4, $4, 'PENDING' from unnest($1::uuid[]) as id`,
        [ids, t.tenant, jobId, execution],
      );
    }
    const textRand = seededRandom(7);
    const chunksOf = (item) => Array.from({ length: item.count }, (_, i) => {
      const row = item.firstRow + i;
      return { index: i, content: chunkText(textRand), tokenCount: 128, embedding: Array.from(data.vectors.subarray(row * DIMS, (row + 1) * DIMS)) };
    });
    /** The platform's path: knowledge.replaceItemChunks per item, LOADERS items at a time. */
    const loadThroughStore = async (list) => {
      let next = 0;
      const t1 = performance.now();
      const cpu0 = process.cpuUsage();
      await Promise.all(Array.from({ length: LOADERS }, async () => {
        while (next < list.length) {
          const item = list[next++];
          await knowledge.replaceItemChunks(item.tenant, { id: item.id, jobId: item.jobId, title: `Bench item ${item.id}`, sourceUrl: `http://127.0.0.1/n/${item.id}`, category: null }, MODEL, chunksOf(item));
        }
      }));
      const cpu = process.cpuUsage(cpu0);
      return { ms: performance.now() - t1, nodeCpuMs: (cpu.user + cpu.system) / 1000 };
    };
    /**
     * The bench's bulk loader: the same rows replaceItemChunks writes (same columns and values),
     * inserted with bound array parameters (unnest) on LOADERS plain connections, an item per statement.
     */
    const loadInBulk = async (list) => {
      let next = 0;
      const t1 = performance.now();
      await Promise.all(Array.from({ length: LOADERS }, async () => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          while (next < list.length) {
            const item = list[next++];
            const chunks = chunksOf(item);
            await client.query(
              `insert into crawl.knowledge_chunk
                 (id, tenant_id, job_id, item_id, chunk_index, category, title, source_url, content, token_count, embedding_model, dims, embedding)
               select c.id, $1, $2::uuid, $3::uuid, c.idx, null, $4, $5, c.content, c.tokens, $6, ${DIMS}, c.embedding::vector(${DIMS})
                 from unnest($7::uuid[], $8::int[], $9::text[], $10::int[], $11::text[]) as c(id, idx, content, tokens, embedding)`,
              [
                item.tenant, item.jobId, item.id, `Bench item ${item.id}`, `http://127.0.0.1/n/${item.id}`, MODEL,
                chunks.map(() => randomUUID()), chunks.map((c) => c.index), chunks.map((c) => c.content), chunks.map((c) => c.tokenCount),
                chunks.map((c) => `[${c.embedding.join(',')}]`),
              ],
            );
          }
        } finally {
          await client.end();
        }
      }));
      return performance.now() - t1;
    };
    // Tenant A and B items interleaved, so the two tenants' rows are mixed in the table and the graph.
    const bulk = items.filter((i) => i.tenant !== TENANT_C);
    const interleaved = [];
    const a = bulk.filter((i) => i.tenant === TENANT_A);
    const b = bulk.filter((i) => i.tenant === TENANT_B);
    for (let i = 0, j = 0; i < a.length || j < b.length;) {
      if (j < b.length && (i >= a.length || (j + 1) / b.length <= (i + 1) / a.length)) interleaved.push(b[j++]);
      else interleaved.push(a[i++]);
    }

    const indexName = hnswIndexName(DIMS);
    const indexDef = (await raw.query(`select indexdef from pg_indexes where schemaname = 'crawl' and indexname = $1`, [indexName])).rows[0]?.indexdef;
    if (!indexDef) throw new Error(`the migration did not create ${indexName}`);
    await raw.query(`drop index crawl.${pg.escapeIdentifier(indexName)}`);
    log(`bulk-loading ${CHUNKS_A + CHUNKS_B} chunks (${LOADERS} connections, ${CHUNKS_PER_ITEM} per statement), HNSW index dropped`);
    results.bulkLoadMs = await loadInBulk(interleaved);
    const itemsC = items.filter((i) => i.tenant === TENANT_C);
    const halfC = Math.floor(itemsC.length / 2);
    log(`inserting ${itemsC.slice(0, halfC).reduce((n, i) => n + i.count, 0)} chunks of a third tenant through replaceItemChunks, no HNSW index`);
    results.storeInsertNoIndex = { rows: itemsC.slice(0, halfC).reduce((n, i) => n + i.count, 0), ...(await loadThroughStore(itemsC.slice(0, halfC))) };
    log(`loaded in ${(results.bulkLoadMs / 1000).toFixed(1)} s; rebuilding ${indexName}`);
    // The index is rebuilt from the migration's own definition; only the build session's memory is raised.
    await raw.query(`set maintenance_work_mem = '1GB'`);
    let t = performance.now();
    await raw.query(indexDef);
    results.indexBuildMs = performance.now() - t;
    await raw.query('reset maintenance_work_mem');
    const rebuilt = (await raw.query(`select indexdef from pg_indexes where schemaname = 'crawl' and indexname = $1`, [indexName])).rows[0]?.indexdef;
    results.indexSame = rebuilt === indexDef;
    t = performance.now();
    await raw.query('analyze crawl.knowledge_chunk');
    results.analyzeMs = performance.now() - t;
    log(`index built in ${(results.indexBuildMs / 1000).toFixed(1)} s; inserting more chunks of the third tenant through replaceItemChunks into the live index`);
    results.storeInsertLive = { rows: itemsC.slice(halfC).reduce((n, i) => n + i.count, 0), ...(await loadThroughStore(itemsC.slice(halfC))) };
    results.sizes = (await raw.query(`select pg_size_pretty(pg_table_size('crawl.knowledge_chunk')) as "table", pg_size_pretty(pg_relation_size('crawl.${indexName}')) as "index", (select count(*)::int from crawl.knowledge_chunk) as rows`)).rows[0];

    // Map database ids to rows of `data.vectors`.
    const rowOf = new Map();
    const itemByIdFirstRow = new Map(items.map((i) => [i.id, i.firstRow]));
    const tenantOfRow = (row) => (row < CHUNKS_A ? TENANT_A : row < CHUNKS_A + CHUNKS_B ? TENANT_B : TENANT_C);
    for (const r of (await raw.query('select id, item_id, chunk_index from crawl.knowledge_chunk')).rows) rowOf.set(r.id, itemByIdFirstRow.get(r.item_id) + r.chunk_index);

    const embedding = (queries, q) => Array.from(queries.subarray(q * DIMS, (q + 1) * DIMS));
    const plan = stripLiterals(await knowledge.explainSearch(TENANT_A, { embedding: embedding(data.queriesA, 0), model: MODEL, topK: TOP_K }));
    results.plan = plan;
    results.usesIndex = plan.includes(indexName);

    /** Times knowledge.search over the queries (after warm-up); captures the statements sent. */
    async function measureSearch(tenant, queries, count) {
      for (let q = 0; q < WARMUP; q++) await knowledge.search(tenant, { embedding: embedding(queries, q), model: MODEL, topK: TOP_K });
      const latencies = [];
      const hits = [];
      capture.statements = [];
      capture.sent = 0;
      capture.on = true;
      for (let q = WARMUP; q < WARMUP + count; q++) {
        const e = embedding(queries, q);
        const t1 = performance.now();
        const found = await knowledge.search(tenant, { embedding: e, model: MODEL, topK: TOP_K });
        latencies.push(performance.now() - t1);
        hits.push(found.map((h) => rowOf.get(h.chunkId)));
      }
      capture.on = false;
      return { latencies, hits, statements: [...capture.statements], roundTrips: capture.sent / count };
    }
    log(`${QUERIES} searches of tenant A through knowledge.search (after ${WARMUP} warm-up)`);
    const searchA = await measureSearch(TENANT_A, data.queriesA, QUERIES);
    log(`${QUERIES_B} searches of tenant B`);
    const searchB = await measureSearch(TENANT_B, data.queriesB, QUERIES_B);

    /** Replays captured statements on a raw connection with the store's settings but another ef_search / iterative scan. */
    async function replay(statements, { ef, iterative }) {
      const latencies = [];
      const hits = [];
      for (const statement of statements) {
        await raw.query('begin');
        await raw.query(`select set_config('hnsw.iterative_scan', '${iterative}', true), set_config('hnsw.ef_search', '${ef}', true)`);
        const t1 = performance.now();
        const r = await raw.query(statement);
        latencies.push(performance.now() - t1);
        await raw.query('commit');
        hits.push(r.rows.map((h) => rowOf.get(h.id)));
      }
      return { latencies, hits };
    }
    log(`replaying the captured statements at ef_search ${EF_SWEEP.join(', ')}, and without iterative scan`);
    const sweepA = {};
    for (const c of REPLAYS) sweepA[c.key] = await replay(searchA.statements, c);
    const sweepB = {};
    for (const c of REPLAYS) sweepB[c.key] = await replay(searchB.statements, c);
    /** Whether the planner picks the HNSW index for the first captured statement at this ef_search. */
    const planUsesIndex = async (statement, { ef, iterative }) => {
      await raw.query('begin');
      await raw.query(`select set_config('hnsw.iterative_scan', '${iterative}', true), set_config('hnsw.ef_search', '${ef}', true)`);
      const r = await raw.query(`explain (costs off) ${statement}`);
      await raw.query('commit');
      return r.rows.map((x) => x['QUERY PLAN']).join('\n').includes(indexName);
    };
    for (const c of REPLAYS) {
      sweepA[c.key].usesIndex = await planUsesIndex(searchA.statements[0], c);
      sweepB[c.key].usesIndex = await planUsesIndex(searchB.statements[0], c);
    }

    // Server-side time of the statement (EXPLAIN ANALYZE, store settings) for a sample.
    const serverMs = [];
    const planningMs = [];
    for (const statement of searchA.statements.slice(0, 200)) {
      await raw.query('begin');
      await raw.query(`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '${SEARCH_EF}', true)`);
      const r = await raw.query(`explain (analyze, format json) ${statement}`);
      await raw.query('commit');
      serverMs.push(r.rows[0]['QUERY PLAN'][0]['Execution Time']);
      planningMs.push(r.rows[0]['QUERY PLAN'][0]['Planning Time']);
    }
    // A bare round trip on the same connection, for scale.
    const pingMs = [];
    for (let i = 0; i < 300; i++) {
      const t1 = performance.now();
      await raw.query('select 1');
      pingMs.push(performance.now() - t1);
    }

    log('exact neighbours by brute force (worker threads)');
    t = performance.now();
    const k = TOP_K + 1; // one more, to see near-ties at the boundary
    const exactA = await exactNeighbours(data, data.queriesA.subarray(WARMUP * DIMS), 0, CHUNKS_A, k);
    const exactB = await exactNeighbours(data, data.queriesB.subarray(WARMUP * DIMS), CHUNKS_A, CHUNKS_A + CHUNKS_B, k);
    results.exactMs = performance.now() - t;

    // Cross-check the brute force against PostgreSQL's exact ordering (no index) for a sample.
    log(`cross-checking ${PG_CROSS_CHECK} exact answers against PostgreSQL with index scans disabled`);
    await raw.query('set enable_indexscan = off');
    let agree = 0;
    for (let q = 0; q < PG_CROSS_CHECK; q++) {
      const r = await raw.query(
        `select id from crawl.knowledge_chunk where tenant_id = $1 and dims = ${DIMS} and embedding_model = $2
          order by embedding::vector(${DIMS}) <=> $3::vector(${DIMS}), id limit ${TOP_K}`,
        [TENANT_A, MODEL, `[${embedding(data.queriesA, WARMUP + q).join(',')}]`],
      );
      const pgRows = r.rows.map((x) => rowOf.get(x.id));
      if (pgRows.join() === exactA[q].rows.slice(0, TOP_K).join()) agree++;
    }
    await raw.query('reset enable_indexscan');
    results.crossCheck = { agree, of: PG_CROSS_CHECK };

    const recall = (hits, exact) => mean(hits.map((h, q) => {
      const truth = new Set(exact[q].rows.slice(0, TOP_K));
      return h.filter((row) => truth.has(row)).length / TOP_K;
    }));
    const nearTies = (exact) => exact.filter((e) => Math.abs(e.distances[TOP_K] - e.distances[TOP_K - 1]) < 1e-6).length;
    /** Mean over imperfect queries of (mean distance of the returned 5) − (mean distance of the exact 5). */
    const distanceOf = (queries, q, row) => {
      let dot = 0;
      let qq = 0;
      for (let d = 0; d < DIMS; d++) {
        const x = queries[(WARMUP + q) * DIMS + d];
        dot += data.vectors[row * DIMS + d] * x;
        qq += x * x;
      }
      return 1 - dot / (data.norms[row] * Math.sqrt(qq));
    };
    /** Of the returned chunks that are not in the exact top 5: how much farther than the exact 5th they are. */
    const misses = (hits, exact, queries) => {
      const excess = [];
      const excessPartial = []; // wrong hits of queries that got at least one of the exact 5
      const excessZero = []; // wrong hits of queries that got none of them
      const histogram = Array(TOP_K + 1).fill(0);
      hits.forEach((h, q) => {
        const truth = new Set(exact[q].rows.slice(0, TOP_K));
        const right = h.filter((row) => truth.has(row)).length;
        histogram[right]++;
        for (const row of h) {
          if (truth.has(row)) continue;
          const e = distanceOf(queries, q, row) - exact[q].distances[TOP_K - 1];
          excess.push(e);
          (right ? excessPartial : excessZero).push(e);
        }
        if (process.env.BENCH_VECTOR_DEBUG && excess.length && h.some((row) => !truth.has(row)) && q < 200) {
          log(`miss q${q}: got ${h.map((row) => `${row}:${distanceOf(queries, q, row).toFixed(4)}`).join(' ')} exact ${exact[q].rows.map((row, i) => `${row}:${exact[q].distances[i].toFixed(4)}`).join(' ')}`);
        }
      });
      const stats = (list) => (list.length ? { p50: quantile(list, 0.5), p90: quantile(list, 0.9), min: Math.min(...list), max: Math.max(...list) } : undefined);
      return { histogram, wrong: excess.length, excess: stats(excess), partial: stats(excessPartial), zero: stats(excessZero) };
    };
    const summary = (lat) => ({ p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), p99: quantile(lat, 0.99), max: Math.max(...lat), mean: mean(lat) });
    const tenantLeaks = (hits, tenant) => hits.flat().filter((row) => row === undefined || tenantOfRow(row) !== tenant).length;
    results.a = {
      search: summary(searchA.latencies),
      recall: recall(searchA.hits, exactA),
      short: searchA.hits.filter((h) => h.length < TOP_K).length,
      leaks: tenantLeaks(searchA.hits, TENANT_A),
      roundTrips: searchA.roundTrips,
      nearTies: nearTies(exactA),
      perfect: searchA.hits.filter((h, q) => recall([h], [exactA[q]]) === 1).length,
      misses: misses(searchA.hits, exactA, data.queriesA),
      sweep: Object.fromEntries(REPLAYS.map(({ key }) => [key, { latency: summary(sweepA[key].latencies), recall: recall(sweepA[key].hits, exactA), short: sweepA[key].hits.filter((h) => h.length < TOP_K).length, usesIndex: sweepA[key].usesIndex, misses: misses(sweepA[key].hits, exactA, data.queriesA) }])),
      exactTop1Distance: mean(exactA.map((e) => e.distances[0])),
      exactTop5Distance: mean(exactA.map((e) => e.distances[TOP_K - 1])),
    };
    results.b = {
      search: summary(searchB.latencies),
      recall: recall(searchB.hits, exactB),
      short: searchB.hits.filter((h) => h.length < TOP_K).length,
      leaks: tenantLeaks(searchB.hits, TENANT_B),
      nearTies: nearTies(exactB),
      misses: misses(searchB.hits, exactB, data.queriesB),
      perfect: searchB.hits.filter((h, q) => recall([h], [exactB[q]]) === 1).length,
      sweep: Object.fromEntries(REPLAYS.map(({ key }) => [key, { latency: summary(sweepB[key].latencies), recall: recall(sweepB[key].hits, exactB), short: sweepB[key].hits.filter((h) => h.length < TOP_K).length, usesIndex: sweepB[key].usesIndex, misses: misses(sweepB[key].hits, exactB, data.queriesB) }])),
    };
    results.server = { execution: summary(serverMs), planning: summary(planningMs) };
    results.ping = summary(pingMs);
    results.generateMs = generateMs;
  } finally {
    await raw.end().catch(() => undefined);
    await orm.close();
    await db.drop();
  }
  meta.totalMs = performance.now() - started;
  const markdown = report(results, meta);
  if (SMOKE) log('smoke run: RESULTS.md left as it is');
  else if (process.env.BENCH_NO_WRITE === '1') console.log(markdown);
  else {
    writeResultsPart('vector-search', markdown);
    log('wrote the vector search part of bench/RESULTS.md');
  }
  const r = results;
  console.log(`tenant A (${CHUNKS_A} chunks): search p50 ${fmt(r.a.search.p50)} ms p99 ${fmt(r.a.search.p99)} ms recall@5 ${fmt(r.a.recall, 4)}; tenant B (${CHUNKS_B}): p50 ${fmt(r.b.search.p50)} ms p99 ${fmt(r.b.search.p99)} ms recall@5 ${fmt(r.b.recall, 4)}`);
  console.log(`bulk load ${fmt(r.bulkLoadMs / 1000, 1)} s (no index) + index build ${fmt(r.indexBuildMs / 1000, 1)} s; replaceItemChunks ${fmt(r.storeInsertNoIndex.rows / (r.storeInsertNoIndex.ms / 1000), 0)} rows/s without the index, ${fmt(r.storeInsertLive.rows / (r.storeInsertLive.ms / 1000), 0)} rows/s into the live index`);
}

function report(r, meta) {
  const a = r.a;
  const b = r.b;
  const metRecall = a.recall >= 0.95;
  const metP50 = a.search.p50 < 10;
  const lines = [];
  const L = (text = '') => lines.push(text);
  const ms = (s, d = 2) => `${fmt(s.p50, d)} / ${fmt(s.p90, d)} / ${fmt(s.p99, d)} / ${fmt(s.max, d)}`;
  const rate = (x) => x.rows / (x.ms / 1000);
  const store = a.sweep[String(SEARCH_EF)];
  const clientP50 = a.search.p50 - store.latency.p50;
  L('## Vector search');
  L();
  L(`Reproduce: \`npm run bench:crawl\` (this part alone: \`npm run build && node bench/vector-search.js\`, about ${Math.max(1, Math.round(meta.totalMs / 60000))} min; needs PostgreSQL with pgvector on loopback). Knobs: \`BENCH_VECTOR_CHUNKS\` (default 100000), \`BENCH_VECTOR_OTHER\` (default 10000), \`BENCH_VECTOR_QUERIES\` (default 1000), \`BENCH_VECTOR_CLUSTERS\` (default 1000), \`BENCH_VECTOR_DATA\` (\`topics\`, the default, or \`flat\`), \`BENCH_NO_WRITE=1\`.`);
  L();
  L(`- Date: ${meta.date}`);
  L(`- Machine: ${meta.machine}; PostgreSQL ${meta.pgVersion} with pgvector ${meta.pgvector} on the same machine, settings as provisioned (shared_buffers ${meta.settings.shared_buffers}, work_mem ${meta.settings.work_mem}, maintenance_work_mem ${meta.settings.maintenance_work_mem}, max_parallel_maintenance_workers ${meta.settings.max_parallel_maintenance_workers}, jit ${meta.settings.jit}). The benchmark process and PostgreSQL share the ${os.cpus().length} cores; other sessions were using the machine too.`);
  L(`- Platform measured: commit \`${meta.revision.commit}\`${meta.revision.dirty ? ` with uncommitted changes in ${meta.revision.dirty}` : ' (store and database code clean)'}; Node ${process.version}.`);
  L(`- Load average at start: ${meta.loadavg}.`);
  L();
  L('### Set-up');
  L();
  L(`- **Database**: a fresh one from \`createTestDatabase()\`, the crawl schema by \`openDatabase({ migrations: CRAWL_MIGRATIONS, poolMax: 10 })\`: the table and its partial HNSW index \`${hnswIndexName(DIMS)}\` (\`(embedding::vector(384)) vector_cosine_ops where dims = 384\`, pgvector's defaults m = 16, ef_construction = 64) are the migration's.`);
  L(DATA === 'flat'
    ? `- **Data** (\`BENCH_VECTOR_DATA=flat\`, seeded): ${CLUSTERS} independent random cluster centres; every chunk is a centre plus Gaussian noise of norm ${NOISE[0]}–${NOISE[1]}, normalised (cosine ≈ 0.71–0.86 to its centre, ≈ 0.6 within a cluster, ≈ 0 between clusters): isolated clusters, an easy case for HNSW.`
    : `- **Data** (\`BENCH_VECTOR_DATA=topics\`, seeded, identical every run), shaped like sentence embeddings: ${TOPICS} topic directions, each mixed with one direction shared by all (as real embedding models have: unrelated texts still score cosine ≈ 0.1–0.2), ${CLUSTERS} subtopic centres (${CLUSTERS / TOPICS} per topic, its topic plus noise of norm ${SUBTOPIC_NOISE}), and every chunk a subtopic centre plus Gaussian noise of norm ${NOISE[0]}–${NOISE[1]} (uniform), normalised. Expected cosine between two chunks: ≈ 0.6 in the same subtopic, ≈ 0.4 in sibling subtopics, ≈ 0.17 otherwise, so neighbourhoods overlap instead of forming isolated islands.`);
  L(`- **Tenants**: A has **${CHUNKS_A.toLocaleString('en')} chunks** (${CHUNKS_A / CHUNKS_PER_ITEM} items × ${CHUNKS_PER_ITEM}); B has ${CHUNKS_B.toLocaleString('en')} chunks from the same subtopics, its items interleaved with A's during the load so the two tenants' rows are mixed in the table and the graph; C has ${CHUNKS_C.toLocaleString('en')} chunks, written through the platform to measure inserts. One embedding model; ≈ 0.8 KB of text per chunk. ${r.sizes.rows.toLocaleString('en')} rows in all: table ${r.sizes.table}, HNSW index ${r.sizes.index}.`);
  L(`- **Loading**: \`replaceItemChunks\` formats every embedding into the SQL text (MikroORM inlines parameters) and inserts ${CHUNKS_PER_ITEM} rows per statement; measured below at ≈ ${fmt(rate(r.storeInsertNoIndex), 0)} rows/s without the HNSW index and ≈ ${fmt(rate(r.storeInsertLive), 0)} rows/s with it, so loading 110,000 rows through it would take minutes. The bench therefore drops \`${hnswIndexName(DIMS)}\`, bulk-loads A and B with its own loader (the same columns and values \`replaceItemChunks\` writes, as bound arrays through \`unnest\`, ${LOADERS} connections), recreates the index from its own \`pg_indexes.indexdef\` (${r.indexSame ? 'identical afterwards' : '**differs afterwards**'}; \`maintenance_work_mem = 1GB\` for that session only) and runs \`ANALYZE\`. Tenant C goes through \`knowledge.replaceItemChunks\` (${LOADERS} items at a time): half before the index is rebuilt, half into the built index. Searches then use the platform's \`search()\` unchanged.`);
  L(`- **Queries**: noisy copies of held-out vectors (drawn like the chunks, never inserted, each moved by noise of norm ${QUERY_NOISE}: cosine ≈ 0.96 to the held-out vector). ${WARMUP} warm-up queries, then **${QUERIES} measured for tenant A** and ${QUERIES_B} for tenant B (after ${WARMUP} of its own), one at a time (concurrency 1): \`knowledge.search(tenant, { embedding, model, topK: ${TOP_K} })\`, i.e. the platform's statement (a materialized CTE ordered by the index expression, then re-sorted by exact distance) in a transaction with \`hnsw.iterative_scan = relaxed_order\` and \`hnsw.ef_search = ${SEARCH_EF}\` (the store's \`SEARCH_EF\`): ${fmt(a.roundTrips, 1)} round trips per search (BEGIN, settings, statement, COMMIT). Latency is measured in Node around the call. Exact nearest chunk at cosine ${fmt(1 - a.exactTop1Distance, 3)} on average, 5th nearest at ${fmt(1 - a.exactTop5Distance, 3)}.`);
  L(`- **Plan** (\`knowledge.explainSearch\`): ${r.usesIndex ? `uses \`${hnswIndexName(DIMS)}\`` : '**does not use the HNSW index**'}: \`${r.plan.split('\n').map((l) => l.trim().replace(/^->\s*/, '')).filter(Boolean).slice(0, 6).join(' ↳ ')}\`.`);
  L(`- **Exact top 5** (ground truth): brute force over the float32 vectors PostgreSQL stores (cosine distance as pgvector defines it), restricted to the tenant's rows, in 2 worker threads (${fmt(r.exactMs / 1000, 1)} s). Cross-check: for the first ${r.crossCheck.of} queries PostgreSQL itself, with index scans disabled (\`enable_indexscan = off\`, same filter, same order), returned the same 5 chunks in the same order for **${r.crossCheck.agree} of ${r.crossCheck.of}**. Queries whose 5th and 6th exact neighbours are within 1e-6 (a tie recall cannot judge): ${a.nearTies} (A), ${b.nearTies} (B). recall@5 = |HNSW top 5 ∩ exact top 5| / 5, averaged over the queries.`);
  L();
  L('### Results');
  L();
  L('| loading | rows | time | rows/s | Node CPU ms/row |');
  L('|---|---:|---:|---:|---:|');
  L(`| bench bulk loader (bound arrays, ${LOADERS} connections), no HNSW index | ${(CHUNKS_A + CHUNKS_B).toLocaleString('en')} | ${fmt(r.bulkLoadMs / 1000, 1)} s | ${fmt((CHUNKS_A + CHUNKS_B) / (r.bulkLoadMs / 1000), 0)} | – |`);
  L(`| \`CREATE INDEX\` (the migration's HNSW definition) over A + B | ${(CHUNKS_A + CHUNKS_B).toLocaleString('en')} | ${fmt(r.indexBuildMs / 1000, 1)} s | – | – |`);
  L(`| \`knowledge.replaceItemChunks\`, no HNSW index | ${r.storeInsertNoIndex.rows.toLocaleString('en')} | ${fmt(r.storeInsertNoIndex.ms / 1000, 1)} s | ${fmt(rate(r.storeInsertNoIndex), 0)} | ${fmt(r.storeInsertNoIndex.nodeCpuMs / r.storeInsertNoIndex.rows, 2)} |`);
  L(`| \`knowledge.replaceItemChunks\` into the built index (${(CHUNKS_A + CHUNKS_B + r.storeInsertNoIndex.rows).toLocaleString('en')} rows in it) | ${r.storeInsertLive.rows.toLocaleString('en')} | ${fmt(r.storeInsertLive.ms / 1000, 1)} s | **${fmt(rate(r.storeInsertLive), 0)}** | ${fmt(r.storeInsertLive.nodeCpuMs / r.storeInsertLive.rows, 2)} |`);
  L();
  L(`| search (\`knowledge.search\`, topK ${TOP_K}, ef_search ${SEARCH_EF}) | queries | p50 / p90 / p99 / max ms | recall@5 | queries with all 5 right | fewer than 5 hits | hits of another tenant |`);
  L('|---|---:|---|---:|---:|---:|---:|');
  L(`| tenant A, ${CHUNKS_A.toLocaleString('en')} chunks (${fmt((CHUNKS_A / r.sizes.rows) * 100, 0)} % of the indexed rows) | ${QUERIES} | **${ms(a.search)}** | **${fmt(a.recall, 4)}** | ${a.perfect} | ${a.short} | ${a.leaks} |`);
  L(`| tenant B, ${CHUNKS_B.toLocaleString('en')} chunks (${fmt((CHUNKS_B / r.sizes.rows) * 100, 0)} % of the indexed rows) | ${QUERIES_B} | ${ms(b.search)} | ${fmt(b.recall, 4)} | ${b.perfect} | ${b.short} | ${b.leaks} |`);
  L();
  L(`Where a tenant-A search's time goes (ms, p50 / p90 / p99 / max): the whole \`knowledge.search\` call ${ms(a.search)}; the captured search statement alone, replayed on a plain \`pg\` connection with the same settings, ${ms(store.latency)}; PostgreSQL's execution time of it (EXPLAIN ANALYZE, 200 queries) ${ms(r.server.execution)}, planning ${ms(r.server.planning)}; a bare \`select 1\` round trip ${ms(r.ping, 3)}.`);
  L();
  L(`hnsw.ef_search and the iterative scan: the captured platform statements replayed on a plain connection with the given settings (statement time only, so below the \`knowledge.search\` latency). The store's settings are ef_search ${SEARCH_EF} with \`relaxed_order\`. "0 of 5": queries that got none of their exact 5 neighbours.`);
  L();
  L('| ef_search, iterative scan | tenant A statement p50 / p99 ms | tenant A recall@5 | tenant A queries with 0 of 5 | tenant B statement p50 / p99 ms | tenant B recall@5 | tenant B queries with 0 of 5 | planner uses the HNSW index (A / B) |');
  L('|---|---|---:|---:|---|---:|---:|---|');
  for (const c of REPLAYS) {
    const x = a.sweep[c.key];
    const y = b.sweep[c.key];
    const store = c.ef === SEARCH_EF && c.iterative === 'relaxed_order';
    L(`| ${c.ef}, ${c.iterative}${store ? ' (store)' : ''} | ${fmt(x.latency.p50)} / ${fmt(x.latency.p99)} | ${fmt(x.recall, 4)} | ${x.misses.histogram[0]} | ${fmt(y.latency.p50)} / ${fmt(y.latency.p99)} | ${fmt(y.recall, 4)} | ${y.misses.histogram[0]} | ${x.usesIndex ? 'yes' : 'no'} / ${y.usesIndex ? 'yes' : 'no'} |`);
  }
  L();
  L('### Targets');
  L();
  L(`| target | measured (tenant A, ${CHUNKS_A.toLocaleString('en')} chunks, \`knowledge.search\`) | met |`);
  L('|---|---|---|');
  L(`| recall@5 at least 0.95 against exact search | ${fmt(a.recall, 4)} (ef_search ${SEARCH_EF}, the store's) | **${metRecall ? 'yes' : 'no'}** |`);
  L(`| p50 latency under 10 ms | ${fmt(a.search.p50)} ms (p99 ${fmt(a.search.p99)} ms) | **${metP50 ? 'yes' : 'no'}** |`);
  L();
  L('### Interpretation');
  L();
  const h = a.misses.histogram;
  const zero = h[0];
  const partial = QUERIES - h[TOP_K] - zero;
  const lostToZero = (zero * TOP_K) / (QUERIES * TOP_K);
  const off = a.sweep[`${SEARCH_EF}-off`];
  const ef200 = a.sweep['200'];
  L(`- **Targets.** recall@5 ${fmt(a.recall, 4)} (≥ 0.95: **${metRecall ? 'met' : 'missed'}**${metRecall && a.recall < 0.97 ? ', with little margin' : ''}) at p50 ${fmt(a.search.p50)} ms (< 10 ms: **${metP50 ? 'met' : 'missed'}**), p99 ${fmt(a.search.p99)} ms, for a tenant with ${CHUNKS_A.toLocaleString('en')} chunks in a ${r.sizes.rows.toLocaleString('en')}-row index. The HNSW graph is not the same from run to run (rows arrive over ${LOADERS} connections in varying order, and the build may use parallel workers), so recall moves by a few thousandths between runs: at this margin a run can land on either side of 0.95.`);
  L(`- **How recall is lost.** Queries by how many of their exact 5 neighbours they got (5, 4, 3, 2, 1, 0): ${[...h].reverse().join(', ')}. Two different failures: ${partial} queries lost some of the 5 to near neighbours just outside them (such a wrong hit is ${a.misses.partial ? fmt(a.misses.partial.p50, 4) : '–'} farther from the query than the exact 5th neighbour at the median, in cosine distance), and **${zero} queries got none** of them: the graph search ended in another region of the space (those hits are ${a.misses.zero ? `${fmt(a.misses.zero.min, 3)}–${fmt(a.misses.zero.max, 3)}` : '–'} farther than the exact 5th neighbour, while the exact 1st and 5th are ${fmt(a.exactTop5Distance - a.exactTop1Distance, 3)} apart on average). Those ${zero} account for ${fmt(lostToZero, 4)} of the ${fmt(1 - a.recall, 4)} recall lost. This is HNSW's greedy descent on clustered data (neighbourhoods that are dense inside and weakly linked to each other); without the iterative scan, recall at ef_search ${SEARCH_EF} is ${fmt(off.recall, 4)} (${off.misses.histogram[0]} queries with 0 of 5), so the iterative scan is ${Math.abs(off.recall - store.recall) < 0.005 ? 'not the cause' : off.recall > store.recall ? 'part of the cause' : 'helping, not the cause'}. A larger ef_search widens the search: at 200, recall ${fmt(ef200.recall, 4)} with ${ef200.misses.histogram[0]} queries at 0 of 5, for ${fmt(ef200.latency.p50 - store.latency.p50)} ms more statement time at p50.`);
  L(`- **What dominates the latency**: at p50, ${fmt(r.server.execution.p50)} ms is PostgreSQL executing the statement (the HNSW graph walk with ef_search ${SEARCH_EF} over the ${r.sizes.index} index), ${fmt(store.latency.p50)} ms the statement seen from a plain client, and ${fmt(clientP50)} ms (${fmt((clientP50 / a.search.p50) * 100, 0)} % of the call) the rest of \`knowledge.search\`: three more round trips (BEGIN, the \`set_config\` statement, COMMIT; a bare round trip costs ${fmt(r.ping.p50, 3)} ms here), MikroORM's fork and transaction, formatting the 384 numbers into the SQL text and reading the rows. So the <10 ms target has ample room; recall is the tight one.`);
  L(`- **Tenant filter.** Tenant B is ${fmt((CHUNKS_B / r.sizes.rows) * 100, 0)} % of the rows in the same graph. With \`hnsw.iterative_scan = relaxed_order\` the scan continues past other tenants' rows until it has ${TOP_K} of B's, so every search returned ${b.short ? `${TOP_K} hits except ${b.short}` : `${TOP_K} hits`}, none of another tenant (${a.leaks + b.leaks} leaks), at p50 ${fmt(b.search.p50)} ms; recall@5 ${fmt(b.recall, 4)} (${b.misses.histogram[0]} queries with 0 of 5). Without the iterative scan B's recall at ef_search ${SEARCH_EF} is ${fmt(b.sweep[`${SEARCH_EF}-off`].recall, 4)}${b.sweep[`${SEARCH_EF}-off`].short ? ` and ${b.sweep[`${SEARCH_EF}-off`].short} of ${QUERIES_B} searches return fewer than ${TOP_K} hits` : ''}: the filter drops the other tenants' candidates from the ef_search-sized list, which the iterative scan refills.`);
  L(`- **Inserts.** Through the platform, ${fmt(rate(r.storeInsertNoIndex), 0)} rows/s without the HNSW index and ${fmt(rate(r.storeInsertLive), 0)} rows/s into the ${(CHUNKS_A + CHUNKS_B).toLocaleString('en')}-row index (each insert searches the graph with ef_construction 64 to link the new node); Node spends ${fmt(r.storeInsertNoIndex.nodeCpuMs / r.storeInsertNoIndex.rows, 2)} ms CPU per row formatting the statement (MikroORM inlines the ${DIMS} numbers of every embedding as text). Building the index over ${(CHUNKS_A + CHUNKS_B).toLocaleString('en')} rows took ${fmt(r.indexBuildMs / 1000, 1)} s. For crawling (a few chunks per item) the insert rate is ample; a bulk import of a large knowledge base would want drop → load → \`CREATE INDEX\`.`);
  L(`- **What would improve it** (not implemented; no platform code was changed): (1) recall margin: raising \`SEARCH_EF\` to 200 costs ≈ ${fmt(ef200.latency.p50 - store.latency.p50)} ms at p50 and lifts recall to ${fmt(ef200.recall, 4)} here; building the index with a larger \`m\` / \`ef_construction\` links clusters better (not measured); (2) latency: set \`hnsw.iterative_scan\` and \`hnsw.ef_search\` as role or database defaults (\`ALTER ROLE … SET\`) and run the search without an explicit transaction, one round trip instead of ${fmt(a.roundTrips, 0)}, which is most of the ${fmt(clientP50)} ms client-side share; (3) bind embeddings as parameters instead of inlining them as text, cutting client CPU for inserts (${fmt(r.storeInsertNoIndex.nodeCpuMs / r.storeInsertNoIndex.rows, 2)} ms per row) and searches; (4) \`shared_buffers\` (${meta.settings.shared_buffers} as provisioned) large enough for the ${r.sizes.index} index, so graph pages come from PostgreSQL's cache rather than the OS page cache.`);
  L(`- **Caveats.** Synthetic vectors shaped like embeddings, not real ones; with \`BENCH_VECTOR_DATA=flat\` (${CLUSTERS} isolated clusters of ≈ 100 chunks, otherwise the same) a trial run on this machine on 2026-11-21 gave recall@5 1.0000 at ef_search 100 (0.9830 at 40) and p50 3.0 ms: isolated clusters smaller than ef_search are easy, which is why the default data set has overlapping topics. Concurrency 1 only; PostgreSQL on the same 2 cores as the client and other work on the machine.`);
  return lines.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
