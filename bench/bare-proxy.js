// The floor for a gateway written in Node.js, for the gateway benchmark: a bare proxy that
// reads the client's JSON, drops `svcllm_options`, POSTs it upstream with undici (a keep-alive
// pool, as the svc gateway's providers use) and answers the parsed and re-serialised
// completion. No key check, validation, routing, limits, budget or metering: what is left of a
// gateway's added latency when it does nothing but forward. Runs in its own process, started by
// gateway-overhead.js via fork() with the upstream's URL as its argument; reports its port over IPC.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = `${process.argv[2]}/v1/chat/completions`;
const pool = new Agent({ keepAliveTimeout: 120_000, connections: 128 });

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      delete body.svcllm_options;
      const answer = await request(upstream, { method: 'POST', headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' }, body: JSON.stringify(body), dispatcher: pool });
      const text = JSON.stringify(JSON.parse(await answer.body.text()));
      res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-bare-proxy': '1' });
      res.end(text);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  if (process.send) process.send({ type: 'ready', url });
  else console.log(url);
});
process.on('message', (message) => {
  if (message?.type === 'stop') server.close(() => process.exit(0)), server.closeAllConnections();
});
process.on('disconnect', () => process.exit(0));
