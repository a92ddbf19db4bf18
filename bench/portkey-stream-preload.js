// Loaded into the Portkey process only (node --import), before its server starts: works around
// Portkey's streaming failure on Node 24 (Portkey-AI/gateway#1389, #1550). With the
// @hono/node-server that npm installs for it (>= 1.14.2, needed on Node 24), Portkey passes the
// upstream's own fetch Response, whose headers are immutable, into a new streamed response and
// then appends its x-portkey-* headers to them, which throws: every `stream: true` request
// answers 500 "Something went wrong". The fix proposed upstream (Portkey-AI/gateway#1551) copies
// a streamed response into a new Response before adding headers; this does the same one step
// earlier, for event-stream answers only: the upstream response is re-wrapped with a mutable
// copy of its headers (same status, same body stream, nothing buffered). Non-streamed answers
// are returned untouched, so Portkey's non-streamed path is measured exactly as shipped.
const NativeResponse = globalThis.Response;
const nativeFetch = globalThis.fetch;
globalThis.fetch = async function fetch(input, init) {
  const response = await nativeFetch(input, init);
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new NativeResponse(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
