// A minimal OpenAI-compatible upstream for the gateway benchmark: every POST answers the same
// tiny chat.completion (with usage), at once; `stream: true` answers a 200-chunk stream. Runs in its own process so its CPU time never
// shares an event loop with a gateway under test. Started by gateway-overhead.js via fork();
// reports its port over IPC. Standalone: `node bench/fake-upstream.js` prints the URL.
import { createServer } from 'node:http';

const BODY = Buffer.from(JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'fake-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 },
}));
const MODELS = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 1_700_000_000, owned_by: 'bench' }] }));

let requests = 0;
const CHUNKS = 200;
const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
/** A 200-chunk stream (one token each), the usage chunk and [DONE], written as fast as the socket takes it. */
const STREAM = Buffer.from([
  chunk({ role: 'assistant', content: '' }, null),
  ...Array.from({ length: CHUNKS }, (_, i) => chunk({ content: ` t${i}` }, null)),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model', choices: [], usage: { prompt_tokens: 8, completion_tokens: CHUNKS, total_tokens: 8 + CHUNKS } })}\n\n`,
  'data: [DONE]\n\n',
].join(''));

const server = createServer((req, res) => {
  // The answer depends only on whether the request asks for a stream.
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    requests++;
    if (req.method === 'POST' && Buffer.concat(parts).includes('"stream":true')) {
      // Chunked, as a real provider streams (one write would get a content-length, which Portkey's stream path rejects).
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(STREAM.subarray(0, 256));
      res.end(STREAM.subarray(256));
      return;
    }
    const body = req.method === 'GET' ? MODELS : BODY;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
// Keep idle keep-alive connections across benchmark phases (Node's default is 5 s).
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}`;
  if (process.send) process.send({ type: 'ready', url });
  else console.log(`fake upstream at ${url}/v1`);
});
process.on('message', (message) => {
  if (message?.type === 'count') process.send({ type: 'count', requests });
  if (message?.type === 'stop') server.close(() => process.exit(0)), server.closeAllConnections();
});
process.on('disconnect', () => process.exit(0));
