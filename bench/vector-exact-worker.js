// Exact (brute-force) nearest neighbours for bench/vector-search.js, in a worker thread.
//
// workerData: { vectors: SharedArrayBuffer (Float32 rows of `dims`), norms: SharedArrayBuffer
// (Float64 per row), dims, k }. Message in: { id, queries: Float32Array (rows of dims), from, to }
// (the row range of one tenant). Message out: { id, results: [{ rows: number[], distances:
// number[] }] }, nearest first, ties broken by row number.
// Cosine distance as pgvector defines it: 1 - a·b / (|a| |b|), accumulated in double precision
// over the float32 values PostgreSQL stores.
import { parentPort, workerData } from 'node:worker_threads';

const { dims, k } = workerData;
const vectors = new Float32Array(workerData.vectors);
const norms = new Float64Array(workerData.norms);

function nearest(query, from, to) {
  let qn = 0;
  for (let d = 0; d < dims; d++) qn += query[d] * query[d];
  qn = Math.sqrt(qn);
  // A small sorted list of the best k (distance ascending, then row).
  const bestRows = new Array(k).fill(-1);
  const bestDist = new Array(k).fill(Infinity);
  for (let row = from; row < to; row++) {
    const base = row * dims;
    let dot0 = 0;
    let dot1 = 0;
    let dot2 = 0;
    let dot3 = 0;
    for (let d = 0; d < dims; d += 4) {
      dot0 += vectors[base + d] * query[d];
      dot1 += vectors[base + d + 1] * query[d + 1];
      dot2 += vectors[base + d + 2] * query[d + 2];
      dot3 += vectors[base + d + 3] * query[d + 3];
    }
    const distance = 1 - (dot0 + dot1 + dot2 + dot3) / (norms[row] * qn);
    if (distance > bestDist[k - 1] || (distance === bestDist[k - 1] && row > bestRows[k - 1])) continue;
    let i = k - 1;
    while (i > 0 && (bestDist[i - 1] > distance || (bestDist[i - 1] === distance && bestRows[i - 1] > row))) {
      bestDist[i] = bestDist[i - 1];
      bestRows[i] = bestRows[i - 1];
      i--;
    }
    bestDist[i] = distance;
    bestRows[i] = row;
  }
  return { rows: bestRows, distances: bestDist };
}

parentPort.on('message', ({ id, queries, from, to }) => {
  const results = [];
  for (let q = 0; q < queries.length / dims; q++) results.push(nearest(queries.subarray(q * dims, (q + 1) * dims), from, to));
  parentPort.postMessage({ id, results });
});
