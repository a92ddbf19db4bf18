/**
 * Server-Sent Events, both directions.
 *
 * `parseSse` follows the WHATWG event-stream parsing rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * UTF-8 decoding across chunk boundaries (a leading BOM is dropped), lines ended by CRLF, LF or a
 * lone CR (also when the CR and the LF arrive in different chunks), `:` comment lines ignored,
 * `data:` lines joined with "\n", one optional space after the colon removed, a line without a
 * colon taken as a field name with an empty value, `event:` kept, `id:`/`retry:` and unknown
 * fields ignored, and an event dispatched on a blank line only when it has a data field.
 *
 * One deliberate leniency: the spec discards an event that is still pending when the stream
 * ends without a final blank line; some upstreams end exactly like that, so such an event is
 * dispatched instead.
 */

export interface SseEvent {
  /** The `event:` field, when the server sent one. */
  event?: string;
  data: string;
}

/** Parses an SSE body into events. Breaking out of the loop cancels the underlying stream. */
export async function* parseSse(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  /** The previous chunk ended with CR: a LF at the start of the next one belongs to it. */
  let pendingCr = false;
  let data: string[] = [];
  let hasData = false;
  let event: string | undefined;

  const processLine = (line: string): SseEvent | undefined => {
    if (line === '') {
      const out = hasData ? { ...(event !== undefined ? { event } : {}), data: data.join('\n') } : undefined;
      data = [];
      hasData = false;
      event = undefined;
      return out;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      hasData = true;
    } else if (field === 'event') {
      event = value;
    }
    // `id`, `retry` and unknown fields are ignored.
    return undefined;
  };

  /** Splits complete lines off `buffer`; the rest waits for more input. */
  function* drain(final: boolean): Generator<SseEvent> {
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const line = buffer.slice(start, i);
      if (ch === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) i++;
        } else if (!final) {
          pendingCr = true;
        }
      }
      start = i + 1;
      const out = processLine(line);
      if (out) yield out;
    }
    buffer = buffer.slice(start);
    if (final) {
      if (buffer !== '') {
        const out = processLine(buffer);
        if (out) yield out;
        buffer = '';
      }
      const out = processLine('');
      if (out) yield out;
    }
  }

  let first = true;
  const feed = (text: string): void => {
    if (first && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (pendingCr) {
      pendingCr = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    buffer += text;
  };

  for await (const chunk of iterate(body)) {
    const text = decoder.decode(chunk, { stream: true });
    if (text === '') continue;
    feed(text);
    yield* drain(false);
  }
  feed(decoder.decode());
  yield* drain(true);
}

async function* iterate(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!isReadableStream(body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function isReadableStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof (body as { getReader?: unknown }).getReader === 'function';
}

/** One SSE event carrying `data` as JSON, or the literal `data: [DONE]` for the string '[DONE]'. */
export function formatSse(data: unknown): string {
  if (data === '[DONE]') return 'data: [DONE]\n\n';
  return `data: ${JSON.stringify(data)}\n\n`;
}
