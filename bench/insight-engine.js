// Analysis engine timings (issue 19): the pure engine in subgraphs/insight/src/engine, no
// database, no model, nothing but computation on generated series.
//
//   npm run build && node bench/insight-engine.js
//   SVC_BENCH_SMOKE=1 node bench/insight-engine.js     (tiny sizes, to check the script runs)
//
// 1. A job over 12 metrics × 400 days: `analyse()` on a catalog of 12 metrics — the subject is
//    a product of two factors, declares a lagged driver and has 12 labelled leaves; the others
//    are candidates (change points and lagged correlations are computed for each). Timed cold
//    (first call: WebAssembly models load) and warm (median of 5).
// 2. A segment drill-down over 25,000 leaf combinations of 4 labels (5 data centres × 25
//    provinces × 10 ISPs × 20 channels, the size of Squeeze's CDN datasets) with one planted
//    province × ISP cause: `attributeSegments()` on the leaves' period totals (Adtributor over
//    the four dimensions, then the drill-down or combination search), and the whole `analyse()`
//    over the 25,000 leaf series (35 days each) plus the metric's unlabelled 400-day total.
// Timings are wall-clock on whatever else the machine is doing; the bar is 1 s for each.
import { seededRandom } from '../subgraphs/kit/dist/src/index.js';
import {
  addDays, analyse, answerFirstSentence, attributeSegments, combinations, generateDaily, generateLeaves, timeOf,
} from '../subgraphs/insight/dist/src/engine/index.js';

const SMOKE = process.env.SVC_BENCH_SMOKE === '1';
const METRICS = SMOKE ? 4 : 12;
const DAYS = SMOKE ? 60 : 400;
const LEAF_DIMS = SMOKE
  ? { dc: ['d1', 'd2'], province: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'], isp: ['i0', 'i1', 'i2', 'i3'], channel: ['c0', 'c1', 'c2'] }
  : { dc: ['d1', 'd2', 'd3', 'd4', 'd5'], province: Array.from({ length: 25 }, (_, i) => `p${i}`), isp: Array.from({ length: 10 }, (_, i) => `i${i}`), channel: Array.from({ length: 20 }, (_, i) => `c${i}`) };
const NOW = Date.parse('2026-11-18T10:00:00Z');
const LAST = '2026-11-17';
const START = addDays(LAST, -(DAYS - 1));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = performance.now();
  const result = fn();
  return { ms: performance.now() - t, result };
};

function jobInput() {
  const shape = (seed, level) => ({ start: START, days: DAYS, level, seed });
  const names = ['units_sold', 'unit_price_eur', 'promo_clicks', ...Array.from({ length: METRICS - 4 }, (_, i) => `other_metric_${i}`)];
  const catalog = [
    { name: 'sales_eur', unit: { kind: 'currency', code: 'EUR' }, formula: { product: ['units_sold', 'unit_price_eur'] }, drivers: [{ metric: 'promo_clicks', lagDays: 2 }], labels: ['store', 'region'] },
    { name: 'units_sold' },
    { name: 'unit_price_eur', unit: { kind: 'currency', code: 'EUR' }, aggregation: { ratio: { numerator: 'sales_eur', denominator: 'units_sold' } } },
    ...names.slice(2).map((name) => ({ name })),
  ];
  const leaves = generateLeaves('units_sold', { store: ['s1', 's2', 's3'], region: ['north', 'south', 'east', 'west'] }, shape(1, 5000), (l, d) => (l.region === 'east' && d >= addDays(LAST, -10) ? 0.7 : 1));
  const units = new Map();
  for (const leaf of leaves) for (const p of leaf.points) units.set(p.t, (units.get(p.t) ?? 0) + p.value);
  const price = generateDaily(shape(2, 12));
  const sales = leaves.map((leaf) => ({ name: 'sales_eur', labels: leaf.labels, points: leaf.points.map((p, i) => ({ t: p.t, value: p.value * price[i].value })) }));
  const series = [...leaves, ...sales, ...names.slice(2).map((name, k) => ({ name, labels: {}, points: generateDaily(shape(10 + k, 1000)) }))];
  return { question: 'Why did sales_eur drop last week?', catalog, series, now: NOW };
}

function leafInput() {
  const random = seededRandom(7);
  const leaves = combinations(LEAF_DIMS).map((labels) => {
    const before = 100 * (0.5 + random());
    const hit = labels.province === 'p3' && labels.isp === 'i2';
    return { labels, before, after: before * (hit ? 0.4 : 1 + 0.02 * (random() - 0.5)) };
  });
  return leaves;
}

function leafSeriesInput(leaves) {
  const days = 35;
  const first = addDays(LAST, -(days - 1));
  const series = leaves.map((l) => ({
    name: 'edge_bytes',
    labels: l.labels,
    points: Array.from({ length: days }, (_, i) => ({ t: timeOf(addDays(first, i)), value: addDays(first, i) >= '2026-11-09' ? l.after / 7 : l.before / 7 })),
  }));
  const total = generateDaily({ start: START, days: DAYS, level: 1e6, seed: 3 }, (d) => (d >= '2026-11-09' ? 0.97 : 1));
  series.push({ name: 'edge_bytes', labels: {}, points: total });
  return series;
}

const job = jobInput();
const cold = time(() => analyse(job));
const warm = Array.from({ length: SMOKE ? 1 : 5 }, () => time(() => analyse(job)).ms);
console.log(`job over ${METRICS} metrics × ${DAYS} days: cold ${cold.ms.toFixed(0)} ms, warm median ${median(warm).toFixed(0)} ms (${warm.map((m) => m.toFixed(0)).join(', ')})`);
console.log(`  ${answerFirstSentence(cold.result)}`);

const leaves = leafInput();
const seg = Array.from({ length: SMOKE ? 1 : 5 }, () => time(() => attributeSegments(leaves)));
const found = seg[0].result;
console.log(`segment drill-down over ${leaves.length} leaf combinations of 4 labels: median ${median(seg.map((s) => s.ms)).toFixed(0)} ms (${found.method}; top cause ${JSON.stringify(found.causes[0]?.labels)}, share ${(found.causes[0]?.share * 100).toFixed(0)} %)`);

const series = leafSeriesInput(leaves);
const catalog = [{ name: 'edge_bytes', unit: { kind: 'count', noun: 'bytes' }, labels: Object.keys(LEAF_DIMS) }];
const full = time(() => analyse({ question: 'Why did edge_bytes drop last week?', catalog, series, now: NOW }));
console.log(`analyse() over ${leaves.length} leaf series (35 days each): ${full.ms.toFixed(0)} ms; top cause ${full.result.causes[0]?.name}`);
